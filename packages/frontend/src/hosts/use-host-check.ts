import type { HostCheckView } from '@catalyst/protocol';
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, api, describeError } from '../base/api.ts';

/** A host's check as its card shows it: not asked yet, running, its steps, or what stopped it. */
export type CheckState =
  | { readonly kind: 'idle' }
  | { readonly kind: 'checking' }
  | { readonly kind: 'checked'; readonly check: HostCheckView }
  | { readonly kind: 'failed'; readonly message: string };

/**
 * Confirming a new host key: `refused` is the server's 400 for a fingerprint that is not the one presented, a
 * warning nothing on the page overrides (only a new check offers the key again); `failed` any other failure.
 */
export type TrustState =
  { readonly kind: 'idle' | 'trusting' } | { readonly kind: 'refused' | 'failed'; readonly message: string };

export interface HostCheck {
  state: CheckState;
  trustState: TrustState;
  check: () => Promise<void>;
  trust: (fingerprint: string) => Promise<void>;
}

export function useHostCheck(
  name: string,
  options: { checkAtOnce: boolean; onChecked: (check: HostCheckView) => void },
): HostCheck {
  const [state, setState] = useState<CheckState>({ kind: 'idle' });
  const [trustState, setTrustState] = useState<TrustState>({ kind: 'idle' });
  const isMounted = useRef(true);
  const onChecked = useRef(options.onChecked);
  useEffect(() => {
    onChecked.current = options.onChecked;
  });
  useEffect(() => {
    isMounted.current = true;
    return () => {
      isMounted.current = false;
    };
  }, []);

  const check = useCallback(async () => {
    setState({ kind: 'checking' });
    setTrustState({ kind: 'idle' });
    try {
      const view = await api.checkHost(name);
      if (!isMounted.current) return;
      setState({ kind: 'checked', check: view });
      onChecked.current(view);
    } catch (caught) {
      if (isMounted.current) setState({ kind: 'failed', message: describeError(caught) });
    }
  }, [name]);

  const trust = useCallback(
    async (fingerprint: string) => {
      setTrustState({ kind: 'trusting' });
      try {
        const view = await api.trustHostKey(name, fingerprint);
        if (!isMounted.current) return;
        setState({ kind: 'checked', check: view });
        setTrustState({ kind: 'idle' });
        onChecked.current(view);
      } catch (caught) {
        if (!isMounted.current) return;
        const isRefused = caught instanceof ApiError && caught.code === 'FINGERPRINT_MISMATCH';
        setTrustState({ kind: isRefused ? 'refused' : 'failed', message: describeError(caught) });
      }
    },
    [name],
  );

  const { checkAtOnce } = options;
  useEffect(() => {
    if (checkAtOnce) void check();
  }, [checkAtOnce, check]);

  // The host's last check, as the server kept it (issue 40): after a reload a key to confirm is still offered, and a
  // host found not ready says so, without pressing "Check" again. A check asked for meanwhile wins.
  useEffect(() => {
    if (checkAtOnce) return;
    api.lastHostCheck(name).then(
      (last) => {
        if (last === null || !isMounted.current) return;
        setState((old) => (old.kind === 'idle' ? { kind: 'checked', check: last } : old));
      },
      (caught: unknown) => {
        if (!isMounted.current) return;
        const failed = { kind: 'failed', message: describeError(caught) } as const;
        setState((old) => (old.kind === 'idle' ? failed : old));
      },
    );
  }, [checkAtOnce, name]);

  return { state, trustState, check, trust };
}
