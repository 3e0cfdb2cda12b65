import { posix } from 'node:path';
import {
  REVIEWS_FILE_SCHEMA_VERSION,
  ReviewsFileSchema,
  type IdeaMeta,
  type ReviewComment,
} from '@catalyst/protocol';
import { CatalystError, isCatalystError } from '../core/catalyst-error.ts';
import { KeyedLock } from '../ideas/keyed-lock.ts';
import { PRIVATE_FILE } from '../ideas/private-modes.ts';
import type { HostRegistry } from '../hosts/host-registry.ts';

/**
 * An idea's review comments (issue 30), kept beside its meta.json: `<idea>/reviews.json` on its host, so they
 * survive a restart and go with the idea (deleted with its folder). Parsed strictly on every read (a file that does
 * not hold comments is a FILE_ERROR naming it, never a crash), written whole and atomically, 0600 like meta.json;
 * changes of one idea's comments are serialised, so none is lost. The path comes from the idea store's, which
 * checks the id first.
 */

export const REVIEWS_FILE = 'reviews.json';

export interface ReviewStoreOptions {
  hosts: HostRegistry;
  locate: (id: string) => Promise<{ host: string; meta: IdeaMeta }>;
}

export class ReviewStore {
  readonly #options: ReviewStoreOptions;
  readonly #lock = new KeyedLock();

  constructor(options: ReviewStoreOptions) {
    this.#options = options;
  }

  /** Every comment of the idea; none when it has no reviews.json yet. */
  async read(id: string): Promise<ReviewComment[]> {
    const { files, path } = await this.#where(id);
    let raw: Buffer;
    try {
      raw = await files.readFile(path);
    } catch (error) {
      if (isCatalystError(error) && error.code === 'FILE_NOT_FOUND') return [];
      throw error;
    }
    return parseReviews(raw, path);
  }

  /**
   * Reads the comments, lets `change` make new ones (and an answer), and writes them, under the idea's lock: no
   * other change of its comments runs in between. Nothing is written when `change` throws, or returns the same list.
   */
  change<T>(
    id: string,
    change: (comments: ReviewComment[]) => Promise<{ comments: ReviewComment[]; answer: T }>,
  ): Promise<T> {
    return this.#lock.run(id, async () => {
      const current = await this.read(id);
      const { comments, answer } = await change(current);
      if (comments !== current) await this.#write(id, comments);
      return answer;
    });
  }

  async #write(id: string, comments: ReviewComment[]): Promise<void> {
    const { files, path } = await this.#where(id);
    const checked = ReviewsFileSchema.parse({ schemaVersion: REVIEWS_FILE_SCHEMA_VERSION, comments });
    await files.writeFileAtomic(path, `${JSON.stringify(checked, null, 2)}\n`, PRIVATE_FILE);
  }

  async #where(id: string) {
    const { host } = await this.#options.locate(id);
    const store = await this.#options.hosts.store(host);
    return {
      files: this.#options.hosts.get(host).host,
      path: posix.join(store.paths(id).dir, REVIEWS_FILE),
    };
  }
}

function parseReviews(raw: Buffer, path: string): ReviewComment[] {
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw new CatalystError('FILE_ERROR', `${path} is not valid JSON.`, { cause: error, details: { path } });
  }
  const parsed = ReviewsFileSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid';
    throw new CatalystError('FILE_ERROR', `${path} does not hold review comments (${where}).`, {
      details: { path },
    });
  }
  return parsed.data.comments;
}
