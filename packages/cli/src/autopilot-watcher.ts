import type { AutopilotView, IdeaId, RelayEvent, ServerFrame } from '@catalyst/protocol';
import {
  formatAutopilotEnded,
  formatAutopilotStarted,
  formatStepEnded,
  formatStepStarted,
} from './autopilot-lines.ts';
import { EventRenderer } from './event-render.ts';
import { openFrameGate, untilEnded } from './frame-gate.ts';
import type { IdeaSocket } from './idea-socket.ts';
import { createQuestionDesk, type QuestionDesk } from './question-desk.ts';
import type { Terminal } from './terminal.ts';

export type AutopilotEndedEvent = Extract<RelayEvent, { type: 'autopilot:ended' }>;

/** What of a step's run a person may have to answer (asked at the terminal). */
const PROMPT_EVENTS = new Set<RelayEvent['type']>([
  'claude:question',
  'claude:question_answered',
  'claude:question_closed',
  'claude:permission_request',
  'claude:permission_closed',
]);

/**
 * An autopilot's progress from its `autopilot:*` events: a line as each step starts and ends; between them its
 * steps' runs as `catalyst chat`/`build` show one (Claude's text as it comes, its tools), and their questions
 * (asked here at a terminal, as for a run, unless the model answers them). Started before the autopilot is, like
 * the run follower.
 */
export interface AutopilotWatcher {
  /** The `autopilot:ended`, or undefined when the connection to Catalyst closed first. */
  follow: (view: AutopilotView) => Promise<AutopilotEndedEvent | undefined>;
  close: () => void;
}

export interface AutopilotWatcherOptions {
  socket: IdeaSocket;
  terminal: Terminal;
  ideaId: IdeaId;
  onInterrupt: () => void;
  /** Whether the autopilot's question policy asks a person (not `auto`). */
  isForPerson: boolean;
  progress: (line: string) => void;
}

interface Watched {
  view: AutopilotView;
  stepRuns: Set<string>;
  renderer: EventRenderer;
  desk: QuestionDesk;
  options: AutopilotWatcherOptions;
}

export function startAutopilotWatcher(options: AutopilotWatcherOptions): AutopilotWatcher {
  const { socket, terminal, ideaId, onInterrupt, isForPerson } = options;
  const desk = createQuestionDesk({ ideaId, terminal, send: socket.send, onInterrupt, isForPerson });
  const gate = openFrameGate(socket, terminal);
  return {
    follow: (view) => {
      options.progress(`${formatAutopilotStarted(view, terminal.paint)}\n`);
      const watched = {
        view,
        stepRuns: new Set<string>(),
        renderer: new EventRenderer(terminal.paint),
        desk,
        options,
      };
      return untilEnded<AutopilotEndedEvent>(socket, (settle) => {
        gate.release((frame) => {
          const ended = showFrame(frame, watched);
          if (ended !== undefined) settle(ended);
        });
      });
    },
    close: () => {
      desk.close();
    },
  };
}

function showFrame(frame: ServerFrame, watched: Watched): AutopilotEndedEvent | undefined {
  const { view, stepRuns, options } = watched;
  if ('runId' in frame && frame.runId !== undefined && stepRuns.has(frame.runId)) {
    const outputs = watched.renderer.render(frame);
    // A step's end has its progress line: not the run's outcome line as well (what ends Claude's last line stays).
    options.terminal.write(
      frame.type === 'run:ended' ? outputs.filter((output) => output.stream === 'out') : outputs,
    );
    if ('seq' in frame && PROMPT_EVENTS.has(frame.type)) watched.desk.handle(frame);
  }
  if (!('seq' in frame)) return undefined;
  if (!('autopilotId' in frame) || frame.autopilotId !== view.id) return undefined;
  const line = describeProgress(frame, view, options.terminal);
  if (line !== undefined) options.progress(`${line}\n`);
  if (frame.type === 'autopilot:step_started' && frame.runId !== undefined) stepRuns.add(frame.runId);
  return frame.type === 'autopilot:ended' ? frame : undefined;
}

function describeProgress(event: RelayEvent, view: AutopilotView, terminal: Terminal): string | undefined {
  if (event.type === 'autopilot:step_started') return formatStepStarted(view, event.index, terminal.paint);
  if (event.type === 'autopilot:step_ended') return formatStepEnded(event, view.steps.length, terminal.paint);
  if (event.type === 'autopilot:ended') return formatAutopilotEnded(event, terminal.paint);
  if (event.type === 'autopilot:paused') return terminal.paint.yellow(`Paused: ${event.message}`);
  if (event.type === 'autopilot:resumed') return terminal.paint.dim('Resumed.');
  return undefined;
}
