import type { QuestionPolicy, RelayEvent, RunOutcomeKind } from '@catalyst/protocol';
import { formatCost } from '../app/format.ts';

/**
 * What a person away from the tab should hear about (issue 12): a question or permission request that waits for
 * them, a run that ended, an autopilot step that failed, an autopilot that ended. Pure: the page decides when it
 * looks (only new events, only while the tab is hidden) and how it tells (a notification, the title's count).
 */

export type AttentionKind = 'question' | 'permission' | 'run_ended' | 'step_failed' | 'autopilot_ended';

export interface Attention {
  readonly kind: AttentionKind;
  /** The event's; a notification's tag, so one event is never told twice. */
  readonly seq: number;
  /** Short enough for a tab's title: "Question waiting". */
  readonly title: string;
  readonly body: string;
}

export interface AttentionContext {
  /** Only events after this one are new. */
  readonly afterSeq: number;
  readonly ideaTitle: string;
  /** The idea's own question policy; undefined until it has loaded (then a question counts as waiting). */
  readonly ideaPolicy: QuestionPolicy | undefined;
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
}

/**
 * The new events worth telling, oldest first. The whole history is read for what the new ones mean: whether an
 * autopilot runs (its step runs end in silence, the autopilot's own events say how it went; its questions follow
 * its policy), and whether a question was answered or closed already (after a reconnect, both may be new).
 */
export function findAttention(events: readonly RelayEvent[], context: AttentionContext): Attention[] {
  const found: { attention: Attention; prompt: string | undefined }[] = [];
  const settled = new Set<string>();
  let autopilotPolicy: QuestionPolicy | undefined;
  for (const event of events) {
    if (event.type === 'autopilot:started') autopilotPolicy = event.questionPolicy;
    if (event.type === 'claude:question_answered' || event.type === 'claude:question_closed') {
      settled.add(`question:${event.questionId}`);
    }
    if (event.type === 'claude:permission_closed') settled.add(`permission:${event.requestId}`);
    const attention =
      event.seq > context.afterSeq ? attentionOf(event, { ...context, autopilotPolicy }) : undefined;
    if (attention !== undefined) found.push({ attention, prompt: promptKeyOf(event) });
    if (event.type === 'autopilot:ended') autopilotPolicy = undefined;
  }
  return found
    .filter(({ prompt }) => prompt === undefined || !settled.has(prompt))
    .map(({ attention }) => attention);
}

function attentionOf(event: RelayEvent, at: Position): Attention | undefined {
  const { seq } = event;
  if (event.type === 'claude:question') {
    // Under `auto` nobody waits: the model answers at once.
    if ((at.autopilotPolicy ?? at.ideaPolicy) === 'auto') return undefined;
    const asked = event.questions[0]?.question ?? 'Claude asks you something.';
    return { kind: 'question', seq, title: 'Question waiting', body: `${at.ideaTitle}: ${asked}` };
  }
  if (event.type === 'claude:permission_request') {
    const body = `${at.ideaTitle}: Claude asks to use ${event.toolName}.`;
    return { kind: 'permission', seq, title: 'Permission waiting', body };
  }
  if (event.type === 'run:ended') {
    if (at.autopilotPolicy !== undefined) return undefined;
    const body = withError(at.ideaTitle, event.error);
    return { kind: 'run_ended', seq, title: RUN_ENDED_TITLES[event.outcome], body };
  }
  if (event.type === 'autopilot:step_ended') {
    if (event.state !== 'failed') return undefined;
    const title = `Autopilot step ${event.index + 1} failed`;
    return { kind: 'step_failed', seq, title, body: withError(at.ideaTitle, event.error) };
  }
  if (event.type === 'autopilot:ended') {
    const body = withError(`${at.ideaTitle} · ${formatCost(event.costUsd)}`, event.error);
    return { kind: 'autopilot_ended', seq, title: `Autopilot ${event.state}`, body };
  }
  return undefined;
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

/** "(2) Run completed · Catalyst" while there is news the person has not seen; else "<idea> · Catalyst". */
export function formatPageTitle(ideaTitle: string, unseen: readonly Attention[]): string {
  const latest = unseen.at(-1);
  if (latest === undefined) return `${ideaTitle} · Catalyst`;
  return `(${unseen.length}) ${latest.title} · Catalyst`;
}
