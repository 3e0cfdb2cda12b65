import type { QuestionPolicy } from './idea.ts';
import type { PauseReason, QueueKind, RelayEvent, RunOutcomeKind } from './relay-events.ts';

/**
 * What a person away from the tab should hear about (issue 12), the one list for the page and for push (issue 29): a
 * question or permission request that waits for them, a run that ended outside an autopilot, an autopilot step that
 * failed, an autopilot that ended. Pure: the page decides when it looks (only new events, only while the tab is
 * hidden) and how it tells (a notification, the title's count); the server pushes `push`, which holds nothing of the
 * conversation (no question, no error text), to the devices that asked for it.
 */

export type AttentionKind =
  'question' | 'permission' | 'run_ended' | 'step_failed' | 'autopilot_ended' | 'queue_paused';

export interface Attention {
  readonly kind: AttentionKind;
  /** The event's; a notification's tag, so one event is never told twice. */
  readonly seq: number;
  /** Short enough for a tab's title: "Question waiting". */
  readonly title: string;
  readonly body: string;
  /** What a push may say: the same title, a sentence of Catalyst's own (never Claude's words), and its answers. */
  readonly push: PushAttention;
}

export interface PushAttention {
  readonly title: string;
  readonly body: string;
  /**
   * Answers a notification may offer: a question's options when it has one question of two options at most (their
   * labels are the only words of the conversation a push carries), Allow and Deny for a permission request.
   */
  readonly answers?: readonly PushAnswer[];
}

export type PushAnswer =
  | {
      readonly kind: 'option';
      readonly questionId: string;
      readonly question: string;
      readonly label: string;
    }
  | { readonly kind: 'permission'; readonly requestId: string; readonly behavior: 'allow' | 'deny' };

export interface AttentionContext {
  /** Only events after this one are new. */
  readonly afterSeq: number;
  readonly ideaTitle: string;
  /** The idea's own question policy; undefined until it has loaded (then a question counts as waiting). */
  readonly ideaPolicy: QuestionPolicy | undefined;
  /**
   * The policy of an autopilot already running before the first of `events` (one resumed after a restart, whose
   * `autopilot:started` the events do not hold); undefined when none runs.
   */
  readonly runningAutopilotPolicy?: QuestionPolicy | undefined;
}

const RUN_ENDED_TITLES: Record<RunOutcomeKind, string> = {
  completed: 'Run completed',
  failed: 'Run failed',
  cancelled: 'Run cancelled',
  timed_out: 'Run timed out',
  connection_lost: 'Run lost its connection',
};

interface Position extends AttentionContext {
  /** The policy of the autopilot running at this point of the history; undefined when none runs. */
  readonly autopilotPolicy: QuestionPolicy | undefined;
  /** What runs: an autopilot, or a queue of messages a person sent while the idea was busy (issue 30). */
  readonly queueKind: QueueKind;
}

/**
 * The new events worth telling, oldest first. The whole history is read for what the new ones mean: whether an
 * autopilot runs (its step runs end in silence, the autopilot's own events say how it went; its questions follow
 * its policy), and whether a question was answered or closed already (after a reconnect, both may be new).
 */
export function findAttention(events: readonly RelayEvent[], context: AttentionContext): Attention[] {
  const found: { attention: Attention; prompt: string | undefined }[] = [];
  const settled = new Set<string>();
  let autopilotPolicy: QuestionPolicy | undefined = context.runningAutopilotPolicy;
  let queueKind: QueueKind = 'autopilot';
  /** A paused queue's policy: while it waits, the person's own runs are told as any run (issue 30). */
  let pausedPolicy: QuestionPolicy | undefined;
  for (const event of events) {
    if (event.type === 'autopilot:started') {
      autopilotPolicy = event.questionPolicy;
      queueKind = event.kind ?? 'autopilot';
    }
    if (event.type === 'autopilot:paused' && autopilotPolicy !== undefined) {
      pausedPolicy = autopilotPolicy;
      autopilotPolicy = undefined;
    }
    if (event.type === 'autopilot:resumed' && pausedPolicy !== undefined) {
      autopilotPolicy = pausedPolicy;
      pausedPolicy = undefined;
    }
    if (event.type === 'claude:question_answered' || event.type === 'claude:question_closed') {
      settled.add(`question:${event.questionId}`);
    }
    if (event.type === 'claude:permission_closed') settled.add(`permission:${event.requestId}`);
    const attention =
      event.seq > context.afterSeq
        ? attentionOf(event, { ...context, autopilotPolicy, queueKind })
        : undefined;
    if (attention !== undefined) found.push({ attention, prompt: promptKeyOf(event) });
    if (event.type === 'autopilot:ended') {
      autopilotPolicy = undefined;
      pausedPolicy = undefined;
    }
  }
  return found
    .filter(({ prompt }) => prompt === undefined || !settled.has(prompt))
    .map(({ attention }) => attention);
}

/** The only events attentionOf may tell of: a caller that looks things up first (push) can skip the rest. */
const ATTENTION_EVENT_TYPES: ReadonlySet<RelayEvent['type']> = new Set([
  'claude:question',
  'claude:permission_request',
  'run:ended',
  'autopilot:step_ended',
  'autopilot:ended',
  'autopilot:paused',
]);

export function mayDeserveAttention(event: RelayEvent): boolean {
  return ATTENTION_EVENT_TYPES.has(event.type);
}

function attentionOf(event: RelayEvent, at: Position): Attention | undefined {
  if (!mayDeserveAttention(event)) return undefined;
  const { seq } = event;
  if (event.type === 'claude:question') {
    // Under `auto` nobody waits: the model answers at once.
    if ((at.autopilotPolicy ?? at.ideaPolicy) === 'auto') return undefined;
    const asked = event.questions[0]?.question ?? 'Claude asks you something.';
    const title = 'Question waiting';
    const answers = questionAnswers(event);
    const push = {
      title,
      body: `${at.ideaTitle}: Claude is waiting for your answer.`,
      ...(answers === undefined ? {} : { answers }),
    };
    return { kind: 'question', seq, title, body: `${at.ideaTitle}: ${asked}`, push };
  }
  if (event.type === 'claude:permission_request') {
    const title = 'Permission waiting';
    const body = `${at.ideaTitle}: Claude asks to use ${event.toolName}.`;
    const answers = (['allow', 'deny'] as const).map((behavior) => ({
      kind: 'permission' as const,
      requestId: event.requestId,
      behavior,
    }));
    const push = { title, body: `${at.ideaTitle}: Claude asks for your permission to go on.`, answers };
    return { kind: 'permission', seq, title, body, push };
  }
  if (event.type === 'run:ended') {
    if (at.autopilotPolicy !== undefined) return undefined;
    const title = RUN_ENDED_TITLES[event.outcome];
    const body = withError(at.ideaTitle, event.error);
    return { kind: 'run_ended', seq, title, body, push: { title, body: at.ideaTitle } };
  }
  if (event.type === 'autopilot:step_ended') {
    if (event.state !== 'failed') return undefined;
    const title = `Autopilot step ${event.index + 1} failed`;
    const push = { title, body: `${at.ideaTitle}: the autopilot's step ${event.index + 1} failed.` };
    return { kind: 'step_failed', seq, title, body: withError(at.ideaTitle, event.error), push };
  }
  if (event.type === 'autopilot:paused') {
    // The sentence may quote a failure: only Catalyst's own words go in a push.
    const title = PAUSED_TITLES[event.reason];
    return {
      kind: 'queue_paused',
      seq,
      title,
      body: `${at.ideaTitle}: ${event.message}`,
      push: { title, body: `${at.ideaTitle}: ${PAUSED_PUSH_BODIES[event.reason]}` },
    };
  }
  if (event.type === 'autopilot:ended') {
    const title = at.queueKind === 'queue' ? QUEUE_ENDED_TITLES[event.state] : `Autopilot ${event.state}`;
    const spent = `${at.ideaTitle} · ${formatCost(event.costUsd)}`;
    return {
      kind: 'autopilot_ended',
      seq,
      title,
      body: withError(spent, event.error),
      push: { title, body: spent },
    };
  }
  return undefined;
}

const QUEUE_ENDED_TITLES: Record<Extract<RelayEvent, { type: 'autopilot:ended' }>['state'], string> = {
  completed: 'Queued messages sent',
  failed: 'Queue failed',
  cancelled: 'Queue cleared',
  running: 'Queue running',
  paused: 'Queue paused',
};

const PAUSED_TITLES: Record<PauseReason, string> = {
  budget: 'Paused at its budget',
  failed: 'Paused: a step failed',
  cancelled: 'Paused: a step was stopped',
};

const PAUSED_PUSH_BODIES: Record<PauseReason, string> = {
  budget: 'the queue has spent its budget; raise it to go on.',
  failed: 'a queued message failed; the rest waits for you.',
  cancelled: 'a queued message was stopped; the rest waits for you.',
};

/** A question's options as notification actions: one question, at most two options, one choice. */
function questionAnswers(event: Extract<RelayEvent, { type: 'claude:question' }>): PushAnswer[] | undefined {
  const [only, ...more] = event.questions;
  if (only === undefined || more.length > 0 || only.multiSelect) return undefined;
  if (only.options.length === 0 || only.options.length > 2) return undefined;
  return only.options.map((option) => ({
    kind: 'option' as const,
    questionId: event.questionId,
    question: only.question,
    label: option.label,
  }));
}

/** `$0.0270`: as the page says every amount spent (issue 31), so a notification and the page agree. */
function formatCost(usd: number): string {
  return `$${usd.toFixed(4)}`;
}

function withError(text: string, error: { message: string } | undefined): string {
  return error === undefined ? text : `${text}: ${error.message}`;
}

/** The question or permission request an event asks (`question:<id>`); undefined for any other event. */
function promptKeyOf(event: RelayEvent): string | undefined {
  if (event.type === 'claude:question') return `question:${event.questionId}`;
  if (event.type === 'claude:permission_request') return `permission:${event.requestId}`;
  return undefined;
}
