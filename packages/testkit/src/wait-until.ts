import { setTimeout as delay } from 'node:timers/promises';

/**
 * Polls a condition that no event announces (a process elsewhere on the machine going away), up to a deadline.
 * Where an event exists, await the event instead.
 */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  options: { timeoutMs: number; intervalMs?: number; what?: string | (() => string) },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() >= deadline) {
      const what = typeof options.what === 'function' ? options.what() : options.what;
      throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${what ?? 'a condition'}`);
    }
    await delay(options.intervalMs ?? 50);
  }
}

/** What `action` rejects with; fails when it resolves instead. */
export async function caught(action: Promise<unknown>): Promise<unknown> {
  try {
    await action;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}
