import {
  findAttention,
  mayDeserveAttention,
  formatPushAction,
  type Attention,
  type AutopilotView,
  type IdeaView,
  type PushAnswer,
  PushPayloadSchema,
  type PushPayload,
  type QuestionPolicy,
  type RelayEvent,
} from '@catalyst/protocol';
import type { Logger } from 'pino';
import type { WebPush } from './open-web-push.ts';
import { pickPushRecipients } from './push-recipients.ts';
import type { ViewingTabs } from './viewing-tabs.ts';

/**
 * Sends a push for each new event that deserves a person's attention (protocol attention.ts, the list the page uses
 * for its in-tab notifications): a question or permission request waiting for a person, a run that ended outside an
 * autopilot, an autopilot step that failed, an autopilot that ended. To every subscribed device except those that
 * muted the idea and those showing it in a visible tab. What a push says is the finding's `push`: the idea's title,
 * a sentence of Catalyst's own, the idea's page, and a question's two options at most (their labels are the only
 * words of the conversation a push carries). Never blocks: the sender queues.
 */

export interface PushNotifierOptions {
  readonly push: Pick<WebPush, 'subscriptions' | 'sender'>;
  readonly viewing: ViewingTabs;
  readonly getIdea: (id: string) => Promise<IdeaView>;
  /** An autopilot by its id (one resumed after a restart: its policy decides about its questions). */
  readonly getAutopilot: (autopilotId: string) => Promise<AutopilotView>;
  /** Whether a browser session is still signed in: a device whose session ended gets nothing. */
  readonly isSignedIn: (sessionId: string) => boolean;
  readonly logger: Logger;
}

export class PushNotifier {
  readonly #options: PushNotifierOptions;
  /** The autopilot running on each idea, as its events said: its policy decides about its questions. */
  readonly #autopilots = new Map<string, RelayEvent>();

  constructor(options: PushNotifierOptions) {
    this.#options = options;
  }

  /** One new event of an idea, as subscribers see it. */
  onEvent(ideaId: string, event: RelayEvent): void {
    const running = this.#autopilots.get(ideaId);
    if (event.type === 'autopilot:started') this.#autopilots.set(ideaId, event);
    if (event.type === 'autopilot:ended') this.#autopilots.delete(ideaId);
    if (!mayDeserveAttention(event)) return;
    // Nobody subscribed: no idea to read.
    if (this.#options.push.subscriptions.list().length === 0) return;
    void this.#tell(ideaId, running === undefined ? [event] : [running, event], event.seq).catch(
      (error: unknown) => {
        this.#options.logger.warn({ err: error, ideaId }, 'could not send a push');
      },
    );
  }

  async #tell(ideaId: string, events: RelayEvent[], seq: number): Promise<void> {
    // An idea whose meta cannot be read (its host just dropped: the run that ended says so) is still told of, by a
    // neutral name, its policy taken as a person's.
    const meta = await this.#options.getIdea(ideaId).then(
      (idea) => idea.meta,
      () => undefined,
    );
    const found = findAttention(events, {
      afterSeq: seq - 1,
      ideaTitle: meta?.title ?? 'An idea',
      ideaPolicy: meta?.questionPolicy ?? 'human',
      runningAutopilotPolicy: await this.#resumedAutopilotPolicy(events, meta?.autopilotId),
    });
    const recipients = pickPushRecipients(
      this.#options.push.subscriptions.list(),
      ideaId,
      this.#options.viewing.sessionsViewing(ideaId),
    ).filter((recipient) => this.#options.isSignedIn(recipient.sessionId));
    for (const attention of found) {
      const payload = payloadOf(ideaId, attention);
      const urgency = attention.kind === 'question' || attention.kind === 'permission' ? 'high' : 'normal';
      for (const recipient of recipients) this.#options.push.sender.send(recipient, payload, { urgency });
    }
  }

  /**
   * An autopilot that runs with no `autopilot:started` seen since this Catalyst started (it was resumed after a
   * restart): its policy, from the autopilot the idea's meta names.
   */
  async #resumedAutopilotPolicy(
    events: readonly RelayEvent[],
    autopilotId: string | undefined,
  ): Promise<QuestionPolicy | undefined> {
    if (autopilotId === undefined || events.some((event) => event.type === 'autopilot:started'))
      return undefined;
    const autopilot = await this.#options.getAutopilot(autopilotId).catch(() => undefined);
    return autopilot?.state === 'running' ? autopilot.questionPolicy : undefined;
  }
}

/** The push of one finding: opens the idea's page at the event; one notification per idea on a device. */
export function payloadOf(ideaId: string, attention: Attention): PushPayload {
  // An id the CLI made that an action cannot carry (or an empty label): the push goes without its answers.
  const all = attention.push.answers?.map(actionOf);
  const actions = PushPayloadSchema.shape.actions.safeParse(all).data;
  return {
    title: attention.push.title,
    body: attention.push.body,
    url: `/ideas/${ideaId}#seq-${String(attention.seq)}`,
    tag: `idea-${ideaId}`,
    ...(actions === undefined ? {} : { actions }),
  };
}

function actionOf(answer: PushAnswer, index: number): { action: string; title: string } {
  if (answer.kind === 'option') {
    return {
      action: formatPushAction({ kind: 'choose', questionId: answer.questionId, option: index }),
      title: answer.label.slice(0, 40),
    };
  }
  return {
    action: formatPushAction({ kind: 'permission', requestId: answer.requestId, decision: answer.behavior }),
    title: answer.behavior === 'allow' ? 'Allow' : 'Deny',
  };
}
