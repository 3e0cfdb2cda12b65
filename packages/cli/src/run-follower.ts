import type { IdeaId, RelayEvent, ServerFrame } from '@catalyst/protocol';
import { EventRenderer } from './event-render.ts';
import { openFrameGate, untilEnded } from './frame-gate.ts';
import type { IdeaSocket } from './idea-socket.ts';
import { createQuestionDesk, type QuestionDesk } from './question-desk.ts';
import type { Terminal } from './terminal.ts';

export type RunEndedEvent = Extract<RelayEvent, { type: 'run:ended' }>;

/**
 * Shows one run live on the terminal: its events and text deltas rendered, its questions asked. Started once the
 * idea's subscription is live and before the run is, so nothing of the run is missed.
 */
export interface RunFollower {
  /** The run's `run:ended`, or undefined when the connection to Catalyst closed first. */
  follow: (runId: string) => Promise<RunEndedEvent | undefined>;
  close: () => void;
}

export function startRunFollower(options: {
  socket: IdeaSocket;
  terminal: Terminal;
  ideaId: IdeaId;
  onInterrupt: () => void;
}): RunFollower {
  const { socket, terminal, ideaId, onInterrupt } = options;
  const renderer = new EventRenderer(terminal.paint);
  const desk = createQuestionDesk({ ideaId, terminal, send: socket.send, onInterrupt, isForPerson: true });
  const gate = openFrameGate(socket, terminal);
  return {
    follow: (runId) =>
      untilEnded<RunEndedEvent>(socket, (settle) => {
        gate.release((frame) => {
          const ended = showFrame(frame, { runId, renderer, desk, terminal });
          if (ended !== undefined) settle(ended);
        });
      }),
    close: () => {
      desk.close();
    },
  };
}

/** Shows a frame of the run (others are the idea's, not ours); returns its `run:ended`. */
function showFrame(
  frame: ServerFrame,
  run: { runId: string; renderer: EventRenderer; desk: QuestionDesk; terminal: Terminal },
): RunEndedEvent | undefined {
  const { terminal } = run;
  if (frame.type === 'error') {
    terminal.err(terminal.paint.dim(`Catalyst: ${frame.message}\n`));
    return undefined;
  }
  if (!('runId' in frame) || frame.runId !== run.runId) return undefined;
  terminal.write(run.renderer.render(frame));
  if ('seq' in frame) run.desk.handle(frame);
  return frame.type === 'run:ended' ? frame : undefined;
}
