import {
  createUserMessage,
  isCanUseToolRequest,
  type CanUseToolRequest,
  type CliMessage,
  type CommandResult,
  type HostControlRequest,
  type HostControlResponse,
  type StreamEvent,
} from '@catalyst/protocol';
import {
  claudeBinaryPath,
  claudeTestEnv,
  spawnClaude,
  type ClaudeExit,
  type ClaudeProcess,
  type ScriptedModel,
} from '@catalyst/testkit';
import { buildClaudeCommand, type ClaudeCommandOptionsInput } from '../src/core/claude-command.ts';
import { parseResult } from '../src/core/command-result.ts';
import { parseStream } from '../src/core/stream-parser.ts';

/**
 * Drives one real claude CLI process in stream-json mode for a test: the argv comes from the command builder,
 * stdout goes through the backend's own stream parser, `can_use_tool` requests go to the test's handler, and
 * each `result` line becomes a CommandResult through `parseResult`.
 */

export type CanUseToolHandler = (
  requestId: string,
  request: CanUseToolRequest,
) => Promise<HostControlResponse> | HostControlResponse;

export interface ClaudeSessionOptions {
  model: ScriptedModel;
  cwd: string;
  home: string;
  command?: Omit<ClaudeCommandOptionsInput, 'cwd' | 'claudePath'>;
  maxRetries?: number;
  onCanUseTool?: CanUseToolHandler;
}

export interface Turn {
  /** Every event of this turn, the result line included. */
  events: StreamEvent[];
  result: CommandResult;
}

export interface ClaudeSession {
  readonly process: ClaudeProcess;
  /** Every event of the whole process so far. */
  readonly events: readonly StreamEvent[];
  /** Sends a user message; resolves when its turn's result line arrives. */
  send(text: string): Promise<Turn>;
  sendControl(request: HostControlRequest): void;
  /** Resolves with the next event that matches, past or future. */
  waitFor(predicate: (event: StreamEvent) => boolean): Promise<StreamEvent>;
  /** Closes stdin (the CLI exits once idle) and waits for the exit. */
  close(): Promise<ClaudeExit>;
}

function isResultEnd(message: CliMessage): message is Extract<CliMessage, { type: 'result' | 'unknown' }> {
  return message.type === 'result' || (message.type === 'unknown' && message.originalType === 'result');
}

export function openClaudeSession(options: ClaudeSessionOptions): ClaudeSession {
  const command = buildClaudeCommand({
    ...options.command,
    cwd: options.cwd,
    claudePath: claudeBinaryPath(),
  });
  const env = claudeTestEnv({
    home: options.home,
    modelUrl: options.model.url,
    maxRetries: options.maxRetries ?? 1,
  });
  const process = spawnClaude({ argv: command.argv, cwd: command.cwd, env: { ...env, ...command.env } });
  const events: StreamEvent[] = [];
  const watchers = new Set<{
    predicate: (event: StreamEvent) => boolean;
    resolve: (event: StreamEvent) => void;
  }>();
  let turn:
    | { start: number; from: number; resolve: (turn: Turn) => void; reject: (error: Error) => void }
    | undefined;
  let sessionId = '';

  function handleMessage(message: CliMessage): void {
    if (message.type === 'system' && message.subtype === 'init') sessionId = message.session_id;
    if (message.type === 'control_request' && isCanUseToolRequest(message.request)) {
      const handler = options.onCanUseTool;
      if (!handler) throw new Error(`unexpected can_use_tool for ${message.request.tool_name}`);
      void Promise.resolve(handler(message.request_id, message.request)).then((response) => {
        process.writeLine(response);
      });
    }
    if (isResultEnd(message) && turn) {
      const current = turn;
      turn = undefined;
      current.resolve({
        events: events.slice(current.from),
        result: parseResult(message, sessionId, current.start),
      });
    }
  }

  const reading = (async () => {
    for await (const event of parseStream(process.stdout)) {
      events.push(event);
      for (const watcher of watchers) {
        if (watcher.predicate(event)) {
          watchers.delete(watcher);
          watcher.resolve(event);
        }
      }
      if (event.kind === 'message') handleMessage(event.message);
    }
    turn?.reject(new Error(`claude exited before the turn's result; stderr: ${process.stderrText()}`));
  })();

  return {
    process,
    events,
    send(text) {
      if (turn) return Promise.reject(new Error('a turn is already running'));
      return new Promise<Turn>((resolve, reject) => {
        turn = { start: Date.now(), from: events.length, resolve, reject };
        process.writeLine(createUserMessage(text));
      });
    },
    sendControl: (request) => {
      process.writeLine(request);
    },
    waitFor(predicate) {
      const seen = events.find(predicate);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => watchers.add({ predicate, resolve }));
    },
    async close() {
      process.closeStdin();
      const exit = await process.exited;
      await reading;
      return exit;
    },
  };
}

/** The messages of a turn, in order. */
export function messagesOf(events: readonly StreamEvent[]): CliMessage[] {
  return events.flatMap((event) => (event.kind === 'message' ? [event.message] : []));
}

/** Events the parser could not type: a real-CLI test expects none. */
export function untypedEvents(events: readonly StreamEvent[]): StreamEvent[] {
  return events.filter((event) => event.kind !== 'message' || event.message.type === 'unknown');
}
