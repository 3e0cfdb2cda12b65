import { IdeaMetaSchema } from '@catalyst/protocol';
import type {
  CreateIdeaBody,
  IdeaView,
  LiveFrame,
  RelayEvent,
  RelayEventDraft,
  RunMode,
  RunView,
  UpdateIdeaBody,
} from '@catalyst/protocol';
import { CatalystError } from '../src/core/catalyst-error.ts';
import type { IdeaListener, IdeasPort, IdeaSubscription, RunsPort } from '../src/service/ports.ts';

/**
 * Ideas and runs in memory for the edge tests (the other capabilities: server-service-doubles.ts): it keeps the port's promises (replay then live, in seq order, no
 * gap; RUN_IN_PROGRESS, NO_RUN, IDEA_NOT_FOUND, HOST_NOT_FOUND) and records every call, so a test can prove the
 * edges refused something without calling the service at all. A test may replace a method on the instance to
 * make it fail or wait.
 */

interface StoredIdea {
  view: IdeaView;
  events: RelayEvent[];
  listeners: Set<IdeaListener>;
  running: boolean;
  /** Seqs up to here may have been shown (a killed Catalyst's reservation): the next event is numbered above. */
  reservedUpTo: number;
}

/** Runs `work` as an async method would: a throw becomes a rejection, never a synchronous exception. */
export function settle<T>(work: () => T): Promise<T> {
  return new Promise((resolve) => {
    resolve(work());
  });
}

export class IdeasDouble implements IdeasPort, RunsPort {
  /** `method id …` per call, in order. */
  readonly calls: string[] = [];
  private readonly ideas = new Map<string, StoredIdea>();
  private readonly waiters = new Set<() => void>();
  private nextId = 0;

  listIdeas(): Promise<IdeaView[]> {
    return settle(() => {
      this.calls.push('listIdeas');
      return [...this.ideas.values()].map((idea) => idea.view);
    });
  }

  getIdea(id: string): Promise<IdeaView> {
    return settle(() => {
      this.calls.push(`getIdea ${id}`);
      return this.find(id).view;
    });
  }

  createIdea(body: CreateIdeaBody): Promise<IdeaView> {
    return settle(() => {
      this.calls.push('createIdea');
      if (body.host !== undefined && body.host !== 'local') {
        throw new CatalystError('HOST_NOT_FOUND', `There is no host ${body.host}.`);
      }
      return this.seedIdea(body.title);
    });
  }

  updateIdea(id: string, body: UpdateIdeaBody): Promise<IdeaView> {
    return settle(() => {
      this.calls.push(`updateIdea ${id}`);
      const { view } = this.find(id);
      if (view.meta !== undefined && body.title !== undefined) view.meta.title = body.title;
      return view;
    });
  }

  deleteIdea(id: string): Promise<void> {
    return settle(() => {
      this.calls.push(`deleteIdea ${id}`);
      if (this.find(id).running) {
        throw new CatalystError('RUN_IN_PROGRESS', 'Stop the run before deleting the idea.');
      }
      this.ideas.delete(id);
    });
  }

  history(id: string, sinceSeq: number, limit?: number): Promise<RelayEvent[]> {
    return settle(() => {
      this.calls.push(`history ${id} ${sinceSeq} ${limit ?? 'all'}`);
      this.changed();
      const later = this.find(id).events.filter((event) => event.seq > sinceSeq);
      return limit === undefined ? later : later.slice(0, limit);
    });
  }

  /** As the real history: reservation-aware, so after a crash above the newest event. */
  lastSeq(id: string): Promise<number> {
    return settle(() => {
      const idea = this.find(id);
      return Math.max(newestSeq(idea), idea.reservedUpTo);
    });
  }

  subscribe(id: string, sinceSeq: number, listener: IdeaListener): Promise<IdeaSubscription> {
    return settle(() => {
      this.calls.push(`subscribe ${id} ${sinceSeq}`);
      const idea = this.find(id);
      for (const event of idea.events) if (event.seq > sinceSeq) listener(event);
      idea.listeners.add(listener);
      this.changed();
      const unsubscribe = () => {
        idea.listeners.delete(listener);
        this.changed();
      };
      return { lastSeq: newestSeq(idea), running: idea.running, pending: [], unsubscribe };
    });
  }

  sendMessage(id: string, mode: RunMode, message: string): Promise<{ runId: string }> {
    return this.startRun(id, mode, message);
  }

  startRun(id: string, mode: RunMode, message: string): Promise<{ runId: string }> {
    return settle(() => {
      this.calls.push(`startRun ${id} ${mode}`);
      const idea = this.find(id);
      if (idea.running) throw new CatalystError('RUN_IN_PROGRESS', 'This idea already has a run going.');
      idea.running = true;
      this.append(idea, { type: 'run:started', ideaId: id, runId: 'run-1', mode, message });
      return { runId: 'run-1' };
    });
  }

  getRun(runId: string): Promise<RunView> {
    return settle(() => {
      this.calls.push(`getRun ${runId}`);
      throw new CatalystError('RUN_NOT_FOUND', `There is no run ${runId}.`);
    });
  }

  listRuns(id: string): Promise<RunView[]> {
    return settle(() => {
      this.calls.push(`listRuns ${id}`);
      this.find(id);
      return [];
    });
  }

  cancelRunById(runId: string): Promise<RunView> {
    return settle(() => {
      this.calls.push(`cancelRunById ${runId}`);
      throw new CatalystError('RUN_NOT_FOUND', `There is no run ${runId}.`);
    });
  }

  cancelRun(id: string): Promise<void> {
    return settle(() => {
      this.calls.push(`cancelRun ${id}`);
      const idea = this.find(id);
      if (!idea.running) throw new CatalystError('NO_RUN', 'This idea has no run to stop.');
      idea.running = false;
      this.append(idea, { type: 'run:ended', ideaId: id, runId: 'run-1', outcome: 'cancelled' });
    });
  }

  showMode(id: string, mode: RunMode): Promise<void> {
    return settle(() => {
      this.calls.push(`showMode ${id} ${mode}`);
      this.find(id);
    });
  }

  /** The double has no runs, so no prompts: every answer is to a question that is not pending. */
  pendingPrompts(id: string): Promise<RelayEvent[]> {
    return settle(() => {
      this.find(id);
      return [];
    });
  }

  answerQuestion(id: string, questionId: string): Promise<void> {
    return settle(() => {
      this.calls.push(`answerQuestion ${id} ${questionId}`);
      throw new CatalystError('QUESTION_NOT_FOUND', 'That question is not waiting for an answer.');
    });
  }

  dismissQuestion(id: string, questionId: string): Promise<void> {
    return this.answerQuestion(id, questionId);
  }

  answerPermission(id: string, requestId: string): Promise<void> {
    return settle(() => {
      this.calls.push(`answerPermission ${id} ${requestId}`);
      throw new CatalystError('PERMISSION_REQUEST_NOT_FOUND', 'That request is not waiting for an answer.');
    });
  }

  /** Adds an idea without recording a call. */
  seedIdea(title = 'An idea'): IdeaView {
    this.nextId += 1;
    const id = `idea-${String(this.nextId).padStart(16, '0')}`;
    const now = new Date().toISOString();
    const view: IdeaView = {
      id,
      host: 'local',
      available: true,
      running: false,
      meta: IdeaMetaSchema.parse({
        schemaVersion: 1,
        id,
        title,
        description: '',
        status: 'captured',
        createdAt: now,
        updatedAt: now,
        totals: { costUsd: 0, turns: 0, runs: 0, questionsAsked: 0 },
      }),
    };
    this.ideas.set(id, { view, events: [], listeners: new Set(), running: false, reservedUpTo: 0 });
    return view;
  }

  /** Appends a `claude:text` event (seq assigned) and hands it to every subscriber, synchronously. */
  emitText(ideaId: string, text: string): RelayEvent {
    const idea = this.find(ideaId);
    return this.append(idea, {
      type: 'claude:text',
      ideaId,
      text,
      messageId: 'msg-1',
      parentToolUseId: null,
    });
  }

  /**
   * The idea as a Catalyst finds it after its predecessor was killed: seqs up to `block` past the newest event may
   * have been shown (the unused seq reservation), so the next event is numbered above them.
   */
  leaveReservation(ideaId: string, block: number): void {
    const idea = this.find(ideaId);
    idea.reservedUpTo = newestSeq(idea) + block;
  }

  /** Hands a live-only frame to every subscriber of this moment, synchronously; like the service, keeps nothing. */
  relayLive(frame: LiveFrame): void {
    for (const listener of [...this.find(frame.ideaId).listeners]) listener(frame);
  }

  subscriberCount(ideaId: string): number {
    return this.ideas.get(ideaId)?.listeners.size ?? 0;
  }

  /** Resolves once `predicate` holds, checked now and after every change of the double's state. */
  until(predicate: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (!predicate()) return;
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
      check();
    });
  }

  /** The idea, or IDEA_NOT_FOUND: what every capability of the double checks first. */
  find(id: string): StoredIdea {
    const idea = this.ideas.get(id);
    if (idea === undefined) throw new CatalystError('IDEA_NOT_FOUND', `There is no idea ${id}.`);
    return idea;
  }

  private append(idea: StoredIdea, draft: RelayEventDraft): RelayEvent {
    const seq = Math.max(newestSeq(idea), idea.reservedUpTo) + 1;
    const event: RelayEvent = { ...draft, seq, ts: new Date().toISOString() };
    idea.events.push(event);
    for (const listener of [...idea.listeners]) listener(event);
    this.changed();
    return event;
  }

  private changed(): void {
    for (const check of [...this.waiters]) check();
  }
}

function newestSeq(idea: StoredIdea): number {
  return idea.events.at(-1)?.seq ?? 0;
}
