/** Small formatting shared by the screens. */

/**
 * What was spent, as the transcript's run summaries always said it (issue 31: one format everywhere, so the
 * autopilot's $0.0270 is the transcript's $0.0270, not $0.03).
 */
export function formatCost(usd: number): string {
  return `$${usd.toFixed(4)}`;
}

const units: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

export function formatRelative(iso: string, now = Date.now()): string {
  const ms = Date.parse(iso) - now;
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const [unit, size] of units) {
    if (Math.abs(ms) >= size) return format.format(Math.round(ms / size), unit);
  }
  return 'just now';
}

/** "812 bytes", "12.3 KiB", "5.0 MiB": binary units, as the limits are (1 MiB of text, 2 MiB of diff). */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? '' : 's'}`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
}

/** A moment as the person's locale writes it: "12 Jan 2025, 14:03". */
export function formatDateTime(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
