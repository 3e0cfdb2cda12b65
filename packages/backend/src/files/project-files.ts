import { MAX_FILE_TEXT_BYTES, type FileContentResponse, type FileListResponse } from '@catalyst/protocol';
import { CatalystError, isCatalystError } from '../core/catalyst-error.ts';
import { parseProjectPath } from '../core/project-path.ts';
import type { ReadWithinResult } from '../host/host.ts';
import type { IdeaHistory } from '../ideas/event-history.ts';
import type { Checkpoints } from '../checkpoints/checkpoints.ts';
import type { ServiceShared } from '../service/service-shared.ts';

/**
 * The files of an idea's `project/` (issue 13), for the file browser: a directory's entries, a file's text, now or
 * at a checkpoint. A path is checked twice: its form here (core/project-path.ts), then on the host, in the same
 * step that reads it (HostFiles.readWithin), resolved with every symlink followed, that it is still inside
 * `project/`, so a symlink Claude made to `/etc` or `~` leads nowhere, even one swapped in while Catalyst reads.
 * The project's `.git` is never shown.
 */

export type ProjectFilesOptions = Pick<ServiceShared, 'hosts' | 'locate'> & { checkpoints: Checkpoints };

/** Git's own test for a binary file: a NUL in the first 8,000 bytes. Text must also be valid UTF-8. */
const BINARY_PROBE_BYTES = 8_000;

export class ProjectFiles {
  readonly #options: ProjectFilesOptions;

  constructor(options: ProjectFilesOptions) {
    this.#options = options;
  }

  async list(id: string, rawPath: string): Promise<FileListResponse> {
    const { path, found } = await this.#read(id, rawPath, 0);
    if (found.kind !== 'directory') throw invalidPath(`${displayed(path)} is not a directory.`);
    const entries = found.entries
      .filter((entry) => entry.name !== '.git')
      .map((entry) => ({
        name: entry.name,
        type: entry.kind,
        size: entry.size,
        modified: new Date(entry.modifiedMs).toISOString(),
      }))
      .sort((a, b) => {
        const byType = Number(b.type === 'directory') - Number(a.type === 'directory');
        return byType !== 0 ? byType : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
      });
    return { path, entries };
  }

  async content(
    id: string,
    rawPath: string,
    at: { commit: string; history: IdeaHistory } | undefined,
  ): Promise<FileContentResponse> {
    if (at !== undefined) {
      const path = checkedPath(rawPath);
      if (path === '') throw invalidPath('The project folder is a directory, not a file.');
      const file = await this.#options.checkpoints.fileAt(id, at.history, at.commit, path);
      return file.data === undefined
        ? { path, size: file.size, tooLarge: true }
        : textOf(path, file.size, file.data);
    }
    const { path, found } = await this.#read(id, rawPath, MAX_FILE_TEXT_BYTES + 1);
    if (found.kind !== 'file') throw invalidPath(`${displayed(path)} is not a file.`);
    // Larger than the bound, or grown past it since the host's stat: as large as it is.
    const size = Math.max(found.size, found.data.length);
    if (size > MAX_FILE_TEXT_BYTES) return { path, size, tooLarge: true };
    return textOf(path, found.data.length, found.data);
  }

  /**
   * The path read on the host in one step (HostFiles.readWithin, issue 25): every symlink resolved, refused unless
   * it is `project/` or inside it, and neither `project/` itself a symlink nor anything but a regular file or a
   * directory opened. A FIFO, a socket or a device is refused here, by name.
   */
  async #read(
    id: string,
    rawPath: string,
    maxBytes: number,
  ): Promise<{ path: string; found: Exclude<ReadWithinResult, { kind: 'refused' | 'other' }> }> {
    const path = checkedPath(rawPath);
    const { host } = await this.#options.locate(id);
    const { hosts } = this.#options;
    const root = (await hosts.store(host)).paths(id).project;
    const found = await hosts
      .get(host)
      .host.readWithin({ root, path, maxBytes })
      .catch((error: unknown) => {
        if (isCatalystError(error) && error.code === 'FILE_NOT_FOUND') {
          throw new CatalystError('PATH_NOT_FOUND', `${displayed(path)} does not exist in the project.`);
        }
        throw error;
      });
    if (found.kind === 'refused') throw invalidPath(REFUSALS[found.reason](path));
    if (found.inside.split('/').includes('.git'))
      throw invalidPath("The project's git repository is not shown.");
    if (found.kind === 'other') {
      throw invalidPath(
        `${displayed(path)} is not a regular file or a folder (a ${found.what}): it is not read.`,
      );
    }
    return { path, found };
  }
}

const REFUSALS: Readonly<Record<'root' | 'outside' | 'changed', (path: string) => string>> = {
  root: () => 'The project folder is not a folder of its own.',
  outside: (path) => `${displayed(path)} leads outside the project folder.`,
  changed: (path) => `${displayed(path)} changed while it was read; try again.`,
};

function checkedPath(rawPath: string): string {
  const parsed = parseProjectPath(rawPath);
  if (!parsed.ok) throw invalidPath(`That path cannot be shown: ${parsed.problem}.`);
  if (parsed.segments.includes('.git')) throw invalidPath("The project's git repository is not shown.");
  return parsed.path;
}

function textOf(path: string, size: number, data: Buffer): FileContentResponse {
  if (data.subarray(0, BINARY_PROBE_BYTES).includes(0)) return { path, size, binary: true };
  try {
    return { path, size, text: new TextDecoder('utf-8', { fatal: true }).decode(data) };
  } catch {
    return { path, size, binary: true };
  }
}

function displayed(path: string): string {
  return path === '' ? 'The project folder' : JSON.stringify(path);
}

function invalidPath(message: string): CatalystError {
  return new CatalystError('INVALID_PATH', message);
}
