import type { CliResultMessage } from '@catalyst/protocol';
import { cut, type ConversationMessage } from './conversation-entries.ts';

/**
 * A session the CLI no longer has (issue 15): `--resume <id>` of a conversation whose transcript is gone (the CLI
 * deletes transcripts older than `cleanupPeriodDays`, 30 by default; a person wiped `~/.claude`; the project folder
 * moved, and sessions are per cwd). The CLI then prints one line, `result/error_during_execution` with
 * `No conversation found with session ID: <id>`, and exits 1, before any `system/init`
 * (claude-cli-protocol.md §6, §10). Recognised by what the CLI says, never by guessing where it keeps transcripts: a
 * false "lost" would throw away a conversation that still exists.
 */

const LOST_SESSION_SENTENCE = 'No conversation found with session ID';

export function isLostSession(message: CliResultMessage, sessionId: string): boolean {
  if (message.subtype === 'success') return false;
  return message.errors.some((error) => error.includes(LOST_SESSION_SENTENCE) && error.includes(sessionId));
}

export const RECAP_MESSAGES = 20;
export const RECAP_MESSAGE_CHARS = 2_000;
export const RECAP_TOTAL_CHARS = 12_000;

export interface SessionRecapInput {
  idea: { title: string; description: string };
  /** The idea's conversation before this run, oldest first (the person's messages and Claude's text). */
  conversation: readonly ConversationMessage[];
  /** Older messages exist that `conversation` does not hold (only the newest were read from a long history). */
  hasEarlier?: boolean;
}

/**
 * The recap a new session starts with: the idea, and the newest messages of Catalyst's own record of the
 * conversation, bounded (at most RECAP_MESSAGES messages, each cut at RECAP_MESSAGE_CHARS, RECAP_TOTAL_CHARS in
 * all; the newest are kept).
 */
export function buildSessionRecap(input: SessionRecapInput): string {
  const lines: string[] = [];
  let total = 0;
  for (const message of [...input.conversation].reverse().slice(0, RECAP_MESSAGES)) {
    const line = `${message.role === 'person' ? 'Person' : 'Claude'}: ${cut(message.text, RECAP_MESSAGE_CHARS)}`;
    if (total + line.length > RECAP_TOTAL_CHARS) break;
    total += line.length;
    lines.unshift(line);
  }
  const left = input.conversation.length - lines.length;
  const heading = headingOf(lines.length, left, input.hasEarlier === true);
  return [
    "[Catalyst] Your earlier session for this idea is no longer available on this machine, so this is a new session. Here is a recap from Catalyst's own record, so you can go on where the conversation was. The files in the working directory are as the earlier session left them.",
    `The idea: ${input.idea.title}${input.idea.description === '' ? '' : `\n${input.idea.description}`}`,
    [heading, ...lines].join('\n'),
    "The person's new message follows.",
  ].join('\n\n');
}

function headingOf(shown: number, left: number, hasEarlier: boolean): string {
  if (shown === 0) return 'There were no messages yet.';
  if (left === 0 && !hasEarlier) return 'The conversation so far, oldest first:';
  // Only the newest messages were read from a long history: how many came before is not known.
  const earlier = hasEarlier ? 'earlier ones' : `${String(left)} earlier ones`;
  return `The conversation so far (the last ${String(shown)} messages; ${earlier} left out), oldest first:`;
}

/** The message the new session receives: the recap, then the person's own words, unchanged. */
export function withRecap(recap: string, message: string): string {
  return `${recap}\n\n---\n\n${message}`;
}

/**
 * One run's watch for a lost session: from the start of a resumed run until the session answers (`system/init`),
 * a result saying the session is gone means the run goes on in a new session, once; the CLI's stderr meanwhile is
 * held (it says the same thing, in chunks), and shown after all if the session answers or the run ends.
 */
export class SessionRecovery {
  readonly #resumedId: string | undefined;
  #hasAnswered = false;
  #isLost = false;
  #hasRestarted = false;
  #heldStderr = '';

  constructor(resumedId: string | undefined) {
    this.#resumedId = resumedId;
  }

  /** Resuming, and neither an answer from the session nor a new session yet. */
  get isWatching(): boolean {
    return this.#resumedId !== undefined && !this.#hasAnswered && !this.#hasRestarted;
  }

  get isLost(): boolean {
    return this.#isLost;
  }

  /** Whether `message` says the resumed session is gone; from then on the run waits for its process to exit. */
  noteResult(message: CliResultMessage): boolean {
    if (!this.isWatching || !isLostSession(message, this.#resumedId ?? '')) return false;
    this.#isLost = true;
    return true;
  }

  /** The session answered: the stderr held until now, to show. */
  noteAnswered(): string {
    this.#hasAnswered = true;
    return this.releaseStderr();
  }

  holdStderr(text: string): void {
    this.#heldStderr += text;
  }

  releaseStderr(): string {
    const held = this.#heldStderr;
    this.#heldStderr = '';
    return held;
  }

  /** The new session starts: what was held belonged to the lost one. Returns the lost session's id. */
  restart(): string {
    this.#hasRestarted = true;
    this.#isLost = false;
    this.#heldStderr = '';
    return this.#resumedId ?? '';
  }
}
