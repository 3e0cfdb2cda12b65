import { createHash, randomBytes } from 'node:crypto';
import type { TerminalCount, TerminalEndReason } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import { Scrollback } from './core/scrollback.ts';
import type { HostTerminal } from '../host/host.ts';
import { createRunTag } from '../host/wrapped-run.ts';
import type { ServiceShared } from '../service/service-shared.ts';
import { describeEnding, type TerminalEnding } from './terminal-ending.ts';
import { TerminalLimits } from './terminal-limits.ts';
import { TerminalFlow, type FlowClient, type TerminalFlowStats } from './terminal-flow.ts';

export type { TerminalEnding } from './terminal-ending.ts';

/**
 * The open terminals (issue 31), each a shell on its idea's host in the idea's `project/`, tagged like a run. A
 * terminal outlives its WebSocket for `detachMs` (a dropped socket, a phone that slept): its output goes on into a
 * bounded scrollback, replayed when a client attaches again by the terminal's id. Closing it, its idea's deletion or
 * Catalyst's stop kill everything it started by its tag. What is typed or printed is never logged.
 */

export const DEFAULT_TERMINAL_DETACH_MS = 60_000;
export const DEFAULT_SCROLLBACK_BYTES = 256 * 1024;

export interface TerminalSize {
  cols: number;
  rows: number;
}

/** A terminal as a client names it when it attaches again: its idea, and its id. */
export interface TerminalTarget {
  ideaId: string;
  terminalId: string;
}

/**
 * The socket's side: where output goes, whether it is behind (the output then waits: terminal-flow.ts), and how it
 * hears of the end or of another client taking over.
 */
export interface TerminalAttachment extends FlowClient {
  onOutput(chunk: Uint8Array): void;
  onEnded(ending: TerminalEnding): void;
  onDisplaced(): void;
}

export interface TerminalLink {
  readonly terminalId: string;
  readonly ideaId: string;
  readonly cwd: string;
  /** The recent output, for a client that attached again (empty for a new terminal). */
  readonly replay: Buffer;
  /** False when the way to the pty has its fill: send no more before drained() settles. */
  write(data: Uint8Array): boolean;
  drained(): Promise<void>;
  resize(size: TerminalSize): void;
  close(): Promise<void>;
  /** The socket went: the shell goes on for detachMs, then ends. */
  detach(): void;
}

/** The idea's host (`locate`), and its owner: while the idea is being deleted no terminal opens. */
export type TerminalsOptions = Pick<ServiceShared, 'hosts' | 'locate' | 'owners' | 'logger'> & {
  detachMs?: number;
  scrollbackBytes?: number;
};

interface Entry {
  id: string;
  hostName: string;
  /** For logs: the id is what lets a client attach, so it is never logged (logLabel). */
  label: string;
  ideaId: string;
  cwd: string;
  runTag: string;
  terminal: HostTerminal;
  scrollback: Scrollback;
  flow: TerminalFlow;
  attachment: TerminalAttachment | undefined;
  detachTimer: NodeJS.Timeout | undefined;
  closingReason: TerminalEndReason | undefined;
  finished: Promise<void>;
}

export class Terminals {
  readonly #options: TerminalsOptions;
  readonly #entries = new Map<string, Entry>();
  #isClosed = false;

  readonly #limits = new TerminalLimits();

  constructor(options: TerminalsOptions) {
    this.#options = options;
  }

  async open(ideaId: string, size: TerminalSize, attachment: TerminalAttachment): Promise<TerminalLink> {
    const { hosts } = this.#options;
    const { host: hostName } = await this.#options.locate(ideaId);
    if (this.#isStopping() || this.#options.owners.of(ideaId).isDeleting()) {
      throw new CatalystError('IDEA_NOT_FOUND', 'The idea is being deleted, or Catalyst is stopping.');
    }
    const host = hosts.get(hostName).host;
    const entries = [...this.#entries.values()];
    const release = this.#limits.reserve({
      ideaId,
      hostName,
      hostLimit: host.maxTerminals,
      openOfIdea: entries.filter((entry) => entry.ideaId === ideaId).length,
      openOnHost: entries.filter((entry) => entry.hostName === hostName).length,
    });
    let cwd: string;
    let runTag: string;
    let terminal: HostTerminal;
    try {
      cwd = (await hosts.store(hostName)).paths(ideaId).project;
      runTag = createRunTag();
      terminal = await host.openTerminal({ cwd, runTag, ...size });
    } finally {
      release();
    }
    const id = `term-${randomBytes(16).toString('hex')}`;
    const scrollbackBytes = this.#options.scrollbackBytes ?? DEFAULT_SCROLLBACK_BYTES;
    const entry: Entry = {
      id,
      hostName,
      label: logLabel(id),
      ideaId,
      cwd,
      runTag,
      terminal,
      scrollback: new Scrollback(scrollbackBytes),
      flow: new TerminalFlow(scrollbackBytes),
      attachment,
      detachTimer: undefined,
      closingReason: undefined,
      finished: Promise.resolve(),
    };
    this.#entries.set(entry.id, entry);
    entry.finished = this.#pump(entry);
    this.#options.logger.info({ ideaId, terminal: entry.label, host: hostName }, 'terminal opened');
    // Catalyst began to stop, or the idea to be deleted, while the shell opened: neither saw it.
    if (this.#isStopping()) void this.#close(entry, 'shutdown');
    else if (this.#options.owners.of(ideaId).isDeleting()) void this.#close(entry, 'idea_deleted');
    return this.#link(entry, Buffer.alloc(0));
  }

  /**
   * TERMINAL_NOT_FOUND unless the terminal is open here, on that idea (an id alone is not enough: a terminal of
   * another idea is not found either); a client attached already is displaced.
   */
  attach(target: TerminalTarget, size: TerminalSize, attachment: TerminalAttachment): TerminalLink {
    const entry = this.#entries.get(target.terminalId);
    if (entry === undefined || entry.ideaId !== target.ideaId || entry.closingReason !== undefined) {
      throw new CatalystError('TERMINAL_NOT_FOUND', 'This terminal has ended; open a new one.');
    }
    clearTimeout(entry.detachTimer);
    entry.detachTimer = undefined;
    const previous = entry.attachment;
    entry.attachment = attachment;
    previous?.onDisplaced();
    entry.flow.wake();
    entry.terminal.resize(size.cols, size.rows);
    return this.#link(entry, entry.scrollback.contents());
  }

  #isStopping(): boolean {
    return this.#isClosed;
  }

  /** How many terminals the idea has open (IDEA_NOT_FOUND for an unknown idea): the delete dialog says they end. */
  async openCount(ideaId: string): Promise<TerminalCount> {
    await this.#options.locate(ideaId);
    return { open: this.idsOf(ideaId).length };
  }

  /** How the terminal's output and input flow (for tests); undefined once it has ended. */
  flowOf(terminalId: string): TerminalFlowStats | undefined {
    return this.#entries.get(terminalId)?.flow.stats();
  }

  idsOf(ideaId: string): string[] {
    return [...this.#entries.values()].filter((entry) => entry.ideaId === ideaId).map((entry) => entry.id);
  }

  /** The run tags of the idea's terminals (for scans and tests). */
  runTagsOf(ideaId: string): string[] {
    return [...this.#entries.values()]
      .filter((entry) => entry.ideaId === ideaId)
      .map((entry) => entry.runTag);
  }

  /** The idea is being deleted: its terminals end, with all they started. */
  async closeAllOf(ideaId: string): Promise<void> {
    const entries = [...this.#entries.values()].filter((entry) => entry.ideaId === ideaId);
    await Promise.all(entries.map((entry) => this.#close(entry, 'idea_deleted')));
  }

  /** Its host is to be reconnected or removed (issue 39): those open now end, by tag, over its open pool. */
  async closeAllOn(hostName: string): Promise<void> {
    const entries = [...this.#entries.values()].filter((entry) => entry.hostName === hostName);
    await Promise.all(entries.map((entry) => this.#close(entry, 'closed')));
  }

  async shutdown(): Promise<void> {
    this.#isClosed = true;
    await Promise.all([...this.#entries.values()].map((entry) => this.#close(entry, 'shutdown')));
  }

  #link(entry: Entry, replay: Buffer): TerminalLink {
    const attachment = entry.attachment;
    const isCurrent = () => entry.attachment === attachment && attachment !== undefined;
    return {
      terminalId: entry.id,
      ideaId: entry.ideaId,
      cwd: entry.cwd,
      replay,
      write: (data) => {
        if (!isCurrent() || entry.terminal.write(data)) return true;
        entry.flow.countInputWait();
        return false;
      },
      drained: () => entry.terminal.drained(),
      resize: (size) => {
        if (isCurrent()) entry.terminal.resize(size.cols, size.rows);
      },
      close: () => this.#close(entry, 'closed'),
      detach: () => {
        if (!isCurrent()) return;
        entry.attachment = undefined;
        entry.flow.detached();
        const detachMs = this.#options.detachMs ?? DEFAULT_TERMINAL_DETACH_MS;
        entry.detachTimer = setTimeout(() => void this.#close(entry, 'detached'), detachMs);
        entry.detachTimer.unref();
      },
    };
  }

  async #close(entry: Entry, reason: TerminalEndReason): Promise<void> {
    entry.closingReason ??= reason;
    clearTimeout(entry.detachTimer);
    entry.flow.wake();
    try {
      await entry.terminal.close();
    } catch (error) {
      this.#options.logger.warn(
        { err: error, ideaId: entry.ideaId, terminal: entry.label },
        'the terminal’s processes could not all be stopped by its tag',
      );
    }
    await entry.finished;
  }

  async #killLeftovers(entry: Entry): Promise<void> {
    try {
      await entry.terminal.close();
    } catch (error) {
      this.#options.logger.warn(
        { err: error, ideaId: entry.ideaId, terminal: entry.label },
        'what the terminal left running could not be stopped by its tag',
      );
    }
  }

  async #pump(entry: Entry): Promise<void> {
    const current = () => ({ client: entry.attachment, isEnding: entry.closingReason !== undefined });
    for await (const chunk of entry.terminal.output) {
      entry.scrollback.append(chunk);
      entry.flow.countRead(chunk.length, entry.attachment !== undefined);
      entry.attachment?.onOutput(chunk);
      await entry.flow.readyToRead(current);
    }
    const end = await entry.terminal.ended;
    // A shell that exited by itself may have left jobs behind (`nohup … &`): they carry its tag, and go too. A
    // closed one: its output ends when its transport is dropped, before the kill by tag is done; `ended` waits for
    // that, so a client told it ended finds nothing of it left (#close logs a failure).
    if (entry.closingReason === undefined) await this.#killLeftovers(entry);
    else await entry.terminal.close().catch(() => undefined);
    const ending = describeEnding(entry.closingReason, end);
    clearTimeout(entry.detachTimer);
    this.#entries.delete(entry.id);
    entry.closingReason ??= ending.reason;
    entry.attachment?.onEnded(ending);
    entry.attachment = undefined;
    this.#options.logger.info(
      { ideaId: entry.ideaId, terminal: entry.label, reason: ending.reason },
      'terminal ended',
    );
  }
}

/** A short name for a terminal in logs, from which its id cannot be found again (a hash's first 8 hex digits). */
function logLabel(terminalId: string): string {
  return createHash('sha256').update(terminalId).digest('hex').slice(0, 8);
}
