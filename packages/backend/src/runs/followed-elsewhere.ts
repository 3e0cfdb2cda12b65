import { staleAfterMs, type VmJobInfo, type VmJobs } from '../host/vm-jobs.ts';

/**
 * Sessions another Catalyst follows (issue 11): two backends on one VM and ideas folder must never both record a
 * session's output. The attach lock on the VM refuses the second; this tells a refusal by a live Catalyst from one
 * by a Catalyst that just died (its attach script may hold the lock a moment longer, or, when its connection died
 * without a word reaching sshd, until the next attacher displaces it once its heartbeat is stale).
 */

/** Held by an attacher whose Catalyst was heard from within the stale window. */
export function isHeardFrom(session: VmJobInfo, staleMs: number = staleAfterMs()): boolean {
  return session.heldForSeconds !== undefined && session.heldForSeconds * 1000 < staleMs;
}

/**
 * Whether a live Catalyst follows the session: it is still held and heard from after a whole stale window. A holder
 * whose Catalyst is gone stops being heard from within that window, and then an attach displaces it.
 */
export async function isFollowedElsewhere(
  jobs: VmJobs,
  session: VmJobInfo,
  options: { staleMs?: number; pollMs?: number } = {},
): Promise<boolean> {
  const staleMs = options.staleMs ?? staleAfterMs();
  const since = Date.now();
  let now: VmJobInfo | undefined = session;
  while (now !== undefined && isHeardFrom(now, staleMs)) {
    if (Date.now() - since >= staleMs) return true;
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 1_000));
    now = (await jobs.list()).find((info) => info.sessionId === session.sessionId);
  }
  return false;
}

export function followedElsewhereMessage(host: string): string {
  return (
    `Another Catalyst is following this idea’s run on ${host} (its session on the VM is attached and answering), ` +
    'so this one leaves it alone. Two Catalysts on one ideas folder are not supported: stop the other one, then ' +
    'restart this one to see the run.'
  );
}
