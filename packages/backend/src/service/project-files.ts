import { posix } from 'node:path';
import {
  MAX_FILE_TEXT_BYTES,
  type FileContentResponse,
  type FileListResponse,
  type IdeaMeta,
} from '@catalyst/protocol';
import { CatalystError, isCatalystError } from '../core/catalyst-error.ts';
import { parseProjectPath } from '../core/project-path.ts';
import type { FileStat, HostFiles } from '../host/host.ts';
import type { IdeaHistory } from '../ideas/event-history.ts';
import type { Checkpoints } from './checkpoints.ts';
import type { HostRegistry } from './host-registry.ts';

/**
 * The files of an idea's `project/` (issue 13), for the file browser: a directory's entries, a file's text, now or
 * at a checkpoint. A path is checked twice: its form here (core/project-path.ts), then, resolved on the host with
 * every symlink followed, that it is still inside `project/` (realpath), so a symlink Claude made to `/etc` or `~`
 * leads nowhere. The project's `.git` is never shown.
 */

export interface ProjectFilesOptions {
  hosts: HostRegistry;
  locate: (id: string) => Promise<{ host: string; meta: IdeaMeta }>;
  checkpoints: Checkpoints;
}

/** Git's own test for a binary file: a NUL in the first 8,000 bytes. Text must also be valid UTF-8. */
const BINARY_PROBE_BYTES = 8_000;

export class ProjectFiles {
  readonly #options: ProjectFilesOptions;

  constructor(options: ProjectFilesOptions) {
    this.#options = options;
  }

  async list(id: string, rawPath: string): Promise<FileListResponse> {
    const { files, real, path, stat } = await this.#resolve(id, rawPath);
    if (stat.kind !== 'directory') throw invalidPath(`${displayed(path)} is not a directory.`);
    const entries = (await files.listWithStats(real))
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
    const { files, real, path, stat } = await this.#resolve(id, rawPath);
    if (stat.kind !== 'file') throw invalidPath(`${displayed(path)} is not a file.`);
    if (stat.size > MAX_FILE_TEXT_BYTES) return { path, size: stat.size, tooLarge: true };
    const data = await files.readRange(real, 0, MAX_FILE_TEXT_BYTES + 1);
    // It grew past the bound since the stat: as large as it now is.
    if (data.length > MAX_FILE_TEXT_BYTES) return { path, size: data.length, tooLarge: true };
    return textOf(path, data.length, data);
  }

  /** The path on the host, every symlink resolved, refused unless it is `project/` or inside it. */
  async #resolve(
    id: string,
    rawPath: string,
  ): Promise<{ files: HostFiles; real: string; path: string; stat: FileStat }> {
    const path = checkedPath(rawPath);
    const { host } = await this.#options.locate(id);
    const { hosts } = this.#options;
    const files = hosts.get(host).host;
    const root = (await hosts.store(host)).paths(id).project;
    const notFound = (error: unknown): never => {
      if (isCatalystError(error) && error.code === 'FILE_NOT_FOUND') {
        throw new CatalystError('PATH_NOT_FOUND', `${displayed(path)} does not exist in the project.`);
      }
      throw error;
    };
    const rootReal = await files.realpath(root).catch(notFound);
    // project/ itself replaced by a symlink (to ~, say) would open whatever it points at.
    const ideaReal = await files.realpath(posix.dirname(root)).catch(notFound);
    if (rootReal !== `${ideaReal}/project`)
      throw invalidPath('The project folder is not a folder of its own.');
    const real = await files.realpath(path === '' ? root : posix.join(root, path)).catch(notFound);
    const inside =
      real === rootReal ? '' : real.startsWith(`${rootReal}/`) ? real.slice(rootReal.length + 1) : undefined;
    if (inside === undefined) throw invalidPath(`${displayed(path)} leads outside the project folder.`);
    if (inside.split('/').includes('.git')) throw invalidPath("The project's git repository is not shown.");
    // SFTP's realpath answers for a missing last part too: the stat says it is not there.
    return { files, real, path, stat: await files.stat(real).catch(notFound) };
  }
}

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
