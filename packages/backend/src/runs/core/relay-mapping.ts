import { z } from 'zod';
import { CliMessageSchema, isJsonObject } from '@catalyst/protocol';
import type {
  AssistantContentBlock,
  CliAssistantMessage,
  CliMessage,
  CliSystemMessage,
  CliUserMessage,
  IdeaId,
  LineTooLong,
  RelayEventDraft,
  SystemInitMessage,
  ToolResultBlock,
  UnparsableLine,
} from '@catalyst/protocol';

/**
 * CLI messages → the events relayed to browsers (protocol `relay-events.ts`). Pure: one message in, drafts out.
 *
 * - `result` lines map to nothing here: the run emits `claude:result` itself with the parsed CommandResult.
 *   An `unknown` message (including a result the parser could not type) becomes a `claude:event`, so the reason it
 *   was not typed stays visible.
 * - Nor do the lines of `--include-partial-messages` (§3.9): every `stream_event` (one per text delta would
 *   multiply the history; the text reaches browsers live instead, live-text.ts, and whole as `claude:text`) and the
 *   `system/status` "requesting" printed before each API call.
 * - Size: lines reach 10 MB (claude-cli-protocol.md §1: an Edit's `tool_use_result.originalFile` holds the whole
 *   file; a 1 MB Write puts 1 MB in `tool_use.input.content`). A browser gets none of that bulk:
 *   `claude:tool_result` carries only the tool_result's own content, `tool_use_result` is dropped from user lines
 *   relayed whole, and every string over MAX_RELAY_TEXT_BYTES (UTF-8) anywhere in a relayed value is cut to that
 *   size and ends with the marker `\n[… N bytes omitted]`, N being the UTF-8 bytes cut.
 */

export const MAX_RELAY_TEXT_BYTES = 1024 * 1024;

export interface RelayContext {
  readonly ideaId: IdeaId;
  readonly runId: string;
}

export type DraftOf<T extends RelayEventDraft['type']> = Extract<RelayEventDraft, { type: T }>;

// Past this depth a value is relayed as it is: real CLI lines are a few levels deep, and the walk must not overflow.
const MAX_CAP_DEPTH = 64;
const SlashCommandsSchema = z.array(z.string()).catch([]);

export function toRelayDrafts(message: CliMessage, ctx: RelayContext): RelayEventDraft[] {
  switch (message.type) {
    case 'system':
      return toSystemDrafts(message, ctx);
    case 'assistant':
      return toAssistantDrafts(message, ctx);
    case 'user':
      return toUserDrafts(message, ctx);
    case 'result':
    case 'stream_event':
      return [];
    case 'control_request':
    case 'control_response':
    case 'control_cancel_request':
    case 'tool_progress':
    case 'unknown':
      return [toEventDraft(message, ctx)];
  }
}

/** A stdout line that did not become a message: visible to the person, never dropped (STYLE.md, Errors). */
export function toErrorDraft(
  event: UnparsableLine | LineTooLong,
  ctx: RelayContext,
): DraftOf<'claude:error'> {
  const base = { ideaId: ctx.ideaId, runId: ctx.runId, type: 'claude:error' } as const;
  switch (event.kind) {
    case 'unparsable_line':
      return {
        ...base,
        source: 'unparsable_line',
        text: `Claude printed a line that is not JSON (${event.byteLength} bytes; ${event.error}). It began: ${event.sample}`,
      };
    case 'line_too_long':
      return {
        ...base,
        source: 'line_too_long',
        text: `Claude printed a line of ${event.byteLength} bytes, over the limit of ${event.limitBytes} bytes; it was skipped.`,
      };
  }
}

/** §1: stderr holds human-readable text only (usage and fatal errors, warnings); empty in a normal run. */
export function toStderrDraft(text: string, ctx: RelayContext): DraftOf<'claude:error'> {
  return {
    ideaId: ctx.ideaId,
    runId: ctx.runId,
    type: 'claude:error',
    source: 'stderr',
    text: capText(text),
  };
}

function toSystemDrafts(message: CliSystemMessage, ctx: RelayContext): RelayEventDraft[] {
  if (message.subtype === 'init') return [toSystemDraft(message, ctx)];
  if (message.subtype === 'status' && message.status === 'requesting') return [];
  return [toEventDraft(message, ctx)];
}

function toSystemDraft(message: SystemInitMessage, ctx: RelayContext): DraftOf<'claude:system'> {
  return {
    ideaId: ctx.ideaId,
    runId: ctx.runId,
    type: 'claude:system',
    sessionId: message.session_id,
    model: message.model,
    cwd: message.cwd,
    tools: message.tools,
    // Not typed by the protocol (it is loose here): read it leniently, a missing list is an empty one.
    slashCommands: SlashCommandsSchema.parse(message['slash_commands']),
  };
}

/** §3.2: one block per line in practice; a line with several is mapped block by block all the same. */
function toAssistantDrafts(message: CliAssistantMessage, ctx: RelayContext): RelayEventDraft[] {
  const drafts = message.message.content.flatMap((block) => toBlockDrafts(block, message, ctx));
  const isFullyMapped = drafts.length > 0 && drafts.length === message.message.content.length;
  return isFullyMapped ? drafts : [...drafts, toEventDraft(message, ctx)];
}

function toBlockDrafts(
  block: AssistantContentBlock,
  message: CliAssistantMessage,
  ctx: RelayContext,
): RelayEventDraft[] {
  const base = { ideaId: ctx.ideaId, runId: ctx.runId };
  const messageId = message.message.id;
  const parentToolUseId = message.parent_tool_use_id;
  switch (block.type) {
    case 'text':
      return [{ ...base, type: 'claude:text', text: capText(block.text), messageId, parentToolUseId }];
    case 'thinking':
      return [{ ...base, type: 'claude:thinking', thinking: capText(block.thinking), messageId }];
    case 'tool_use':
      return [
        {
          ...base,
          type: 'claude:tool_use',
          toolUseId: block.id,
          name: block.name,
          input: capObject(block.input, 0),
          parentToolUseId,
        },
      ];
    case 'redacted_thinking':
    case 'unknown':
      // Nothing a person can read: the whole line goes out as a claude:event.
      return [];
  }
}

/**
 * §3.3, §3.7: tool_result blocks become claude:tool_result; any other block (interrupt markers, a subagent's
 * prompt, replays, the compaction summary) sends the line out as one claude:event.
 */
function toUserDrafts(message: CliUserMessage, ctx: RelayContext): RelayEventDraft[] {
  const content = message.message.content;
  if (typeof content === 'string') return [toEventDraft(withoutToolUseResult(message), ctx)];
  const results = content.flatMap((block) =>
    block.type === 'tool_result' ? [toToolResultDraft(block, ctx)] : [],
  );
  const hasOtherBlocks = results.length === 0 || results.length < content.length;
  return hasOtherBlocks ? [...results, toEventDraft(withoutToolUseResult(message), ctx)] : results;
}

function toToolResultDraft(block: ToolResultBlock, ctx: RelayContext): DraftOf<'claude:tool_result'> {
  return {
    ideaId: ctx.ideaId,
    runId: ctx.runId,
    type: 'claude:tool_result',
    toolUseId: block.tool_use_id,
    content: capText(describeToolResultContent(block.content)),
    // §12: `is_error` is absent (Read, Write, Edit success), false (Bash success) or true.
    isError: block.is_error === true,
  };
}

/** §3.3: a string, or an array of blocks (a subagent's report: text blocks; other tools may add images). */
function describeToolResultContent(content: ToolResultBlock['content']): string {
  if (typeof content === 'string') return content;
  return content.map((block) => (block.type === 'text' ? block.text : `[${block.originalType}]`)).join('\n');
}

/** `tool_use_result` is the structured duplicate of the tool_result (the whole file for an Edit, §1). */
function withoutToolUseResult(message: CliUserMessage): CliUserMessage {
  if (message.tool_use_result === undefined) return message;
  const copy = { ...message };
  delete copy.tool_use_result;
  return copy;
}

function toEventDraft(message: CliMessage, ctx: RelayContext): DraftOf<'claude:event'> {
  return { ideaId: ctx.ideaId, runId: ctx.runId, type: 'claude:event', message: capMessage(message) };
}

/**
 * The message with every long string capped. Capping only shortens strings, so the copy is still a valid
 * CliMessage; it is checked again rather than cast. The message itself is returned when nothing was long.
 */
function capMessage(message: CliMessage): CliMessage {
  const capped = capValue(message, 0);
  if (capped === message) return message;
  const parsed = CliMessageSchema.safeParse(capped);
  if (parsed.success) return parsed.data;
  return { type: 'unknown', reason: 'a message too large to relay, and invalid once shortened', raw: null };
}

function capValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return capText(value);
  if (depth >= MAX_CAP_DEPTH) return value;
  if (Array.isArray(value)) return capArray(value, depth);
  if (isJsonObject(value)) return capObject(value, depth);
  return value;
}

function capArray(items: readonly unknown[], depth: number): readonly unknown[] {
  const capped = items.map((item) => capValue(item, depth + 1));
  return capped.every((item, index) => item === items[index]) ? items : capped;
}

/** Copies the object only when one of its members changed. */
function capObject(value: Record<string, unknown>, depth: number): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const [key, member] of Object.entries(value)) {
    const capped = capValue(member, depth + 1);
    if (capped === member) continue;
    copy ??= { ...value };
    copy[key] = capped;
  }
  return copy ?? value;
}

/** The text itself when it fits MAX_RELAY_TEXT_BYTES of UTF-8; else its longest prefix that fits, plus the marker. */
export function capText(text: string, maxBytes = MAX_RELAY_TEXT_BYTES): string {
  // A UTF-16 code unit is at most 3 UTF-8 bytes (a surrogate pair is 4 for 2 units): the common case is free.
  if (text.length * 3 <= maxBytes) return text;
  let bytes = 0;
  let keptChars = -1;
  let keptBytes = 0;
  for (let index = 0; index < text.length; index++) {
    const width = utf8Width(text, index);
    if (width === 4) index++;
    if (keptChars < 0 && bytes + width > maxBytes) {
      keptChars = width === 4 ? index - 1 : index;
      keptBytes = bytes;
    }
    bytes += width;
  }
  if (keptChars < 0) return text;
  return `${text.slice(0, keptChars)}\n[… ${bytes - keptBytes} bytes omitted]`;
}

/** UTF-8 bytes of the code point at `index`: 4 for a surrogate pair, 3 for a lone surrogate (U+FFFD). */
function utf8Width(text: string, index: number): number {
  const code = text.charCodeAt(index);
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  if (code >= 0xd800 && code <= 0xdbff) {
    const next = text.charCodeAt(index + 1);
    if (next >= 0xdc00 && next <= 0xdfff) return 4;
  }
  return 3;
}
