/**
 * How long a pairing link has left (issue 29), as a person reads a timer: `9:59`, `0:05`. The deadline is taken on
 * this device's clock from when the link arrived, never later than the server's `expiresAt`: a clock that runs ahead
 * ends the count early, never after the code has stopped working.
 */
export function pairingDeadline(options: {
  expiresAt: string;
  receivedAt: number;
  lifetimeMs: number;
}): number {
  return Math.min(Date.parse(options.expiresAt), options.receivedAt + options.lifetimeMs);
}

export function formatCountdown(remainingMs: number): string {
  const seconds = Math.max(0, Math.ceil(remainingMs / 1000));
  return `${String(Math.floor(seconds / 60))}:${String(seconds % 60).padStart(2, '0')}`;
}
