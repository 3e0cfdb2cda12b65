import {
  ASK_USER_QUESTION_TOOL_NAME,
  CliMessageSchema,
  isCanUseToolRequest,
  type CommandResult,
  type RelayEvent,
} from '@catalyst/protocol';
import { endedRunIdsOf } from './ended-runs.ts';
import type { TextDraft, TranscriptState } from './transcript-state.ts';

/**
 * The render model: one item per thing a person sees. Items hold the events themselves (never copies), so an
 * item rebuilt from unchanged events compares shallow-equal to the previous one and its component skips the
 * render. Keys are stable: a text's key is its message id and its rank among that message's texts, which is also
 * the key of the draft it replaces, so the streamed element becomes the final one in place.
 */

type EventOf<T extends RelayEvent['type']> = Extract<RelayEvent, { type: T }>;

/** Events shown as a line about the run rather than Claude's output (SessionNotice.tsx). */
export type NoticeEvent = EventOf<
  | 'run:session_replaced'
  | 'run:detached'
  | 'run:attached'
  | 'autopilot:started'
  | 'autopilot:step_started'
  | 'autopilot:step_ended'
  | 'autopilot:ended'
  | 'autopilot:paused'
  | 'autopilot:resumed'
  | 'checkpoint:restored'
  | 'checkpoint:unavailable'
>;

export interface QuestionItem {
  readonly kind: 'question';
  readonly key: string;
  readonly question: EventOf<'claude:question'>;
  readonly answered: EventOf<'claude:question_answered'> | undefined;
  readonly closed: EventOf<'claude:question_closed'> | undefined;
  readonly isRunEnded: boolean;
}

export interface PermissionItem {
  readonly kind: 'permission';
  readonly key: string;
  readonly request: EventOf<'claude:permission_request'>;
  readonly closed: EventOf<'claude:permission_closed'> | undefined;
  readonly isRunEnded: boolean;
}

/** A question or permission request: on its own, or inside the card of the tool call it is about. */
export type PromptItem = QuestionItem | PermissionItem;

export type TranscriptItem =
  | { readonly kind: 'user'; readonly key: string; readonly event: EventOf<'run:started'> }
  | {
      readonly kind: 'text';
      readonly key: string;
      readonly text: string;
      readonly isStreaming: boolean;
      readonly isSubagent: boolean;
    }
  | { readonly kind: 'thinking'; readonly key: string; readonly event: EventOf<'claude:thinking'> }
  | {
      readonly kind: 'tool';
      readonly key: string;
      /** Undefined for a result whose call is not in the transcript. */
      readonly use: EventOf<'claude:tool_use'> | undefined;
      readonly result: EventOf<'claude:tool_result'> | undefined;
      readonly isRunEnded: boolean;
      /**
       * The question or permission request this call waited for (the CLI asks after it prints the call and
       * before the result), shown inside the card so that call, decision and result read top to bottom.
       */
      readonly prompt: PromptItem | undefined;
    }
  | { readonly kind: 'event'; readonly key: string; readonly event: EventOf<'claude:event'> }
  | { readonly kind: 'error'; readonly key: string; readonly event: EventOf<'claude:error'> }
  | {
      readonly kind: 'notice';
      readonly key: string;
      readonly event: NoticeEvent;
    }
  | QuestionItem
  | PermissionItem
  | {
      readonly kind: 'summary';
      readonly key: string;
      readonly ended: EventOf<'run:ended'>;
      readonly started: EventOf<'run:started'> | undefined;
      /** run:ended's result, else the run's latest claude:result. */
      readonly result: CommandResult | undefined;
      /** The checkpoint the build ended with (issue 13); none when nothing changed or it is not a build. */
      readonly checkpoint: EventOf<'checkpoint:created'> | undefined;
    };

interface BaseItems {
  readonly items: readonly TranscriptItem[];
  /** Per run: the position just after its latest event, where its drafts render. */
  readonly draftPositions: ReadonlyMap<string, number>;
  /** Per message id: how many complete texts it has. */
  readonly textCounts: ReadonlyMap<string, number>;
}

const baseCache = new WeakMap<readonly RelayEvent[], BaseItems>();

/** Over the events: memoised per event list, so a delta only places the drafts again. */
export function buildItems(state: TranscriptState): TranscriptItem[] {
  let base = baseCache.get(state.events);
  if (base === undefined) {
    base = buildBaseItems(state.events);
    baseCache.set(state.events, base);
  }
  return state.drafts.length === 0 ? base.items.slice() : placeDrafts(base, state.drafts);
}

class ItemBuilder {
  readonly items: TranscriptItem[] = [];
  readonly draftPositions = new Map<string, number>();
  readonly textCounts = new Map<string, number>();
  readonly #indexById = new Map<string, number>();
  readonly #started = new Map<string, EventOf<'run:started'>>();
  readonly #results = new Map<string, CommandResult>();
  readonly #ended: ReadonlySet<string>;
  /**
   * The CLI's permission request id → the tool call it is about (`can_use_tool`'s `tool_use_id`). The relayed
   * request comes before the question or permission event the backend makes of it, so it is known in time.
   */
  readonly #callOfRequest = new Map<string, string>();
  /** Each build run's checkpoint, for its summary. */
  readonly #checkpoints = new Map<string, EventOf<'checkpoint:created'>>();
  /** Queues of messages a person sent while the idea was busy (issue 30): their steps show as the runs they are. */
  readonly #queues = new Set<string>();

  constructor(ended: ReadonlySet<string>) {
    this.#ended = ended;
  }

  add(event: RelayEvent): void {
    const item = this.#toItem(event);
    if (item !== undefined) this.items.push(item);
    if (event.runId !== undefined) this.draftPositions.set(event.runId, this.items.length);
  }

  #toItem(event: RelayEvent): TranscriptItem | undefined {
    const key = `${event.type}:${event.seq}`;
    const isRunEnded = event.runId !== undefined && this.#ended.has(event.runId);
    switch (event.type) {
      case 'run:started':
        if (event.runId !== undefined) this.#started.set(event.runId, event);
        return { kind: 'user', key, event };
      case 'claude:text':
        return { kind: 'text', key: this.#nextTextKey(event.messageId), ...readText(event) };
      case 'claude:thinking':
        return { kind: 'thinking', key, event };
      case 'claude:tool_use':
        this.#remember(`tool:${event.toolUseId}`);
        return { kind: 'tool', key, use: event, result: undefined, isRunEnded, prompt: undefined };
      case 'claude:event': {
        const read = readAgain(event);
        this.#noteCallOfRequest(read.message);
        return isShownElsewhere(read.message) ? undefined : { kind: 'event', key, event: read };
      }
      case 'claude:error':
        return { kind: 'error', key, event };
      case 'autopilot:started':
        if (event.kind === 'queue') {
          this.#queues.add(event.autopilotId);
          return undefined;
        }
        return { kind: 'notice', key, event };
      case 'autopilot:step_started':
      case 'autopilot:step_ended':
      case 'autopilot:ended':
      case 'autopilot:resumed':
        return this.#queues.has(event.autopilotId) ? undefined : { kind: 'notice', key, event };
      case 'autopilot:queue_changed':
      case 'autopilot:budget_changed':
        return undefined;
      case 'run:session_replaced':
      case 'run:detached':
      case 'run:attached':
      case 'autopilot:paused':
      case 'checkpoint:restored':
      case 'checkpoint:unavailable':
        return { kind: 'notice', key, event };
      case 'checkpoint:created':
        // A build's checkpoint shows in its summary; the others (before a build, before a restore) only in lists.
        if (event.kind === 'build' && event.runId !== undefined) this.#checkpoints.set(event.runId, event);
        return undefined;
      case 'claude:question': {
        const item: QuestionItem = {
          kind: 'question',
          key,
          question: event,
          answered: undefined,
          closed: undefined,
          isRunEnded,
        };
        const id = `question:${event.questionId}`;
        return this.#nestInTool(id, item, event.questionId, {
          runId: event.runId,
          toolName: ASK_USER_QUESTION_TOOL_NAME,
          input: { questions: event.questions },
        });
      }
      case 'claude:permission_request': {
        const item: PermissionItem = {
          kind: 'permission',
          key,
          request: event,
          closed: undefined,
          isRunEnded,
        };
        return this.#nestInTool(`permission:${event.requestId}`, item, event.requestId, {
          runId: event.runId,
          toolName: event.toolName,
          input: event.input,
        });
      }
      case 'run:ended':
        return { kind: 'summary', key, ended: event, ...this.#runContext(event.runId, event.result) };
      case 'claude:tool_result':
        // A result whose call is not in the transcript still shows, on its own card.
        return this.#attachResult(event)
          ? undefined
          : { kind: 'tool', key, use: undefined, result: event, isRunEnded, prompt: undefined };
      case 'claude:question_answered':
      case 'claude:question_closed':
      case 'claude:permission_closed':
      case 'claude:result':
        this.#attach(event);
        return undefined;
      case 'claude:system':
      case 'idea:status':
        // They feed the header (summarize), not the log.
        return undefined;
      case 'aside:asked':
      case 'aside:answered':
      case 'aside:failed':
        // Asides are not the conversation: they have their own thread (asides/AsideThread.tsx).
        return undefined;
      case 'review:changed':
        // A review's comments are shown with its diff, which asks for them again (checkpoints/use-review.ts).
        return undefined;
    }
  }

  /**
   * Puts a prompt inside the card of the call it is about: the call the CLI named (`tool_use_id` of its request),
   * else (no name, or a call not in the transcript) the oldest call of the same run and tool, still without result
   * or prompt, whose input is the same.
   * Without such a call the prompt is an item of its own.
   */
  #nestInTool(
    id: string,
    prompt: PromptItem,
    cliRequestId: string,
    about: { runId: string | undefined; toolName: string; input: Record<string, unknown> },
  ): PromptItem | undefined {
    const named = this.#callOfRequest.get(cliRequestId);
    const index =
      (named === undefined ? undefined : this.#indexById.get(`tool:${named}`)) ?? this.#findCall(about);
    const item = index === undefined ? undefined : this.items[index];
    if (
      index === undefined ||
      item?.kind !== 'tool' ||
      item.prompt !== undefined ||
      item.result !== undefined
    ) {
      this.#remember(id);
      return prompt;
    }
    this.items[index] = { ...item, prompt };
    this.#indexById.set(id, index);
    return undefined;
  }

  #noteCallOfRequest(message: EventOf<'claude:event'>['message']): void {
    if (message.type !== 'control_request') return;
    const { request, request_id: requestId } = message;
    if (isCanUseToolRequest(request) && request.tool_use_id !== undefined)
      this.#callOfRequest.set(requestId, request.tool_use_id);
  }

  #findCall(about: { runId: string | undefined; toolName: string; input: Record<string, unknown> }) {
    const wanted = JSON.stringify(about.input);
    for (let index = 0; index < this.items.length; index += 1) {
      const item = this.items[index];
      if (item?.kind !== 'tool' || item.use === undefined || item.result !== undefined) continue;
      if (item.prompt !== undefined || item.use.runId !== about.runId || item.use.name !== about.toolName)
        continue;
      const input =
        about.toolName === ASK_USER_QUESTION_TOOL_NAME
          ? { questions: item.use.input['questions'] }
          : item.use.input;
      if (JSON.stringify(input) === wanted) return index;
    }
    return undefined;
  }

  #attachResult(event: EventOf<'claude:tool_result'>): boolean {
    return this.#update(`tool:${event.toolUseId}`, (item) =>
      item.kind === 'tool' ? { ...item, result: event } : item,
    );
  }

  /** Events that complete an earlier item rather than making one. */
  #attach(
    event: EventOf<
      'claude:question_answered' | 'claude:question_closed' | 'claude:permission_closed' | 'claude:result'
    >,
  ): void {
    switch (event.type) {
      case 'claude:question_answered':
        this.#updatePrompt(`question:${event.questionId}`, (item) =>
          item.kind === 'question' ? { ...item, answered: event } : item,
        );
        break;
      case 'claude:question_closed':
        this.#updatePrompt(`question:${event.questionId}`, (item) =>
          item.kind === 'question' ? { ...item, closed: event } : item,
        );
        break;
      case 'claude:permission_closed':
        this.#updatePrompt(`permission:${event.requestId}`, (item) =>
          item.kind === 'permission' ? { ...item, closed: event } : item,
        );
        break;
      case 'claude:result':
        if (event.runId !== undefined) this.#results.set(event.runId, event.result);
        break;
    }
  }

  #nextTextKey(messageId: string): string {
    const count = this.textCounts.get(messageId) ?? 0;
    this.textCounts.set(messageId, count + 1);
    return textKey(messageId, count);
  }

  #remember(id: string): void {
    this.#indexById.set(id, this.items.length);
  }

  /** Changes a prompt, whether it is an item of its own or inside a tool card. */
  #updatePrompt(id: string, change: (prompt: PromptItem) => PromptItem): void {
    this.#update(id, (item) => {
      if (item.kind === 'question' || item.kind === 'permission') return change(item);
      if (item.kind === 'tool' && item.prompt !== undefined) return { ...item, prompt: change(item.prompt) };
      return item;
    });
  }

  /** Replaces the item remembered under `id`; false when there is none. */
  #update(id: string, change: (item: TranscriptItem) => TranscriptItem): boolean {
    const index = this.#indexById.get(id);
    const item = index === undefined ? undefined : this.items[index];
    if (index === undefined || item === undefined) return false;
    this.items[index] = change(item);
    return true;
  }

  #runContext(
    runId: string | undefined,
    result: CommandResult | undefined,
  ): {
    started: EventOf<'run:started'> | undefined;
    result: CommandResult | undefined;
    checkpoint: EventOf<'checkpoint:created'> | undefined;
  } {
    if (runId === undefined) return { started: undefined, result, checkpoint: undefined };
    return {
      started: this.#started.get(runId),
      result: result ?? this.#results.get(runId),
      checkpoint: this.#checkpoints.get(runId),
    };
  }
}

function readText(event: { text: string; parentToolUseId: string | null }): {
  text: string;
  isStreaming: boolean;
  isSubagent: boolean;
} {
  return { text: event.text, isStreaming: false, isSubagent: event.parentToolUseId !== null };
}

function textKey(messageId: string, rank: number): string {
  return `text:${messageId}:${rank}`;
}

function buildBaseItems(events: readonly RelayEvent[]): BaseItems {
  const builder = new ItemBuilder(endedRunIdsOf(events));
  for (const event of events) builder.add(event);
  return builder;
}

/** Each draft goes after its run's latest event, in block order, keyed as the complete text will be. */
function placeDrafts(base: BaseItems, drafts: readonly TextDraft[]): TranscriptItem[] {
  const messageOrder = new Map<string, number>();
  drafts.forEach((draft, arrival) => {
    if (!messageOrder.has(draft.messageId)) messageOrder.set(draft.messageId, arrival);
  });
  const placed = drafts
    .map((draft) => ({
      draft,
      at: base.draftPositions.get(draft.runId) ?? base.items.length,
      message: messageOrder.get(draft.messageId) ?? 0,
    }))
    .sort((a, b) => a.at - b.at || a.message - b.message || a.draft.index - b.draft.index);
  const ranks = new Map<string, number>();
  const result: TranscriptItem[] = [];
  let next = 0;
  const copyUpTo = (end: number): void => {
    for (; next < end; next++) {
      const item = base.items[next];
      if (item !== undefined) result.push(item);
    }
  };
  for (const { draft, at } of placed) {
    copyUpTo(at);
    const rank = ranks.get(draft.messageId) ?? base.textCounts.get(draft.messageId) ?? 0;
    ranks.set(draft.messageId, rank + 1);
    const text = { ...readText(draft), isStreaming: true };
    result.push({ kind: 'text', key: textKey(draft.messageId, rank), ...text });
  }
  copyUpTo(base.items.length);
  return result;
}

/** Events read again (readAgain), each once: the same event object gives the same item on every rebuild. */
const readAgainCache = new WeakMap<EventOf<'claude:event'>, EventOf<'claude:event'>>();

/**
 * An event whose CLI line an older Catalyst kept as unknown, as this one reads it (2.1.331's `tool_progress` and
 * `system/background_tasks_changed` were unknown before they were measured); any other event as it is. The schema,
 * not `parseCliOutput`: its compiled validators need `new Function`, which the page's CSP refuses.
 */
function readAgain(event: EventOf<'claude:event'>): EventOf<'claude:event'> {
  if (event.message.type !== 'unknown') return event;
  const cached = readAgainCache.get(event);
  if (cached !== undefined) return cached;
  const known = CliMessageSchema.safeParse(event.message.raw);
  const read = known.success && known.data.type !== 'unknown' ? { ...event, message: known.data } : event;
  readAgainCache.set(event, read);
  return read;
}

/**
 * CLI lines the transcript already shows in another form get no line of their own: partial-message lines (the
 * text deltas show them), thinking-token counts (the thinking block shows the thinking), a running tool's heartbeats
 * (its card says it is running), a result (the run's summary; only an older Catalyst's unknown one, read again, is
 * an event), and the control traffic around a tool call (`can_use_tool` and its answers: the tool
 * card, the question card or the permission card is what a person reads).
 */
function isShownElsewhere(message: EventOf<'claude:event'>['message']): boolean {
  switch (message.type) {
    case 'stream_event':
    case 'control_cancel_request':
    case 'tool_progress':
    case 'result':
      return true;
    case 'control_response':
      return message.response.subtype !== 'error';
    case 'control_request':
      return message.request.subtype === 'can_use_tool';
    case 'system':
      return message.subtype === 'thinking_tokens';
    case 'assistant':
    case 'user':
    case 'unknown':
      return false;
  }
}
