import type { RelayEvent } from '@catalyst/protocol';

/**
 * The conversation as Catalyst's history records it, for the question answerer and the lost-session recap. A
 * message is the person's message that started a run or Claude's top-level text. The answerer's second look at a
 * question Claude asked again also gets what happened between the messages (issue 12): Claude's tool calls and
 * their results, the questions asked and how they were answered, so it can see why its first answer did not
 * settle the matter. That activity is summarised: each entry is one bounded line.
 */

export interface ConversationMessage {
  role: 'person' | 'claude';
  text: string;
}

export type ConversationEntry = ConversationMessage | { role: 'activity'; text: string };

export function isMessageEntry(entry: ConversationEntry): entry is ConversationMessage {
  return entry.role !== 'activity';
}

/** How much of a tool call's input, and of a tool's result, one activity line shows. */
export const ACTIVITY_INPUT_CHARS = 300;
export const ACTIVITY_RESULT_CHARS = 500;

export function isConversationMessage(event: RelayEvent): boolean {
  return event.type === 'run:started' || (event.type === 'claude:text' && event.parentToolUseId === null);
}

/** Messages, and with `withActivity` the top-level activity between them; subagents' inner steps are left out. */
export function isConversationEvent(event: RelayEvent, withActivity: boolean): boolean {
  if (isConversationMessage(event)) return true;
  if (!withActivity) return false;
  if (event.type === 'claude:tool_use')
    return event.parentToolUseId === null && event.name !== 'AskUserQuestion';
  // An answered question's closing says nothing its `question_answered` did not.
  if (event.type === 'claude:question_closed') return event.reason !== 'answered';
  return ACTIVITY_TYPES.has(event.type);
}

const ACTIVITY_TYPES = new Set<RelayEvent['type']>([
  'claude:tool_result',
  'claude:question',
  'claude:question_answered',
]);

/**
 * The entries of `events` (oldest first, as chosen by isConversationEvent). A tool result is named by its call
 * when the call is among the events; results of calls that are not (a subagent's, AskUserQuestion's, one before
 * the window) are left out: the question's own answer is its `question_answered` line.
 */
export function conversationOf(events: readonly RelayEvent[]): ConversationEntry[] {
  const tools = new Map<string, string>();
  const entries: ConversationEntry[] = [];
  for (const event of events) {
    if (event.type === 'claude:tool_use') tools.set(event.toolUseId, event.name);
    const entry = entryOf(event, tools);
    if (entry !== undefined) entries.push(entry);
  }
  return entries;
}

function entryOf(event: RelayEvent, tools: ReadonlyMap<string, string>): ConversationEntry | undefined {
  if (event.type === 'run:started') return { role: 'person', text: event.message };
  if (event.type === 'claude:text')
    return event.parentToolUseId === null ? { role: 'claude', text: event.text } : undefined;
  if (event.type === 'claude:tool_use')
    return activity(`Claude used ${event.name}: ${cut(JSON.stringify(event.input), ACTIVITY_INPUT_CHARS)}`);
  if (event.type === 'claude:tool_result') {
    const name = tools.get(event.toolUseId);
    if (name === undefined || name === 'AskUserQuestion') return undefined;
    const what = event.isError ? 'failed' : 'returned';
    return activity(`${name} ${what}: ${cut(event.content, ACTIVITY_RESULT_CHARS)}`);
  }
  return questionEntryOf(event);
}

function questionEntryOf(event: RelayEvent): ConversationEntry | undefined {
  if (event.type === 'claude:question')
    return activity(`Claude asked: ${event.questions.map(describeAsked).join(' ')}`);
  if (event.type === 'claude:question_answered') {
    const answers = Object.entries(event.answers).map(([question, answer]) => `"${question}" → "${answer}"`);
    const by = event.source === 'auto' ? `automatically (${event.by})` : 'by the person';
    return activity(`Answered ${by}: ${answers.join('; ')}`);
  }
  if (event.type === 'claude:question_closed' && event.reason !== 'answered')
    return activity(`The question was closed unanswered (${event.reason}).`);
  return undefined;
}

function describeAsked(item: { question: string; options: readonly { label: string }[] }): string {
  return `"${item.question}" (offered: ${item.options.map((option) => option.label).join(', ')})`;
}

function activity(text: string): ConversationEntry {
  return { role: 'activity', text };
}

/** `text` cut to `max` characters, saying how much was left out. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${String(text.length - max)} more characters)`;
}

/**
 * The newest entries that fit: each cut at `entryChars`, `totalChars` in all. Returns them oldest first and how
 * many older ones were left out.
 */
export function boundConversation(
  entries: readonly ConversationEntry[],
  limits: { entryChars: number; totalChars: number },
): { entries: ConversationEntry[]; leftOut: number } {
  const kept: ConversationEntry[] = [];
  let total = 0;
  for (const entry of [...entries].reverse()) {
    const text = cut(entry.text, limits.entryChars);
    if (total + text.length > limits.totalChars) break;
    total += text.length;
    kept.unshift({ ...entry, text });
  }
  return { entries: kept, leftOut: entries.length - kept.length };
}
