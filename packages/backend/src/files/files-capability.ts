import type {
  CheckpointDiffResponse,
  CheckpointView,
  FileContentResponse,
  FileListResponse,
} from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import { parseProjectPath } from '../core/project-path.ts';
import type { Checkpoints } from '../checkpoints/checkpoints.ts';
import type { FilesPort } from '../service/ports.ts';
import type { ProjectFiles } from './project-files.ts';
import { restoringClaim } from '../runs/run-claim.ts';
import type { ServiceShared } from '../service/service-shared.ts';
import type { Previews } from '../previews/previews.ts';

/** The shared parts (the owners: a restore is refused while a run or an autopilot is on the idea), and its own. */
export type FilesCapabilityOptions = Pick<ServiceShared, 'active' | 'histories' | 'locate' | 'owners'> & {
  checkpoints: Checkpoints;
  files: ProjectFiles;
  /** After a restore: the idea's dev server, if it runs, starts again on the restored files. */
  previews: Pick<Previews, 'restartIfRunning'>;
};

/** Checkpoints and the project's files (FilesPort, issue 13): listed, diffed, restored, browsed and read. */
export class FilesCapability implements FilesPort {
  readonly #options: FilesCapabilityOptions;

  constructor(options: FilesCapabilityOptions) {
    this.#options = options;
  }

  async listCheckpoints(id: string): Promise<CheckpointView[]> {
    await this.#options.locate(id);
    return this.#options.checkpoints.list(await this.#options.histories.get(id));
  }

  async checkpointDiff(id: string, commit: string): Promise<CheckpointDiffResponse> {
    await this.#options.locate(id);
    return this.#options.checkpoints.diff(id, await this.#options.histories.get(id), commit);
  }

  async restoreCheckpoint(id: string, commit: string): Promise<CheckpointView> {
    const { active } = this.#options;
    await this.#options.locate(id);
    // The history first: opening it takes up a run an earlier Catalyst left going, which makes the idea busy.
    const history = await this.#options.histories.get(id);
    if (this.#options.owners.of(id).isBusy()) {
      throw new CatalystError(
        'RUN_IN_PROGRESS',
        'A run is going on in this idea: restore once it has ended, or cancel it first.',
      );
    }
    // Held like a run until the restore is done: a run started meanwhile would build on files being replaced.
    active.hold(id, restoringClaim);
    try {
      const restored = await this.#options.checkpoints.restore(id, history, commit);
      // In the background: a dev server's stop and start take seconds; the preview's state tells how it goes.
      void this.#options.previews.restartIfRunning(id);
      return restored;
    } finally {
      active.release(id);
    }
  }

  listFiles(id: string, path: string): Promise<FileListResponse> {
    return this.#options.files.list(id, path);
  }

  async fileContent(id: string, path: string, at?: string): Promise<FileContentResponse> {
    await this.#options.locate(id);
    const history = at === undefined ? undefined : await this.#options.histories.get(id);
    return this.#options.files.content(
      id,
      path,
      history === undefined || at === undefined ? undefined : { commit: at, history },
    );
  }

  async fileHistory(id: string, path: string): Promise<CheckpointView[]> {
    const parsed = parseProjectPath(path);
    if (!parsed.ok) throw new CatalystError('INVALID_PATH', `That path cannot be shown: ${parsed.problem}.`);
    const checkpoints = await this.listCheckpoints(id);
    return checkpoints.filter((checkpoint) =>
      checkpoint.files.some((file) => file.path === parsed.path || file.from === parsed.path),
    );
  }
}
