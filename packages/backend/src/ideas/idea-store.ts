import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import { IDEA_ID_PATTERN, IDEA_META_SCHEMA_VERSION, IdeaMetaSchema, type IdeaMeta } from '@catalyst/protocol';
import { CatalystError, isCatalystError } from '../core/catalyst-error.ts';
import type { HostFiles } from '../host/host.ts';
import { KeyedLock } from './keyed-lock.ts';
import { PRIVATE_DIR, PRIVATE_FILE } from './private-modes.ts';

/**
 * Ideas as folders on their host: `<root>/<id>/meta.json` and `<root>/<id>/project/`. The host is the source of
 * truth, so a restarted backend (or one on another machine pointed at the same VM) loses nothing. meta.json is
 * written atomically (temporary file, then rename) and updates of one idea are serialised. The root and the idea
 * folders are made 0700 and meta.json 0600 (private-modes.ts); `project/` gets the host's usual mode.
 */
export interface IdeaPaths {
  dir: string;
  meta: string;
  project: string;
  events: string;
}

export interface IdeaListing {
  id: string;
  meta?: IdeaMeta;
  /** Why the idea's meta.json could not be read (corrupt, unreadable): listed, never silently dropped. */
  error?: string;
  /** The folder is there but its meta.json is missing or invalid (not merely unreadable now): only deletable. */
  isBroken?: boolean;
}

/**
 * Where deleted ideas go before they are removed: `<root>/.trash/<id>-<random>`. The listing only takes names
 * matching IDEA_ID_PATTERN, so a folder is out of every listing the moment it is renamed here.
 */
export const TRASH_DIR = '.trash';

export interface IdeaStoreOptions {
  files: HostFiles;
  /** Absolute path on the host. */
  root: string;
  now?: () => Date;
}

const CRYPTO_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

export function createIdeaId(): string {
  // 16 characters from 36: ~82 bits. Modulo bias of 256 % 36 is irrelevant for uniqueness here.
  const bytes = randomBytes(16);
  let suffix = '';
  for (const byte of bytes) suffix += CRYPTO_ALPHABET[byte % CRYPTO_ALPHABET.length] ?? 'a';
  return `idea-${suffix}`;
}

/** The only way an id becomes a path: anything not matching the pattern is refused before touching a file. */
export function checkIdeaId(id: string): string {
  if (!IDEA_ID_PATTERN.test(id)) {
    throw new CatalystError('INVALID_ARGUMENT', 'That is not a valid idea id.', {
      details: { id: id.slice(0, 80) },
    });
  }
  return id;
}

export class IdeaStore {
  readonly #files: HostFiles;
  readonly #root: string;
  readonly #now: () => Date;
  readonly #lock = new KeyedLock();
  #emptying: Promise<void> | undefined;

  constructor(options: IdeaStoreOptions) {
    if (!posix.isAbsolute(options.root))
      throw new CatalystError('CONFIG_INVALID', `ideas root must be absolute: ${options.root}`);
    this.#files = options.files;
    this.#root = posix.normalize(options.root);
    this.#now = options.now ?? (() => new Date());
  }

  /** The absolute folder on the host that holds the ideas. */
  get root(): string {
    return this.#root;
  }

  paths(id: string): IdeaPaths {
    const dir = posix.join(this.#root, checkIdeaId(id));
    return {
      dir,
      meta: posix.join(dir, 'meta.json'),
      project: posix.join(dir, 'project'),
      events: posix.join(dir, 'events.ndjson'),
    };
  }

  async create(fields: { title: string; description: string; madeBy?: string }): Promise<IdeaMeta> {
    const id = createIdeaId();
    const paths = this.paths(id);
    const at = this.#now().toISOString();
    // Parsed so the fields with defaults (question and permission policies, newer totals) are filled in.
    const meta: IdeaMeta = IdeaMetaSchema.parse({
      schemaVersion: IDEA_META_SCHEMA_VERSION,
      id,
      title: fields.title,
      description: fields.description,
      status: 'captured',
      createdAt: at,
      updatedAt: at,
      totals: { costUsd: 0, turns: 0, runs: 0, questionsAsked: 0 },
      ...(fields.madeBy === undefined ? {} : { madeBy: fields.madeBy }),
    });
    await this.#files.mkdirp(paths.dir, PRIVATE_DIR);
    await this.#files.mkdirp(paths.project);
    await this.#writeMeta(paths.meta, meta);
    return meta;
  }

  async get(id: string): Promise<IdeaMeta> {
    const paths = this.paths(id);
    let raw: Buffer;
    try {
      raw = await this.#files.readFile(paths.meta);
    } catch (error) {
      if (isCatalystError(error) && error.code === 'FILE_NOT_FOUND') {
        throw new CatalystError('IDEA_NOT_FOUND', `There is no idea ${id}.`, { cause: error });
      }
      throw error;
    }
    return parseMeta(raw, paths.meta);
  }

  /** Reads, changes and writes meta.json under the idea's lock; `updatedAt` is set here. */
  update(id: string, change: (meta: IdeaMeta) => IdeaMeta): Promise<IdeaMeta> {
    return this.#lock.run(id, async () => {
      const next = { ...change(await this.get(id)), updatedAt: this.#now().toISOString() };
      await this.#writeMeta(this.paths(id).meta, next);
      return next;
    });
  }

  async list(): Promise<IdeaListing[]> {
    let entries;
    try {
      entries = await this.#files.list(this.#root);
    } catch (error) {
      if (isCatalystError(error) && error.code === 'FILE_NOT_FOUND') return [];
      throw error;
    }
    const ids = entries.filter((entry) => entry.kind === 'directory' && IDEA_ID_PATTERN.test(entry.name));
    return Promise.all(ids.map((entry) => this.#listOne(entry.name)));
  }

  /** Whether the idea's folder is there, whatever its meta.json holds. */
  async has(id: string): Promise<boolean> {
    try {
      return (await this.#files.stat(this.paths(id).dir)).kind === 'directory';
    } catch (error) {
      if (isCatalystError(error) && error.code === 'FILE_NOT_FOUND') return false;
      throw error;
    }
  }

  /**
   * Deletes the idea's folder, whatever its meta.json holds (missing or corrupt ones too): one rename into the
   * trash, which takes it out of the listing at once and whole, then the trash is emptied. A removal that fails
   * (issue 16, item 8: a file the user cannot remove) leaves the idea deleted all the same: it is returned as
   * `leftOver`, and the next delete or start-up tries again (emptyTrash).
   */
  delete(id: string): Promise<{ leftOver?: unknown }> {
    return this.#lock.run(id, async () => {
      if (!(await this.has(id))) throw new CatalystError('IDEA_NOT_FOUND', `There is no idea ${id}.`);
      const trash = posix.join(this.#root, TRASH_DIR);
      await this.#files.mkdirp(trash, PRIVATE_DIR);
      await this.#files.rename(
        this.paths(id).dir,
        posix.join(trash, `${id}-${randomBytes(6).toString('hex')}`),
      );
      try {
        await this.emptyTrash();
        return {};
      } catch (error) {
        return { leftOver: error };
      }
    });
  }

  /** Removes everything in the trash; rejects with the first failure once every entry was tried. */
  emptyTrash(): Promise<void> {
    this.#emptying ??= this.#removeTrash().finally(() => {
      this.#emptying = undefined;
    });
    return this.#emptying;
  }

  async #removeTrash(): Promise<void> {
    const trash = posix.join(this.#root, TRASH_DIR);
    let entries;
    try {
      entries = await this.#files.list(trash);
    } catch (error) {
      if (isCatalystError(error) && error.code === 'FILE_NOT_FOUND') return;
      throw error;
    }
    const results = await Promise.allSettled(
      entries.map((entry) => this.#files.remove(posix.join(trash, entry.name))),
    );
    const failed = results.find((result) => result.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  async #listOne(id: string): Promise<IdeaListing> {
    try {
      return { id, meta: await this.get(id) };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { id, error: message, ...(isBrokenMeta(error) ? { isBroken: true } : {}) };
    }
  }

  async #writeMeta(path: string, meta: IdeaMeta): Promise<void> {
    const checked = IdeaMetaSchema.parse(meta);
    await this.#files.writeFileAtomic(path, `${JSON.stringify(checked, null, 2)}\n`, PRIVATE_FILE);
  }
}

/** A folder whose meta.json is gone (IDEA_NOT_FOUND from get) or does not hold an idea (FILE_ERROR from parseMeta). */
function isBrokenMeta(error: unknown): boolean {
  return (
    isCatalystError(error) && (error.code === 'IDEA_NOT_FOUND' || error.details['reason'] === 'invalid-meta')
  );
}

function parseMeta(raw: Buffer, path: string): IdeaMeta {
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw new CatalystError('FILE_ERROR', `${path} is not valid JSON.`, {
      cause: error,
      details: { path, reason: 'invalid-meta' },
    });
  }
  const parsed = IdeaMetaSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid';
    throw new CatalystError('FILE_ERROR', `${path} does not hold a valid idea (${where}).`, {
      details: { path, reason: 'invalid-meta' },
    });
  }
  return parsed.data;
}
