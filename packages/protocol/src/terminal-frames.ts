import { z } from 'zod';
import { ErrorCodeSchema } from './error-codes.ts';
import { IdeaIdSchema } from './idea.ts';

/**
 * The terminal's WebSocket at `/ws/terminal` (issue 31): one socket per terminal, behind the same login and origin
 * check as `/ws`. Text frames are JSON, parsed with these schemas; binary frames are the terminal's bytes (the
 * person's keys from the client, the pty's output from the server). The client's first frame opens a new terminal
 * on an idea or attaches to one by its id; until then a binary frame is refused.
 */

export const TERMINAL_WS_PATH = '/ws/terminal';
export const MAX_TERMINAL_COLS = 1_000;
export const MAX_TERMINAL_ROWS = 1_000;
/** A client's binary frame is at most this long; a larger one is refused with an error frame (the page splits pastes). */
export const MAX_TERMINAL_INPUT_BYTES = 64 * 1024;
/** How many terminals an idea may have open at once. */
export const MAX_TERMINALS_PER_IDEA = 8;

export const TerminalIdSchema = z.string().regex(/^term-[a-f0-9]{32}$/);

const cols = z.int().min(1).max(MAX_TERMINAL_COLS);
const rows = z.int().min(1).max(MAX_TERMINAL_ROWS);

export const TerminalClientFrameSchema = z.discriminatedUnion('type', [
  /** A new shell on the idea's host, in its `project/`, of this window size. */
  z.strictObject({ type: z.literal('open'), ideaId: IdeaIdSchema, cols, rows }),
  /**
   * The terminal again after a dropped socket: its recent output is sent first, then what comes. The idea it belongs
   * to comes with its id: a terminal of another idea is TERMINAL_NOT_FOUND, as an unknown one is.
   */
  z.strictObject({
    type: z.literal('attach'),
    ideaId: IdeaIdSchema,
    terminalId: TerminalIdSchema,
    cols,
    rows,
  }),
  /** The window changed (the pty's window change). */
  z.strictObject({ type: z.literal('resize'), cols, rows }),
  /** Ends the shell and every process it started. */
  z.strictObject({ type: z.literal('close') }),
  /**
   * The client cannot take more output for now (`paused`), or can again: meanwhile the server reads no more of the
   * shell's output for this socket, as when the socket is behind, so the shell's writes wait on the host (`catalyst
   * shell … | slow-reader`). The socket itself is still read (input, pongs). Starts unpaused on every socket.
   */
  z.strictObject({ type: z.literal('flow'), paused: z.boolean() }),
]);
export type TerminalClientFrame = z.infer<typeof TerminalClientFrameSchema>;

export const TerminalEndReasonSchema = z.enum([
  /** The shell exited (`exit`, Ctrl-D). */
  'exited',
  /** Someone closed it (this page, another, or the CLI). */
  'closed',
  /** Its idea was deleted. */
  'idea_deleted',
  /** No client came back to it in time after its socket dropped. */
  'detached',
  /** The connection to the host went. */
  'lost',
  /** Catalyst stopped. */
  'shutdown',
]);
export type TerminalEndReason = z.infer<typeof TerminalEndReasonSchema>;

export const TerminalServerFrameSchema = z.discriminatedUnion('type', [
  /** The terminal is this socket's: `isReattached` when it was attached again (its recent output follows). */
  z.strictObject({
    type: z.literal('ready'),
    terminalId: TerminalIdSchema,
    ideaId: IdeaIdSchema,
    cwd: z.string(),
    isReattached: z.boolean(),
  }),
  /** The shell has ended; the server closes the socket after this frame. */
  z.strictObject({
    type: z.literal('ended'),
    terminalId: TerminalIdSchema,
    reason: TerminalEndReasonSchema,
    exitCode: z.int().nullable(),
    message: z.string(),
  }),
  /** A frame that could not be served (an unknown terminal, a bad frame); `open`/`attach` errors close the socket. */
  z.strictObject({ type: z.literal('error'), code: ErrorCodeSchema, message: z.string() }),
]);
export type TerminalServerFrame = z.infer<typeof TerminalServerFrameSchema>;

/** `GET /api/ideas/:id/terminals`: how many terminals the idea has open, in any tab or the CLI (the delete dialog). */
export const TerminalCountSchema = z.strictObject({ open: z.int().min(0) });
export type TerminalCount = z.infer<typeof TerminalCountSchema>;
