import { IDEA_ID_SOURCE } from '@catalyst/protocol';

/** A run's session on a host is named `<idea id>-<16 hex>` (run-driver.ts): whose it is, or undefined. */
const SESSION_ID = new RegExp(`^(${IDEA_ID_SOURCE})-[0-9a-f]{16}$`);

export function ideaOfJob(sessionId: string): string | undefined {
  return SESSION_ID.exec(sessionId)?.[1];
}
