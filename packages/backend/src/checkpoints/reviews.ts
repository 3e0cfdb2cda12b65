import { randomBytes } from 'node:crypto';
import {
  MAX_MESSAGE_CHARS,
  MAX_REVIEW_COMMENTS,
  type AddReviewCommentBody,
  type CheckpointView,
  type ReviewComment,
  type ReviewCommentView,
  type SendReviewResponse,
} from '@catalyst/protocol';
import { CatalystError, isCatalystError } from '../core/catalyst-error.ts';
import { parseProjectPath } from '../core/project-path.ts';
import { linesBetween, splitFileLines } from './core/review-lines.ts';
import { composeReviewMessage, orderForReview } from './core/review-message.ts';
import { judgeStaleness } from './core/review-staleness.ts';
import type { IdeaHistory } from '../ideas/event-history.ts';
import { readRunView } from '../runs/run-views.ts';
import type { Checkpoints } from './checkpoints.ts';
import type { ReviewsPort } from '../service/ports.ts';
import type { ProjectFiles } from '../files/project-files.ts';
import { ReviewStore } from './review-store.ts';
import type { ServiceShared } from '../service/service-shared.ts';

/**
 * Review comments on a checkpoint's diff (ReviewsPort, issue 30). A comment quotes the lines it is about as the
 * checkpoint has them (read from git on the host when it is made, never taken from the client); whether they have
 * changed since is told on every read, against the file in `project/` now (checkpoints/core/review-staleness.ts). "Send review"
 * composes one build message of the checkpoint's unsent comments (checkpoints/core/review-message.ts) and hands it to `send`,
 * which starts the build, or queues it behind what runs (issue 30); only then are they marked sent.
 */

/** Hands a composed message on: starts a build run, or queues it (then without a run yet). */
/**
 * The shared parts a review uses: the owners (a review is sent as the composer's message is: a build now when the
 * idea is idle, queued behind what runs otherwise; an idea being deleted has its history not opened again for a
 * review's change), the histories, where the idea is; and the checkpoints and files it quotes.
 */
export type ReviewsOptions = Pick<ServiceShared, 'hosts' | 'histories' | 'locate' | 'owners' | 'logger'> & {
  checkpoints: Checkpoints;
  files: ProjectFiles;
  now?: () => Date;
};

/** A comment's quoted lines weigh at most this much (a few long lines would otherwise fill the message). */
const MAX_QUOTED_CHARS = 32 * 1024;

export class Reviews implements ReviewsPort {
  readonly #options: ReviewsOptions;
  readonly #store: ReviewStore;

  constructor(options: ReviewsOptions) {
    this.#options = options;
    this.#store = new ReviewStore(options);
  }

  async listReviewComments(id: string, commit: string): Promise<ReviewCommentView[]> {
    const { checkpoint } = await this.#checkpoint(id, commit);
    const comments = (await this.#store.read(id)).filter((one) => one.commit === checkpoint.commit);
    return this.#view(id, orderForReview(comments));
  }

  async addReviewComment(id: string, commit: string, body: AddReviewCommentBody): Promise<ReviewCommentView> {
    const { checkpoint, history } = await this.#checkpoint(id, commit);
    const endLine = body.endLine ?? body.startLine;
    const lines = await this.#linesAt(id, history, checkpoint, { ...body, endLine });
    const at = this.#now();
    const comment: ReviewComment = {
      id: `rc-${randomBytes(8).toString('hex')}`,
      commit: checkpoint.commit,
      path: lines.path,
      side: body.side,
      startLine: body.startLine,
      endLine,
      lines: lines.text,
      body: body.body,
      createdAt: at,
      updatedAt: at,
    };
    await this.#store.change(id, (comments) => {
      if (comments.length >= MAX_REVIEW_COMMENTS) {
        throw new CatalystError(
          'INVALID_ARGUMENT',
          `This idea has ${String(MAX_REVIEW_COMMENTS)} review comments: delete some before adding more.`,
        );
      }
      return Promise.resolve({ comments: [...comments, comment], answer: undefined });
    });
    await this.#changed(id, checkpoint.commit);
    const [view] = await this.#view(id, [comment]);
    return view ?? { ...comment, isStale: false };
  }

  async editReviewComment(
    id: string,
    commit: string,
    commentId: string,
    text: string,
  ): Promise<ReviewCommentView> {
    await this.#options.locate(id);
    const edited = await this.#store.change(id, (comments) => {
      const found = findComment(comments, commit, commentId);
      if (found.sentAt !== undefined) {
        throw new CatalystError(
          'REVIEW_COMMENT_SENT',
          'This comment was sent already: it is kept as it was.',
        );
      }
      const next = { ...found, body: text, updatedAt: this.#now() };
      return Promise.resolve({
        comments: comments.map((one) => (one.id === commentId ? next : one)),
        answer: next,
      });
    });
    await this.#changed(id, edited.commit);
    const [view] = await this.#view(id, [edited]);
    return view ?? { ...edited, isStale: false };
  }

  async deleteReviewComment(id: string, commit: string, commentId: string): Promise<void> {
    await this.#options.locate(id);
    await this.#store.change(id, (comments) => {
      findComment(comments, commit, commentId);
      return Promise.resolve({ comments: comments.filter((one) => one.id !== commentId), answer: undefined });
    });
    await this.#changed(id, commit);
  }

  /** Under the store's lock from reading to marking: two sends at once never send one comment twice. */
  async sendReview(id: string, commit: string): Promise<SendReviewResponse> {
    const { checkpoint, history } = await this.#checkpoint(id, commit);
    const review = await this.#store.change(id, async (comments) => {
      const unsent = comments.filter((one) => one.commit === checkpoint.commit && one.sentAt === undefined);
      if (unsent.length === 0) {
        throw new CatalystError('INVALID_ARGUMENT', 'This checkpoint has no comment that is not sent yet.');
      }
      const views = await this.#view(id, orderForReview(unsent));
      const message = composeReviewMessage({
        commit: checkpoint.commit,
        buildMessage: await this.#buildMessage(history, checkpoint),
        comments: views,
      });
      if (message.length > MAX_MESSAGE_CHARS) {
        throw new CatalystError(
          'INVALID_ARGUMENT',
          `This review is longer than a message may be (${String(MAX_MESSAGE_CHARS)} characters): send fewer or shorter comments.`,
        );
      }
      const sentTo = await this.#options.owners.of(id).send('build', message);
      const runId = 'runId' in sentTo ? sentTo.runId : undefined;
      const sent = { sentAt: this.#now(), ...(runId === undefined ? {} : { sentRunId: runId }) };
      const ids = new Set(unsent.map((one) => one.id));
      return {
        comments: comments.map((one) => (ids.has(one.id) ? { ...one, ...sent } : one)),
        answer: {
          message,
          ...(runId === undefined ? {} : { runId }),
          comments: views.map((view) => ({ ...view, ...sent })),
        },
      };
    });
    await this.#changed(id, checkpoint.commit);
    return review;
  }

  /**
   * Tells the pages showing the checkpoint's review (in the idea's history, so a page that reconnects hears it).
   * The change itself is made whatever comes of this: nothing for an idea being deleted, a failure only logged.
   */
  async #changed(id: string, commit: string): Promise<void> {
    if (this.#options.owners.of(id).isDeleting()) return;
    try {
      const history = await this.#options.histories.get(id);
      if (this.#options.owners.of(id).isDeleting()) return;
      history.append({ type: 'review:changed', ideaId: id, commit });
    } catch (error) {
      this.#options.logger.warn({ ideaId: id, err: error }, 'could not tell the pages of a review change');
    }
  }

  async #checkpoint(
    id: string,
    commit: string,
  ): Promise<{ checkpoint: CheckpointView; history: IdeaHistory }> {
    await this.#options.locate(id);
    const history = await this.#options.histories.get(id);
    return { checkpoint: await this.#options.checkpoints.find(history, commit), history };
  }

  /** The message of the build a checkpoint was made after (from its run:started), for the review's heading. */
  async #buildMessage(history: IdeaHistory, checkpoint: CheckpointView): Promise<string | undefined> {
    if (checkpoint.kind !== 'build' || checkpoint.runId === undefined) return undefined;
    return (await readRunView(history, checkpoint.runId))?.message;
  }

  /** The commented lines as the checkpoint has them (`new`), or its parent (`old`: lines the build deleted). */
  async #linesAt(
    id: string,
    history: IdeaHistory,
    checkpoint: CheckpointView,
    range: Pick<AddReviewCommentBody, 'path' | 'side' | 'startLine'> & { endLine: number },
  ): Promise<{ path: string; text: string[] }> {
    const parsed = parseProjectPath(range.path);
    if (!parsed.ok || parsed.path === '' || parsed.segments.includes('.git')) {
      const problem = parsed.ok ? 'it is not a file of the project' : parsed.problem;
      throw new CatalystError('INVALID_PATH', `That path cannot be commented on: ${problem}.`);
    }
    const commit = range.side === 'new' ? checkpoint.commit : checkpoint.parent;
    if (commit === null) {
      throw new CatalystError('INVALID_ARGUMENT', 'This checkpoint is the first: it deleted no lines.');
    }
    const file = await this.#options.checkpoints.fileAt(id, history, commit, parsed.path);
    const text = file.data === undefined ? undefined : decodeText(file.data);
    if (text === undefined) {
      throw new CatalystError('INVALID_ARGUMENT', `${parsed.path} is not a text file that can be quoted.`);
    }
    const all = splitFileLines(text);
    const lines = linesBetween(all, range.startLine, range.endLine);
    if (lines === undefined) {
      const which = range.side === 'new' ? 'at this checkpoint' : 'before this build';
      throw new CatalystError(
        'INVALID_ARGUMENT',
        `${parsed.path} has ${String(all.length)} lines ${which}: lines ${String(range.startLine)}-${String(range.endLine)} are not all there.`,
      );
    }
    if (lines.reduce((sum, line) => sum + line.length, 0) > MAX_QUOTED_CHARS) {
      throw new CatalystError(
        'INVALID_ARGUMENT',
        'Those lines are too long to quote: comment on fewer of them.',
      );
    }
    return { path: parsed.path, text: lines };
  }

  /** The comments with whether each is stale: every file they name read once, as it is now. */
  async #view(id: string, comments: readonly ReviewComment[]): Promise<ReviewCommentView[]> {
    const paths = [...new Set(comments.filter((one) => one.side === 'new').map((one) => one.path))];
    const nowByPath = new Map(
      await Promise.all(paths.map(async (path) => [path, await this.#linesNow(id, path)] as const)),
    );
    return comments.map((comment) => {
      const staleness = judgeStaleness(comment, nowByPath.get(comment.path));
      return { ...comment, ...staleness };
    });
  }

  /** The file's lines in `project/` now; undefined when it is gone, or no longer a text file. */
  async #linesNow(id: string, path: string): Promise<string[] | undefined> {
    try {
      const content = await this.#options.files.content(id, path, undefined);
      return 'text' in content ? splitFileLines(content.text) : undefined;
    } catch (error) {
      if (isCatalystError(error) && (error.code === 'PATH_NOT_FOUND' || error.code === 'INVALID_PATH')) {
        return undefined;
      }
      throw error;
    }
  }

  #now(): string {
    return (this.#options.now?.() ?? new Date()).toISOString();
  }
}

function findComment(comments: readonly ReviewComment[], commit: string, commentId: string): ReviewComment {
  const found = comments.find((one) => one.id === commentId && one.commit === commit);
  if (found === undefined) {
    throw new CatalystError(
      'REVIEW_COMMENT_NOT_FOUND',
      `There is no comment ${commentId} on this checkpoint.`,
    );
  }
  return found;
}

/** Git's test for a binary file (a NUL in its first 8,000 bytes), and valid UTF-8; undefined when it is not text. */
function decodeText(data: Buffer): string | undefined {
  if (data.subarray(0, 8_000).includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return undefined;
  }
}
