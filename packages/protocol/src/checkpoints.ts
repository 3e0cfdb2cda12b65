import { z } from 'zod';

/**
 * Checkpoints and the project's files (issue 13). Every build run ends with a commit of the idea's `project/` in
 * git on its host (a checkpoint); a person reads what a build changed, and restores the project to any checkpoint,
 * which is itself a new commit (history is never rewritten). The files of `project/` can be listed and read, now or
 * at a checkpoint.
 */

/** A full commit id: 40 hex digits (SHA-1), or 64 (a SHA-256 repository). */
export const CommitIdSchema = z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/, 'not a full commit id');

export const FileChangeStatusSchema = z.enum([
  'added',
  'modified',
  'deleted',
  'renamed',
  'copied',
  'type_changed',
]);

export const CheckpointFileSchema = z.strictObject({
  path: z.string(),
  /** The path before a rename or copy. */
  from: z.string().optional(),
  status: FileChangeStatusSchema,
  insertions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  binary: z.literal(true).optional(),
});
export type CheckpointFile = z.infer<typeof CheckpointFileSchema>;

/** A checkpoint names at most this many files; `filesChanged` counts them all. */
export const MAX_CHECKPOINT_FILES = 500;

/**
 * Why the commit was made: after a build run (`build`), of what the folder held before a build when it differs from
 * the last checkpoint (`before_build`: the idea's first build, changes made outside a build), of changes made
 * outside a build before a restore (`before_restore`), or a restore itself.
 */
export const CheckpointKindSchema = z.enum(['build', 'before_build', 'before_restore', 'restore']);
export type CheckpointKind = z.infer<typeof CheckpointKindSchema>;

/**
 * What a checkpoint changed, against `parent`: the checkpoint before it (null for the first), which is also what
 * "Restore to before this build" restores. When Claude made commits of its own during the build, they lie between
 * the two, and the change counts cover them too.
 */
export const CheckpointChangeSchema = z.strictObject({
  commit: CommitIdSchema,
  parent: CommitIdSchema.nullable(),
  kind: CheckpointKindSchema,
  filesChanged: z.number().int().nonnegative(),
  insertions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  files: z.array(CheckpointFileSchema).max(MAX_CHECKPOINT_FILES),
  /** A restore: the checkpoint the project was restored to. */
  restoredTo: CommitIdSchema.optional(),
});
export type CheckpointChange = z.infer<typeof CheckpointChangeSchema>;

export const CheckpointViewSchema = CheckpointChangeSchema.extend({
  /** The build run it was made after (or before, for `before_build`); absent for restores. */
  runId: z.string().optional(),
  createdAt: z.iso.datetime(),
});
export type CheckpointView = z.infer<typeof CheckpointViewSchema>;

/** `GET /api/ideas/:id/checkpoints`: newest first. */
export const CheckpointListResponseSchema = z.object({ checkpoints: z.array(CheckpointViewSchema) });

/** A diff is cut after this many bytes, with `truncated`. */
export const MAX_DIFF_BYTES = 2 * 1024 * 1024;

/** `GET /api/ideas/:id/checkpoints/:commit/diff`: a unified diff against the checkpoint's parent. */
export const CheckpointDiffResponseSchema = z.object({
  commit: CommitIdSchema,
  parent: CommitIdSchema.nullable(),
  diff: z.string(),
  truncated: z.boolean(),
});
export type CheckpointDiffResponse = z.infer<typeof CheckpointDiffResponseSchema>;

/** `POST /api/ideas/:id/checkpoints/:commit/restore`: the new commit the restore made. */
export const CheckpointRestoreResponseSchema = z.object({ checkpoint: CheckpointViewSchema });

export const FileEntryTypeSchema = z.enum(['file', 'directory', 'other']);

/** `GET /api/ideas/:id/files?path=`: a directory of `project/`, `.git` left out, directories first. */
export const FileListResponseSchema = z.object({
  path: z.string(),
  entries: z.array(
    z.object({
      name: z.string(),
      type: FileEntryTypeSchema,
      size: z.number().int().nonnegative(),
      modified: z.iso.datetime(),
    }),
  ),
});
export type FileListResponse = z.infer<typeof FileListResponseSchema>;

/** A file's text is served up to this many bytes; a larger file answers with `tooLarge`. */
export const MAX_FILE_TEXT_BYTES = 1024 * 1024;

/** `GET /api/ideas/:id/files/content?path=&at=`: the file now, or at a checkpoint. */
export const FileContentResponseSchema = z.union([
  z.object({ path: z.string(), size: z.number().int().nonnegative(), text: z.string() }),
  z.object({ path: z.string(), size: z.number().int().nonnegative(), tooLarge: z.literal(true) }),
  z.object({ path: z.string(), size: z.number().int().nonnegative(), binary: z.literal(true) }),
]);
export type FileContentResponse = z.infer<typeof FileContentResponseSchema>;

/** `GET /api/ideas/:id/files/history?path=`: the checkpoints that changed a file, newest first. */
export const FileHistoryResponseSchema = z.object({
  path: z.string(),
  checkpoints: z.array(CheckpointViewSchema),
});
