import type { ClientFrame, IdeaId, RelayEvent } from '@catalyst/protocol';
import { promptQuestions, promptYesNo, type PromptOptions } from './question-prompt.ts';
import type { Terminal } from './terminal.ts';

/**
 * Claude's questions and permission requests in the runs a command follows. At a terminal a person answers them
 * here (one prompt at a time, in order), and the answer goes back as the web app's own `answer` / `permission`
 * frame; a prompt answered or closed elsewhere meanwhile is withdrawn. Without a terminal they are shown and
 * left to the web app.
 */
export interface QuestionDesk {
  handle(event: RelayEvent): void;
  /** Withdraws every prompt: the command is over. */
  close(): void;
}

export interface QuestionDeskOptions {
  ideaId: IdeaId;
  terminal: Terminal;
  send: (frame: ClientFrame) => void;
  onInterrupt: () => void;
  /** False under an autopilot's `auto` policy: the answering model takes the questions, nobody is asked. */
  isForPerson: boolean;
}

export function createQuestionDesk(options: QuestionDeskOptions): QuestionDesk {
  const { ideaId, terminal, send } = options;
  const waiting = new Map<string, AbortController>();
  let queue = Promise.resolve();
  const enqueue = (id: string, ask: (prompt: PromptOptions) => Promise<ClientFrame | undefined>): void => {
    if (waiting.has(id) || !options.isForPerson) return;
    if (!terminal.isInteractive) {
      terminal.err(
        terminal.paint.dim('Waiting for an answer in the web app (this is not a terminal to ask at)…\n'),
      );
      return;
    }
    const controller = new AbortController();
    waiting.set(id, controller);
    const prompt = { terminal, onInterrupt: options.onInterrupt, signal: controller.signal };
    queue = queue
      .then(async () => (controller.signal.aborted ? undefined : ask(prompt)))
      .then((frame) => {
        if (frame !== undefined) send(frame);
      })
      .catch((error: unknown) => {
        terminal.err(
          `Could not ask at the terminal: ${error instanceof Error ? error.message : String(error)}\n`,
        );
      })
      .finally(() => waiting.delete(id));
  };
  const withdraw = (id: string): void => waiting.get(id)?.abort();
  return {
    handle: (event) => {
      routeEvent(event, { ideaId, enqueue, withdraw });
    },
    close: () => {
      for (const controller of waiting.values()) controller.abort();
    },
  };
}

function routeEvent(
  event: RelayEvent,
  desk: {
    ideaId: IdeaId;
    enqueue: (id: string, ask: (prompt: PromptOptions) => Promise<ClientFrame | undefined>) => void;
    withdraw: (id: string) => void;
  },
): void {
  const { ideaId } = desk;
  if (event.type === 'claude:question') {
    desk.enqueue(event.questionId, async (prompt) => {
      const answers = await promptQuestions(event.questions, prompt);
      return answers && { type: 'answer', ideaId, questionId: event.questionId, answers };
    });
  } else if (event.type === 'claude:permission_request') {
    desk.enqueue(event.requestId, async (prompt) => {
      const isAllowed = await promptYesNo(`Allow ${event.toolName}?`, prompt);
      const decision = isAllowed ? 'allow' : 'deny';
      return isAllowed === undefined
        ? undefined
        : { type: 'permission', ideaId, requestId: event.requestId, decision };
    });
  } else if (event.type === 'claude:question_answered' || event.type === 'claude:question_closed') {
    desk.withdraw(event.questionId);
  } else if (event.type === 'claude:permission_closed') {
    desk.withdraw(event.requestId);
  }
}
