import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { describeError } from './api.ts';

/** An answer of the REST API as a screen shows it: on its way, there, or what went wrong in a sentence. */
export type Fetched<T> =
  | { readonly kind: 'loading' }
  | { readonly kind: 'loaded'; readonly value: T }
  | { readonly kind: 'failed'; readonly message: string };

const LOADING = { kind: 'loading' } as const;

/**
 * What `load` answers for `key`, asked again whenever the key changes; nothing is asked while it is undefined.
 * Only the answer for the current key is shown: a slow answer for an earlier one is dropped. With `keepPrevious`,
 * the answer for the previous key stays in sight until the new one comes (a refresh, rather than a new thing).
 */
export function useFetched<T>(
  key: string | undefined,
  load: () => Promise<T>,
  options: { keepPrevious?: boolean } = {},
): Fetched<T> {
  const [state, setState] = useState<{ key: string; fetched: Fetched<T> }>();
  const latestLoad = useRef(load);
  useLayoutEffect(() => {
    latestLoad.current = load;
  });
  useEffect(() => {
    if (key === undefined) return undefined;
    let isCurrent = true;
    latestLoad.current().then(
      (value) => {
        if (isCurrent) setState({ key, fetched: { kind: 'loaded', value } });
      },
      (caught: unknown) => {
        if (isCurrent) setState({ key, fetched: { kind: 'failed', message: describeError(caught) } });
      },
    );
    return () => {
      isCurrent = false;
    };
  }, [key]);
  if (state === undefined) return LOADING;
  return state.key === key || options.keepPrevious === true ? state.fetched : LOADING;
}
