import {
  MAX_RELAY_EVENT_BYTES,
  RelayEventSchema,
  isJsonObject,
  type RelayEvent,
  type RelayEventDraft,
} from '@catalyst/protocol';
import { capText } from './relay-mapping.ts';

/**
 * The bound on one relayed event's size (issue 16, item 9). relay-mapping.ts caps each string at 1 MiB, but an
 * event holds many (a MultiEdit's edits, a tool_use with many large fields), and one event larger than a client's
 * live send bound (8 MiB, ws-connection.ts) would close every subscriber, and close them again on every replay.
 *
 * An event whose JSON exceeds MAX_RELAY_EVENT_BYTES has its longest strings (and object keys) cut to one common
 * length, chosen so the whole fits: short strings stay whole, the largest lose the most. Each cut string ends with
 * capText's marker `\n[… N bytes omitted]`, and the event carries `truncated: true`. Catalyst keeps no fuller copy:
 * the history file holds the event as relayed (the CLI's own session file on the host holds the original).
 */

// Past this depth a value is kept as it is: real events are a few levels deep, and the walk must not overflow.
const MAX_WALK_DEPTH = 64;
/** Room left for the markers capText appends (about 30 bytes per cut string). */
const SLACK_BYTES = 16 * 1024;
/** Each try shrinks the common length by a quarter; below this length the event cannot be saved by cutting. */
const MIN_STRING_BYTES = 64;

export function relayEventBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/** The draft itself when it fits `maxBytes` of JSON; else a copy with its longest strings cut, marked truncated. */
export function capRelayEvent(draft: RelayEventDraft, maxBytes = MAX_RELAY_EVENT_BYTES): RelayEventDraft {
  // Every event of a run passes here, and nearly all are far below the bound: a bound on their JSON found without
  // serialising them spares a string per event, which under load is garbage V8 grows the heap for.
  if (jsonBytesBound(draft, maxBytes, 0) >= 0) return draft;
  const size = relayEventBytes(draft);
  if (size <= maxBytes) return draft;
  const lengths: number[] = [];
  collectStringBytes(draft, 0, lengths);
  const stringBytes = lengths.reduce((sum, bytes) => sum + bytes, 0);
  const longest = lengths.reduce((most, bytes) => Math.max(most, bytes), 0);
  let limit = Math.min(longest, commonLength(lengths, maxBytes - (size - stringBytes) - SLACK_BYTES));
  while (limit >= MIN_STRING_BYTES) {
    const capped = { ...(capStrings(draft, limit, 0) as object), truncated: true };
    if (relayEventBytes(capped) <= maxBytes) return checkDraft(capped) ?? tooLarge(draft, size);
    limit = Math.floor(limit * 0.75);
  }
  return tooLarge(draft, size);
}

/** The most bytes one UTF-16 unit takes in JSON: `\\uXXXX` (a control character or a lone surrogate). */
const MAX_JSON_BYTES_PER_UNIT = 6;
/** The longest JSON number, as `-1.7976931348623157e+308`; `false` and `null` are shorter (undefined: nothing). */
const MAX_JSON_SCALAR_BYTES = 24;

/**
 * What is left of `budget` once `value`'s JSON is counted at its most (never less than its real size), or -1 as soon
 * as that bound passes the budget, or the value is deeper or stranger (a function, a class, a bigint) than a bound
 * can be sure of: then the caller serialises it.
 */
function jsonBytesBound(value: unknown, budget: number, depth: number): number {
  if (typeof value === 'string') return budget - 2 - MAX_JSON_BYTES_PER_UNIT * value.length;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) {
    return budget - MAX_JSON_SCALAR_BYTES;
  }
  if (typeof value !== 'object' || depth >= MAX_WALK_DEPTH) return -1;
  let left = budget - 2;
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) {
      left = jsonBytesBound(item, left - 1, depth + 1);
      if (left < 0) return -1;
    }
    return left;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return -1;
  for (const [key, member] of Object.entries(value)) {
    left = jsonBytesBound(member, left - 4 - MAX_JSON_BYTES_PER_UNIT * key.length, depth + 1);
    if (left < 0) return -1;
  }
  return left;
}

/**
 * The length L at which cutting every string longer than L makes them sum to at most `budget` (water filling):
 * the strings shorter than their share are kept, the rest share what is left equally.
 */
export function commonLength(lengths: readonly number[], budget: number): number {
  if (budget <= 0) return 0;
  const sorted = [...lengths].sort((a, b) => a - b);
  let remaining = budget;
  for (const [index, length] of sorted.entries()) {
    const share = Math.floor(remaining / (sorted.length - index));
    if (length > share) return share;
    remaining -= length;
  }
  return Number.POSITIVE_INFINITY;
}

function collectStringBytes(value: unknown, depth: number, into: number[]): void {
  if (typeof value === 'string') {
    into.push(jsonStringBytes(value));
    return;
  }
  if (depth >= MAX_WALK_DEPTH) return;
  if (Array.isArray(value)) {
    for (const item of value) collectStringBytes(item, depth + 1, into);
  } else if (isJsonObject(value)) {
    for (const [key, member] of Object.entries(value)) {
      into.push(jsonStringBytes(key));
      collectStringBytes(member, depth + 1, into);
    }
  }
}

function capStrings(value: unknown, limit: number, depth: number): unknown {
  if (typeof value === 'string') return capJsonString(value, limit);
  if (depth >= MAX_WALK_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => capStrings(item, limit, depth + 1));
  if (!isJsonObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value))
    copy[capJsonString(key, limit)] = capStrings(member, limit, depth + 1);
  return copy;
}

/** A string's bytes inside JSON, escapes included (a control character takes 6), without its quotes. */
function jsonStringBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text), 'utf8') - 2;
}

/** capText counts UTF-8 bytes: the limit in JSON bytes is scaled by how much this string's escapes add. */
function capJsonString(text: string, limit: number): string {
  const bytes = jsonStringBytes(text);
  if (bytes <= limit) return text;
  return capText(text, Math.floor((limit * Buffer.byteLength(text, 'utf8')) / bytes));
}

/** Cutting only shortens strings, so the copy is still a valid event; it is checked again rather than cast. */
function checkDraft(value: object): RelayEventDraft | undefined {
  const parsed = RelayEventSchema.safeParse({ ...value, seq: 1, ts: new Date(0).toISOString() });
  if (!parsed.success) return undefined;
  return withoutSeq(parsed.data);
}

function withoutSeq(event: RelayEvent): RelayEventDraft {
  const { seq: _seq, ts: _ts, ...draft } = event;
  return draft;
}

/** Too much structure to save by cutting strings (no real CLI line comes near): said, in the event's place. */
function tooLarge(draft: RelayEventDraft, size: number): RelayEventDraft {
  return {
    ideaId: draft.ideaId,
    ...(draft.runId === undefined ? {} : { runId: draft.runId }),
    type: 'claude:error',
    source: 'protocol',
    text: `A ${draft.type} event of ${size} bytes was too large to relay, even shortened; it was left out.`,
    truncated: true,
  };
}
