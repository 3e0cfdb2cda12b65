import { z } from 'zod';

/**
 * Previews (issue 14): a dev server of the idea's project, started by Catalyst on the idea's host (`previewCommand`
 * in `project/`, listening on `previewPort` there), and served to the browser through Catalyst on a port of its own,
 * behind a credential of its own (a one-time link that sets a cookie for that preview only).
 */

export const PreviewStateSchema = z.enum(['stopped', 'starting', 'running', 'crashed']);
export type PreviewState = z.infer<typeof PreviewStateSchema>;

export const PREVIEW_COMMAND_MAX = 2_000;
/** A shell command line, run with `/bin/sh -c` in `project/`. One line: no newline, no NUL. */
export const PreviewCommandSchema = z
  .string()
  .trim()
  .min(1)
  .max(PREVIEW_COMMAND_MAX)
  .regex(/^[^\n\r\0]*$/, 'one line, without control characters');
export const PreviewPortSchema = z.number().int().min(1).max(65_535);

/** The lines of output `lastOutput` holds at most. */
export const PREVIEW_LAST_LINES = 30;

/** A preview Catalyst proposes from the project's files (`package.json` scripts, `pyproject.toml`). */
export const PreviewSuggestionSchema = z.strictObject({
  command: PreviewCommandSchema,
  port: PreviewPortSchema,
  /** Where it was found, for the person: `package.json script "dev"`. */
  source: z.string().max(200),
});
export type PreviewSuggestion = z.infer<typeof PreviewSuggestionSchema>;

/** How an app's answer forbade showing it in Catalyst's frame: its `X-Frame-Options`, or CSP `frame-ancestors`. */
export const FramingRefusalSchema = z.enum(['x-frame-options', 'frame-ancestors']);
export type FramingRefusal = z.infer<typeof FramingRefusalSchema>;

/** The pages of a preview loaded in a frame, as its server passed them on (issue 31). */
export const PreviewFrameSchema = z.strictObject({
  /** The latest page's path and query, as requested. */
  path: z.string().max(2_048),
  /** How many pages were loaded in a frame so far: a newer answer than the one a person saw counts higher. */
  loads: z.number().int().nonnegative(),
  /** The latest page forbade being shown in Catalyst's frame. */
  refusal: FramingRefusalSchema.optional(),
});
export type PreviewFrame = z.infer<typeof PreviewFrameSchema>;

/** `GET /api/ideas/:id/preview`, and the answer of start and stop. */
export const PreviewViewSchema = z.strictObject({
  state: PreviewStateSchema,
  /** meta.json's `previewCommand`; null until set. */
  command: z.string().nullable(),
  port: PreviewPortSchema.nullable(),
  /**
   * While running: a fresh one-time link (each answer makes a new one, valid for a minute) that sets the
   * preview's own cookie and redirects to the preview's root.
   */
  url: z.string().optional(),
  /** Where Catalyst serves the preview (`http://127.0.0.1:41234`), while it runs. */
  origin: z.string().optional(),
  /**
   * While running, when the preview has a name of its own (`p-….localhost`, Catalyst reached on loopback): a fresh
   * one-time link for the Preview tab's frame (issue 31). It sets the preview's cookie Partitioned, for Catalyst's
   * page alone; `to` (a path) is where it then goes, `/` by default. Absent when the preview cannot be framed.
   */
  frameUrl: z.string().optional(),
  /** What the preview's server saw of its pages loaded in a frame, once one was. */
  frame: PreviewFrameSchema.optional(),
  /** When the state began. */
  since: z.iso.datetime().optional(),
  /** The last lines the command printed (stdout and stderr), e.g. why it crashed. */
  lastOutput: z.array(z.string()).optional(),
  /** A crashed command's exit: its code, or the signal that ended it. */
  exit: z.strictObject({ code: z.number().int().nullable(), signal: z.string().nullable() }).optional(),
  /** Only while no command is set: what the project's files propose. */
  suggestion: PreviewSuggestionSchema.optional(),
});
export type PreviewView = z.infer<typeof PreviewViewSchema>;

/** `GET /api/ideas/:id/preview/log`: what the command printed, up to the newest 256 KiB. */
export const PreviewLogResponseSchema = z.strictObject({ text: z.string(), isCut: z.boolean() });
export type PreviewLogResponse = z.infer<typeof PreviewLogResponseSchema>;

/** A TCP port a process of the idea (its running run, or its preview) listens on, on the idea's host. */
export const ListeningPortSchema = z.strictObject({
  port: PreviewPortSchema,
  /** `run`: a process the running run started; `preview`: the preview command's. */
  source: z.enum(['run', 'preview']),
});
export type ListeningPort = z.infer<typeof ListeningPortSchema>;

/** `GET /api/ideas/:id/preview/ports`. */
export const ListeningPortsResponseSchema = z.strictObject({ ports: z.array(ListeningPortSchema) });
export type ListeningPortsResponse = z.infer<typeof ListeningPortsResponseSchema>;

/** `POST /api/ideas/:id/preview/ports/:port/link`: a one-time link to a preview of that port. */
export const PreviewLinkResponseSchema = z.strictObject({ url: z.string(), origin: z.string() });
export type PreviewLinkResponse = z.infer<typeof PreviewLinkResponseSchema>;
