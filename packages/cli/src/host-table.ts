import type { HostHealthView } from '@catalyst/protocol';

/**
 * `catalyst hosts`: one row per host in aligned columns: its name, `*` for the default, where it came from (added
 * in the app, as what; or the config file), the claude found there, and whether it answers (or why not, last: the
 * one column of free length). Pure.
 */
export function formatHostTable(hosts: readonly HostHealthView[]): string {
  if (hosts.length === 0) return 'No hosts: catalyst hosts add <alias|user@host[:port]> adds one.\n';
  const rows = [
    ['NAME', 'DEFAULT', 'SOURCE', 'CLAUDE', 'STATUS'],
    ...hosts.map((host) => [
      host.name,
      host.isDefault ? '*' : '',
      sourceOf(host),
      claudeOf(host),
      oneLine(statusOf(host)),
    ]),
  ];
  const widths = [0, 1, 2, 3].map((column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
    .concat('\n');
}

function sourceOf(host: HostHealthView): string {
  if (host.source === 'builtin') return 'built in';
  if (host.source !== 'app') return 'file';
  return host.target === undefined ? 'app' : `app (${host.target})`;
}

function claudeOf(host: HostHealthView): string {
  const { preflight } = host;
  if (preflight === undefined) return '-';
  if (preflight.claudePath === undefined) return 'not found';
  return preflight.version === undefined
    ? preflight.claudePath
    : `${preflight.version} at ${preflight.claudePath}`;
}

function statusOf(host: HostHealthView): string {
  if (!host.reachable) return `unreachable: ${host.error ?? 'no reason given'}`;
  const problems = host.preflight?.problems ?? [];
  if (problems.length > 0) return `reachable, but ${problems.join('; ')}`;
  // Reachable is not ready: the last full check may have found more (claude not logged in, say).
  const failed = host.lastCheck?.isReady === false ? host.lastCheck.failed : [];
  return failed.length === 0
    ? 'reachable'
    : `reachable, but not ready at the last check: ${failed.join('; ')} (catalyst hosts check ${host.name})`;
}

/** An error sentence may hold a newline (stderr of the host): it must not break the table. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
