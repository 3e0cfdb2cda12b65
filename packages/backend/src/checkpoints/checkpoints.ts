import {
  CommitIdSchema,
  MAX_DIFF_BYTES,
  MAX_FILE_TEXT_BYTES,
  type CheckpointChange,
  type CheckpointDiffResponse,
  type CheckpointKind,
  type CheckpointView,
  type IdeaMeta,
  type RelayEvent,
} from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import {
  fileAtCommand,
  checkpointEnv,
  checkpointMessage,
  gitCommand,
  readCheckpointChange,
  readScriptOutput,
  type GitCommand,
} from './core/checkpoint-git.ts';
import { VM_MARKERS } from '../core/vm-markers.ts';
import { commandFailure, runHostCommand, type HostCommandResult } from '../host/host-command.ts';
import type { IdeaHistory } from '../ideas/event-history.ts';
import { READ_BYTES, SCAN_BYTES } from '../runs/run-views.ts';
import type { ServiceShared } from '../service/service-shared.ts';

/**
 * Checkpoints of an idea's `project/` (issue 13): a git commit after every build run, one before a build of what the
 * folder held when that is not the last checkpoint (the first build, changes made outside a build), restores as new
 * commits. The commits live in `project/.git` on the idea's host (the scripts are in checkpoints/core/checkpoint-git.ts); the
 * idea's history holds a `checkpoint:*` event for each, which is what the API lists and what a commit is checked
 * against. `meta.json`'s `checkpoint` is the last one.
 */

/** The options' `checkpointTimeoutMs`: a checkpoint's git takes at most this long (CATALYST_CHECKPOINT_TIMEOUT_MS). */
export type CheckpointsOptions = Pick<ServiceShared, 'options' | 'hosts' | 'logger' | 'locate'>;

const DEFAULT_TIMEOUT_MS = 60_000;
/** git's listing of a checkpoint's changes is read up to this (about 300,000 files). */
const MAX_STAT_BYTES = 64 * 1024 * 1024;
export const MAX_CHECKPOINT_LIST = 200;

type CheckpointEvent = Extract<RelayEvent, { type: 'checkpoint:created' | 'checkpoint:restored' }>;

function isCheckpointEvent(event: RelayEvent): event is CheckpointEvent {
  return event.type === 'checkpoint:created' || event.type === 'checkpoint:restored';
}

/**
 * The commit of an empty project/ before the idea's first build: kept (the first build's parent, so it can be
 * undone) but no change a person needs listed (issue 40: "Before a build · 0 files changed" cluttered Changes).
 */
function isEmptyStart(event: CheckpointEvent): boolean {
  return event.kind === 'before_build' && event.parent === null && event.filesChanged === 0;
}

function isListedCheckpoint(event: RelayEvent): event is CheckpointEvent {
  return isCheckpointEvent(event) && !isEmptyStart(event);
}

export function checkpointViewOf(event: CheckpointEvent): CheckpointView {
  const { commit, parent, kind, filesChanged, insertions, deletions, files, restoredTo, runId, ts } = event;
  return {
    commit,
    parent,
    kind,
    filesChanged,
    insertions,
    deletions,
    files,
    ...(restoredTo === undefined ? {} : { restoredTo }),
    ...(runId === undefined ? {} : { runId }),
    createdAt: ts,
  };
}

export class Checkpoints {
  readonly #options: CheckpointsOptions;

  constructor(options: CheckpointsOptions) {
    this.#options = options;
  }

  /**
   * Before a build: a checkpoint of what `project/` holds when it is not the last checkpoint's (the idea's first,
   * even of nothing; or changes made outside a build, by hand or in a terminal), so that the build's change is
   * Claude's alone and undoing it gives back exactly what the person had (issue 25). Never throws: a failure is
   * logged and said in the history, and the build goes on.
   */
  async beforeBuild(id: string, runId: string, message: string, history: IdeaHistory): Promise<void> {
    await this.#record(id, history, { kind: 'before_build', runId, what: 'Before build', message });
  }

  /** After a build, whatever its outcome: a commit of `project/` unless nothing changed. Never throws. */
  async afterBuild(id: string, runId: string, message: string, history: IdeaHistory): Promise<void> {
    await this.#record(id, history, { kind: 'build', runId, what: 'Build', message });
  }

  /** The idea's checkpoints, newest first (at most MAX_CHECKPOINT_LIST), but for an empty start (isEmptyStart). */
  async list(history: IdeaHistory, limit = MAX_CHECKPOINT_LIST): Promise<CheckpointView[]> {
    const { events } = await history.latest({
      maxEvents: limit,
      maxBytes: READ_BYTES,
      maxScanBytes: SCAN_BYTES,
      select: isListedCheckpoint,
    });
    return events.filter(isListedCheckpoint).map(checkpointViewOf).reverse();
  }

  /** One checkpoint by its commit; 400 for a malformed commit, 404 for one that is not the idea's checkpoint. */
  async find(history: IdeaHistory, commit: string): Promise<CheckpointView> {
    const parsed = CommitIdSchema.safeParse(commit);
    if (!parsed.success) {
      throw new CatalystError(
        'INVALID_ARGUMENT',
        'A checkpoint is named by its full commit id: 40 (or 64) hex digits.',
      );
    }
    const { events } = await history.latest({
      maxEvents: 1,
      maxBytes: READ_BYTES,
      maxScanBytes: SCAN_BYTES,
      select: (event) => isCheckpointEvent(event) && event.commit === parsed.data,
    });
    const found = events.find(isCheckpointEvent);
    if (found === undefined) {
      throw new CatalystError('CHECKPOINT_NOT_FOUND', `${commit} is not one of this idea's checkpoints.`);
    }
    return checkpointViewOf(found);
  }

  async diff(id: string, history: IdeaHistory, commit: string): Promise<CheckpointDiffResponse> {
    const checkpoint = await this.find(history, commit);
    const result = await this.#git(
      id,
      gitCommand('diff', [checkpoint.parent ?? '', checkpoint.commit, String(MAX_DIFF_BYTES + 1)]),
    );
    const output = this.#expect(result, 'git diff');
    if (output.lines.has(VM_MARKERS.notFound)) {
      throw new CatalystError(
        'CHECKPOINT_NOT_FOUND',
        `${commit} is no longer in the project's repository (was project/.git replaced?).`,
      );
    }
    const truncated = output.data.length > MAX_DIFF_BYTES;
    let diff = output.data.subarray(0, MAX_DIFF_BYTES).toString('utf8');
    if (truncated) {
      // Cut at the last whole line, and say so where a reader of the diff sees it.
      diff = `${diff.slice(0, diff.lastIndexOf('\n') + 1)}[… the diff is longer than ${String(MAX_DIFF_BYTES)} bytes; the rest is not shown]\n`;
    }
    return { commit: checkpoint.commit, parent: checkpoint.parent, diff, truncated };
  }

  /**
   * `project/` becomes exactly what it was at `commit`, as a new commit (the caller holds the idea: no run
   * meanwhile). Changes made outside a build since the last checkpoint are checkpointed first, so a restore loses
   * nothing. The next run's message is prefaced with a line saying so (meta.json `restoreNote`).
   */
  async restore(id: string, history: IdeaHistory, commit: string): Promise<CheckpointView> {
    const target = await this.find(history, commit);
    const known = await this.list(history);
    await this.#record(id, history, { kind: 'before_restore', what: 'Before restore', throws: true });
    const { host, meta } = await this.#options.locate(id);
    const note = restoreNote(target, known);
    const result = await this.#git(
      id,
      gitCommand(
        'restore',
        [target.commit, meta.checkpoint ?? ''],
        checkpointMessage(`Restore to ${target.commit.slice(0, 12)}`, undefined),
      ),
    );
    const output = this.#expect(result, 'the restore');
    if (output.lines.has(VM_MARKERS.notFound)) {
      throw new CatalystError('CHECKPOINT_NOT_FOUND', `${commit} is no longer in the project's repository.`);
    }
    const made = this.#commitOf(output.lines);
    await this.#save(host, id, made, note);
    const change = this.#readChange(result, output.data, {
      commit: made,
      parent: meta.checkpoint ?? null,
      kind: 'restore',
      restoredTo: target.commit,
    });
    const event = history.append({ type: 'checkpoint:restored', ideaId: id, ...change });
    this.#options.logger.info({ ideaId: id, commit: change.commit, restoredTo: target.commit }, 'restored');
    return checkpointViewOf(event as CheckpointEvent);
  }

  /** A file as it was at a checkpoint: `path` is checked already (core/project-path.ts). */
  async fileAt(
    id: string,
    history: IdeaHistory,
    commit: string,
    path: string,
  ): Promise<{ size: number; data?: Buffer }> {
    const checkpoint = await this.find(history, commit);
    const result = await this.#git(id, fileAtCommand(checkpoint.commit, path, MAX_FILE_TEXT_BYTES));
    const output = this.#expect(result, 'git cat-file');
    if (output.lines.has(VM_MARKERS.missing)) {
      throw new CatalystError('PATH_NOT_FOUND', `${path} is not in checkpoint ${commit.slice(0, 12)}.`);
    }
    const type = output.lines.get(VM_MARKERS.type);
    if (type !== undefined) {
      throw new CatalystError(
        'INVALID_PATH',
        `${path} is a ${type === 'tree' ? 'directory' : type}, not a file.`,
      );
    }
    const size = Number(output.lines.get(VM_MARKERS.size));
    if (!Number.isSafeInteger(size)) throw new CatalystError('CHECKPOINT_FAILED', 'git printed no file size');
    return output.hasData ? { size, data: output.data } : { size };
  }

  async #record(
    id: string,
    history: IdeaHistory,
    what: { kind: CheckpointKind; what: string; runId?: string; message?: string; throws?: boolean },
  ): Promise<void> {
    const started = performance.now();
    try {
      const { host, meta } = await this.#options.locate(id);
      const base = meta.checkpoint;
      const result = await this.#git(
        id,
        gitCommand(
          'checkpoint',
          [base ?? '', base === undefined ? '1' : '0'],
          checkpointMessage(what.what, what.message, what.runId),
        ),
      );
      const output = this.#expect(result, 'the checkpoint');
      if (output.lines.has(VM_MARKERS.noGit)) {
        await this.#sayNoGit(host, id, meta, history);
        return;
      }
      if (output.lines.has(VM_MARKERS.same)) return;
      const commit = this.#commitOf(output.lines);
      // The commit is made: it is the next build's base even if what it changed cannot be counted.
      await this.#save(host, id, commit);
      const change: CheckpointChange = this.#readChange(result, output.data, {
        commit,
        parent: output.lines.has(VM_MARKERS.lostBase) ? null : (base ?? null),
        kind: what.kind,
      });
      history.append({
        type: 'checkpoint:created',
        ideaId: id,
        ...(what.runId === undefined ? {} : { runId: what.runId }),
        ...change,
      });
      const ms = Math.round(performance.now() - started);
      this.#options.logger.info(
        { ideaId: id, runId: what.runId, commit: change.commit, files: change.filesChanged, ms },
        'checkpoint made',
      );
    } catch (error) {
      if (what.throws === true) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      this.#options.logger.error({ err: error, ideaId: id, runId: what.runId }, 'no checkpoint was made');
      try {
        history.append({
          type: 'checkpoint:unavailable',
          ideaId: id,
          ...(what.runId === undefined ? {} : { runId: what.runId }),
          reason: `No checkpoint was made: ${reason}`,
        });
      } catch {
        // The history refused it too: the log line above is all there is.
      }
    }
  }

  async #sayNoGit(host: string, id: string, meta: IdeaMeta, history: IdeaHistory): Promise<void> {
    if (meta.checkpointsUnavailable === true) return;
    const store = await this.#options.hosts.store(host);
    await store.update(id, (current) => ({ ...current, checkpointsUnavailable: true }));
    history.append({
      type: 'checkpoint:unavailable',
      ideaId: id,
      reason: `git is not installed on ${this.#options.hosts.get(host).host.label}: builds are not checkpointed.`,
    });
  }

  async #save(host: string, id: string, commit: string, note?: string): Promise<void> {
    const store = await this.#options.hosts.store(host);
    await store.update(id, ({ checkpointsUnavailable: _told, ...current }) => ({
      ...current,
      checkpoint: commit,
      ...(note === undefined ? {} : { restoreNote: note }),
    }));
  }

  /**
   * What the commit changed; when git's listing was cut (over MAX_STAT_BYTES) or cannot be read, the commit is
   * still a checkpoint, with nothing named and counts of 0, and the log says why.
   */
  #readChange(
    result: HostCommandResult,
    data: Buffer,
    checkpoint: Parameters<typeof readCheckpointChange>[1],
  ): CheckpointChange {
    try {
      if (result.isCut) throw new Error(`git listed more than ${String(MAX_STAT_BYTES)} bytes of changes`);
      return readCheckpointChange(data, checkpoint);
    } catch (error) {
      this.#options.logger.warn(
        { err: error, commit: checkpoint.commit },
        'a checkpoint was made, but what it changed could not be counted',
      );
      return { ...checkpoint, filesChanged: 0, insertions: 0, deletions: 0, files: [] };
    }
  }

  #commitOf(lines: Map<string, string>): string {
    return CommitIdSchema.parse(lines.get(VM_MARKERS.commit));
  }

  /** The script's output when it exited 0; otherwise (or `@@FAIL`) a CHECKPOINT_FAILED. */
  #expect(result: HostCommandResult, what: string) {
    const output = readScriptOutput(result.stdout);
    if (output.lines.has(VM_MARKERS.noGit) && !ok(result)) throw noGit();
    const failed = output.lines.get(VM_MARKERS.fail);
    if (failed !== undefined) {
      const lastLine = result.stderrTail.trim().split('\n').at(-1) ?? '';
      throw new CatalystError(
        'CHECKPOINT_FAILED',
        `${failed} failed${lastLine === '' ? '' : `: ${lastLine}`}`,
        {
          details: { stderrTail: result.stderrTail },
        },
      );
    }
    if (!ok(result)) throw commandFailure(what, result, 'CHECKPOINT_FAILED');
    if (output.lines.has(VM_MARKERS.staleLock)) {
      this.#options.logger.warn(
        { what },
        'removed a stale .git/index.lock a killed git had left in project/',
      );
    }
    return output;
  }

  async #git(id: string, command: GitCommand): Promise<HostCommandResult> {
    const { host } = await this.#options.locate(id);
    const { hosts } = this.#options;
    const store = await hosts.store(host);
    const paths = store.paths(id);
    const claude = await hosts.claude(host);
    return runHostCommand(hosts.get(host).host, {
      argv: command.argv,
      input: command.input,
      cwd: paths.project,
      env: checkpointEnv(claude.path, paths.dir),
      timeoutMs: this.#options.options.checkpointTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxStdoutBytes: MAX_STAT_BYTES,
    });
  }
}

function ok(result: HostCommandResult): boolean {
  return result.outcome.kind === 'exited' && result.outcome.code === 0;
}

function noGit(): CatalystError {
  return new CatalystError('CHECKPOINT_FAILED', 'git is not installed on the host.');
}

/**
 * The line Claude reads before the next run's message. A checkpoint that some build started from is "before"
 * that build; a build's own is "after" it.
 */
export function restoreNote(target: CheckpointView, known: readonly CheckpointView[]): string {
  const startedFrom = known.find(
    (checkpoint) => checkpoint.kind === 'build' && checkpoint.parent === target.commit,
  );
  const when =
    startedFrom?.runId !== undefined
      ? `the state before run ${startedFrom.runId}`
      : target.kind === 'build' && target.runId !== undefined
        ? `the state after run ${target.runId}`
        : `checkpoint ${target.commit.slice(0, 12)} of ${target.createdAt}`;
  return (
    `[Catalyst: since the last message, the person restored the project's files to ${when}; ` +
    'changes made after it are undone.]'
  );
}
