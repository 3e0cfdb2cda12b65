import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { describeError } from '../base/api.ts';
import type { Fetched } from '../base/use-fetched.ts';

const LOADING = { kind: 'loading' } as const;

/**
 * What `load` answers, asked for again `intervalMs` after each answer (a failure too) while the caller is mounted,
 * and from the start when `key` changes. The next look waits for the answer to the last one: an answer slower than
 * the interval is still shown, and requests do not pile up on a slow host. The last answer stays in sight while
 * the next is on its way.
 */
export function usePolled<T>(key: string, load: () => Promise<T>, intervalMs: number): Fetched<T> {
  const [state, setState] = useState<{ key: string; fetched: Fetched<T> }>();
  const latestLoad = useRef(load);
  useLayoutEffect(() => {
    latestLoad.current = load;
  });
  useEffect(() => {
    let isCurrent = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const show = (fetched: Fetched<T>) => {
      if (!isCurrent) return;
      setState({ key, fetched });
      timer = setTimeout(poll, intervalMs);
    };
    const poll = () => {
      latestLoad.current().then(
        (value) => {
          show({ kind: 'loaded', value });
        },
        (caught: unknown) => {
          show({ kind: 'failed', message: describeError(caught) });
        },
      );
    };
    poll();
    return () => {
      isCurrent = false;
      clearTimeout(timer);
    };
  }, [key, intervalMs]);
  return state?.key === key ? state.fetched : LOADING;
}
