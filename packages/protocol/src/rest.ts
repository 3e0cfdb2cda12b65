import { z } from 'zod';
import { ErrorCodeSchema } from './error-codes.ts';
import { IdeaViewSchema } from './idea.ts';
import { HostSourceSchema } from './hosts.ts';
import { RelayEventSchema } from './relay-events.ts';

/**
 * The REST answers under /api, as a client parses them. Lists are wrapped so a response can grow fields; an
 * error is always `{ error: { code, message } }` with a sentence for a person.
 */

export const ApiErrorBodySchema = z.object({
  /** `runId`: the run a RUN_IN_PROGRESS refusal is about; `ideaCount`: how many ideas HOST_HAS_IDEAS's host holds. */
  error: z.object({
    code: ErrorCodeSchema,
    message: z.string(),
    runId: z.string().optional(),
    ideaCount: z.int().min(0).optional(),
  }),
});
export type ApiErrorBody = z.infer<typeof ApiErrorBodySchema>;

export const IdeaListResponseSchema = z.object({ ideas: z.array(IdeaViewSchema) });
export const IdeaResponseSchema = z.object({ idea: IdeaViewSchema });
export const EventsResponseSchema = z.object({ events: z.array(RelayEventSchema) });

/** A host's preflight (`GET /api/hosts`): whether its claude was found, which version, and what is missing. */
export const PreflightSchema = z.object({
  /** Absolute path of the claude binary, or undefined when none was found. */
  claudePath: z.string().optional(),
  /**
   * How it was found: the configured path, `command -v`, a usual install location, the login shell's PATH, or (the
   * machine that runs Catalyst only) the CLI this project installed.
   */
  foundVia: z.enum(['config', 'path', 'known-location', 'login-shell', 'bundled']).optional(),
  /** `claude --version`, when it ran. */
  version: z.string().optional(),
  /** The PATH the wrapper runs with. */
  path: z.string(),
  /** Whether the host has what the run wrapper and its sessions need (/bin/sh, /proc, setsid, mkfifo, flock, tail, …). */
  canRunWrapper: z.boolean(),
  problems: z.array(z.string()),
  /** What works less well, though runs work: no git means builds are not checkpointed (issue 13). */
  warnings: z.array(z.string()).optional(),
});
export type PreflightView = z.infer<typeof PreflightSchema>;

export const HostHealthSchema = z.object({
  name: z.string(),
  label: z.string(),
  isDefault: z.boolean(),
  /** As HostEntryView's (hosts.ts): `app`, `file` (CATALYST_CONFIG_FILE) or `builtin` (no file: this machine). */
  source: HostSourceSchema.optional(),
  /** For a host added in the app: the alias or user@host[:port] it was added as. */
  target: z.string().optional(),
  /** Where its ideas live (`~/` the host user's home), and the claude path configured for it, if one is. */
  ideasRoot: z.string().optional(),
  claudePath: z.string().optional(),
  reachable: z.boolean(),
  preflight: PreflightSchema.optional(),
  error: z.string().optional(),
  /**
   * The host's last full check, when one ran since the start (the Check button, `catalyst hosts check`, the check
   * after adding it): reachable is not ready when, say, its claude is not logged in (issue 40).
   */
  lastCheck: z
    .object({
      isReady: z.boolean(),
      checkedAt: z.string(),
      /** The steps that failed, each as `<step>: <what was found>`. */
      failed: z.array(z.string()),
    })
    .optional(),
});
export type HostHealthView = z.infer<typeof HostHealthSchema>;
export const HostsResponseSchema = z.object({ hosts: z.array(HostHealthSchema) });

/**
 * `POST /login` (not under /api: it is how a browser gets in). The token goes in the body, never in a URL a proxy
 * logs; the answer is the page's half of the session, the other half being the HttpOnly cookie it sets.
 */
export const LoginBodySchema = z.strictObject({ token: z.string().min(1).max(1024) });
export type LoginBody = z.infer<typeof LoginBodySchema>;
/** The page presents its key in this header on HTTP, and as the subprotocol `<prefix><key>` on the WebSocket. */
export const SESSION_KEY_HEADER = 'x-catalyst-key';
export const SESSION_KEY_PROTOCOL_PREFIX = 'catalyst-key.';
export const LoginResponseSchema = z.object({ key: z.string().min(1).max(200) });
export type LoginResponse = z.infer<typeof LoginResponseSchema>;

/**
 * A signed-in browser (issue 25), as `GET /api/sessions` lists it: never its cookie or key, only an id of its own
 * for `DELETE /api/sessions/:id`, a name from its user agent ("Chrome on Linux"), when it logged in, when it was last
 * seen (to the minute) and when it ends (CATALYST_SESSION_DAYS after its login). `current`: the session making
 * the request; `paired`: it logged in through a pairing code (a phone that scanned the QR code), not the token.
 */
export const BROWSER_SESSION_ID_SOURCE = 'session-[0-9a-f]{16}';
export const BrowserSessionIdSchema = z.string().regex(new RegExp(`^${BROWSER_SESSION_ID_SOURCE}$`));
export const BrowserSessionViewSchema = z.object({
  id: BrowserSessionIdSchema,
  name: z.string().min(1).max(100),
  createdAt: z.iso.datetime(),
  lastSeenAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  current: z.boolean(),
  paired: z.boolean(),
});
export type BrowserSessionView = z.infer<typeof BrowserSessionViewSchema>;
/** Newest login first. */
export const BrowserSessionListResponseSchema = z.object({ sessions: z.array(BrowserSessionViewSchema) });
export type BrowserSessionListResponse = z.infer<typeof BrowserSessionListResponseSchema>;
