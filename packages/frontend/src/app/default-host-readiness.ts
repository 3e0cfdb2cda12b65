import type { HostCheckView, HostHealthView } from '@catalyst/protocol';

/**
 * Whether the default host can run claude, as the first screen says it (issue 40, item 5): what the hosts list
 * already knows (reachable, claude found), then the host's last check for what only a check tells (logged in).
 * `reachable` alone is not enough: a host answers while its claude is not logged in.
 */
export type DefaultHostReadiness =
  | { readonly kind: 'ready'; readonly host: HostHealthView; readonly claude: string }
  | {
      readonly kind: 'not-ready';
      readonly host: HostHealthView;
      readonly reason: string;
      readonly fix?: string;
    }
  /** The list does not tell: a check is needed (none ran since the start, or the last one was not conclusive). */
  | { readonly kind: 'unknown'; readonly host: HostHealthView };

export function defaultHostOf(hosts: readonly HostHealthView[]): HostHealthView | undefined {
  return hosts.find((host) => host.isDefault) ?? hosts[0];
}

/** The verdict from the list's health of the host and its last check (null: none ran yet). */
export function readinessOf(host: HostHealthView, check: HostCheckView | null): DefaultHostReadiness {
  if (!host.reachable) return { kind: 'not-ready', host, reason: host.error ?? 'it does not answer' };
  const preflight = host.preflight;
  if (preflight?.claudePath === undefined) {
    const problems = preflight?.problems.join('; ') ?? '';
    return { kind: 'not-ready', host, reason: problems === '' ? 'claude was not found there' : problems };
  }
  if (check === null) return { kind: 'unknown', host };
  if (check.isReady) {
    return { kind: 'ready', host, claude: `claude ${preflight.version ?? ''}`.trim() };
  }
  const failed = check.steps.find((step) => step.status === 'failed');
  if (failed === undefined) return { kind: 'unknown', host };
  return {
    kind: 'not-ready',
    host,
    reason: failed.detail,
    ...(failed.fix === undefined ? {} : { fix: failed.fix }),
  };
}

/** The host as a person knows it: the built-in one is this machine. */
export function hostWords(host: HostHealthView): string {
  return host.source === 'builtin' ? `${host.name} (this machine)` : host.name;
}
