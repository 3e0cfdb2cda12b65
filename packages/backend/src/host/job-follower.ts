import { randomBytes } from 'node:crypto';
import { CatalystError } from '../core/catalyst-error.ts';

/**
 * A follower names the Catalyst run that attaches to a session (vm-jobs.ts, issue 39): the same for each of its
 * attachments, one after another. The attach script (vm/session-attach.sh) lets an attach take over at once an
 * attachment opened for the same follower, which attaches again only once its own channel is gone; any other holder
 * is displaced only once its heartbeat is stale.
 */

const FOLLOWER = /^[0-9a-f]{16,32}$/;

export function createFollowerId(): string {
  return randomBytes(8).toString('hex');
}

/** The attach script's second stdin line: the follower, or `-` for none (then nothing is taken over early). */
export function renderFollowerLine(follower: string | undefined): string {
  if (follower === undefined) return '-\n';
  if (!FOLLOWER.test(follower)) {
    throw new CatalystError('INVALID_ARGUMENT', 'an attachment’s follower must be 16 to 32 hex digits');
  }
  return `${follower}\n`;
}
