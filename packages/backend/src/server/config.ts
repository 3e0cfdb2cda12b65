import { isIP } from 'node:net';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { ModelNameSchema } from '@catalyst/protocol';
import { DEFAULT_QA_MODEL } from '../runs/core/auto-answer.ts';
import { CatalystError } from '../core/catalyst-error.ts';
import { SafeIdeasRootSchema as IdeasRootSchema } from '../core/ideas-root-rules.ts';
import { DEFAULT_MAX_RUN_MS } from '../core/run-wrapper.ts';
import type { HostEntry, LocalHostEntry, SshConnectEntry, SshHostEntry } from '../host/host-entry.ts';
import { DEFAULT_LEASE_MS } from '../host/wrapped-run.ts';
import { PushServiceListSchema } from '../push/push-services.ts';
import { DEFAULT_WARM_PER_HOST } from '../runs/warm-sessions.ts';
import { HostClaudePathSchema as ClaudePathSchema } from '@catalyst/protocol';
import {
  ConfigFileSchema,
  readConfigFile,
  readTextFile,
  type ConfigFile,
  type ConfigFileHost,
  type ReadTextFile,
} from './config-file.ts';
import { formatIssuePath } from '../core/issue-summary.ts';
import { TokenSchema } from '../auth/token-file.ts';

export { resolveToken, type ResolvedToken } from '../auth/token-file.ts';

/**
 * Catalyst's configuration: one zod schema over the environment and the optional hosts file, parsed once at
 * start-up. Every problem is reported at once; a value that is present but wrong is an error, never replaced
 * by its default. The token never appears in an error message (zod's messages do not quote the input).
 */

/** Only these count as loopback: anything else is reachable from elsewhere and needs an explicit token. */
export const LOOPBACK_BINDS: ReadonlySet<string> = new Set(['127.0.0.1', '::1', 'localhost']);
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DEFAULT_PORT = 7433;
export const DEFAULT_IDEAS_ROOT = '~/catalyst/ideas';
/** CATALYST_DETACHED_LIMIT_MS: long enough for a laptop lid closed over lunch or a server update. */
export const DEFAULT_DETACHED_LIMIT_MS = 30 * 60_000;
/** CATALYST_WARM_IDLE_MS: a conversation's pauses, not a night. */
export const DEFAULT_WARM_IDLE_MS = 10 * 60_000;
/** CATALYST_SESSION_DAYS: a browser's login lasts a month, then the login link or the token is asked again. */
export const DEFAULT_SESSION_DAYS = 30;

/** An empty value is reported as such (abort: one clear sentence rather than every check failing). */
const present = z.string().min(1, { message: 'is set but empty; unset it or give it a value', abort: true });

function wholeNumber(options: { min: number; max: number; fallback: number }) {
  return present
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.int().min(options.min).max(options.max))
    .default(options.fallback);
}

const HOST_NAME =
  /^(?=.{1,253}$)[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*$/;
const BindSchema = present.refine(
  (bind) => isIP(bind) !== 0 || HOST_NAME.test(bind),
  'must be an IP address or a host name',
);

/** A path on this machine; `~/` is expanded later, a relative path resolved against the working directory. */
const LocalPathSchema = present.refine((path) => !path.includes('\0'), 'must not contain NUL');

const OriginListSchema = present.transform((list, ctx) => {
  const origins = list.split(',').map((origin) => origin.trim().toLowerCase());
  for (const origin of origins) {
    if (!URL.canParse(origin) || new URL(origin).origin !== origin) {
      ctx.addIssue({
        code: 'custom',
        message: `"${origin.slice(0, 100)}" is not an origin like https://catalyst.example:8443 (scheme, host, optional port; no path)`,
      });
    }
  }
  return origins;
});

/**
 * Where people open Catalyst when a reverse proxy terminates TLS in front of it: an http(s) origin, optionally with
 * a trailing `/` (the app lives at the root, so no path). Its scheme decides whether the login cookie is Secure.
 */
const PublicUrlSchema = present.transform((value, ctx) => {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  const isOrigin =
    url !== undefined &&
    ['http:', 'https:'].includes(url.protocol) &&
    `${url.origin}/` === url.href &&
    !value.endsWith('?') &&
    !value.endsWith('#');
  if (!isOrigin) {
    ctx.addIssue({
      code: 'custom',
      message: `"${value.slice(0, 100)}" is not a URL like https://catalyst.example.com (http or https, host, optional port; no path)`,
    });
    return z.NEVER;
  }
  return url.origin;
});

const EnvSchema = z
  .object({
    CATALYST_BIND: BindSchema.default('127.0.0.1'),
    CATALYST_PORT: wholeNumber({ min: 0, max: 65_535, fallback: DEFAULT_PORT }),
    CATALYST_TOKEN: TokenSchema.optional(),
    CATALYST_CONFIG_DIR: LocalPathSchema.optional(),
    CATALYST_CONFIG_FILE: LocalPathSchema.optional(),
    /** Like `ssh -F`: the ssh_config for hosts added in the app; ~/.ssh/config then /etc/ssh/ssh_config otherwise. */
    CATALYST_SSH_CONFIG_FILE: LocalPathSchema.optional(),
    CATALYST_IDEAS_ROOT: present.pipe(IdeasRootSchema).default(DEFAULT_IDEAS_ROOT),
    CATALYST_CLAUDE_PATH: present.pipe(ClaudePathSchema).optional(),
    CLAUDE_TIMEOUT_MS: wholeNumber({ min: 1_000, max: 24 * 60 * 60_000, fallback: 600_000 }),
    CATALYST_MAX_RUN_MS: wholeNumber({ min: 1_000, max: 7 * 24 * 60 * 60_000, fallback: DEFAULT_MAX_RUN_MS }),
    /** A turn with no Catalyst attached (connection lost, Catalyst stopped) is stopped on the VM after this long. */
    CATALYST_DETACHED_LIMIT_MS: wholeNumber({
      min: 10_000,
      max: 7 * 24 * 60 * 60_000,
      fallback: DEFAULT_DETACHED_LIMIT_MS,
    }),
    /**
     * A session on the VM counts its Catalyst gone after this long without a heartbeat (a third of it apart); the
     * detached limit runs from then. Shorter finds a lost Catalyst sooner and costs more heartbeats. At most 5 min:
     * the start-up sweep takes a run whose heartbeat is 10 min old for one nobody follows (SWEEP_STALE_MS).
     */
    CATALYST_LEASE_MS: wholeNumber({ min: 1_000, max: 5 * 60_000, fallback: DEFAULT_LEASE_MS }),
    /** A session waits this long for the idea's next turn, then its claude exits. */
    CATALYST_WARM_IDLE_MS: wholeNumber({ min: 1_000, max: 24 * 60 * 60_000, fallback: DEFAULT_WARM_IDLE_MS }),
    /** How many sessions wait for a next turn per host (0: none; every turn starts its own claude). */
    CATALYST_WARM_PER_HOST: wholeNumber({ min: 0, max: 1_000, fallback: DEFAULT_WARM_PER_HOST }),
    CATALYST_LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
    /** The small model that answers Claude's questions for ideas with questionPolicy auto / human_then_auto. */
    CATALYST_QA_MODEL: present.pipe(ModelNameSchema).default(DEFAULT_QA_MODEL),
    CATALYST_QA_TIMEOUT_MS: wholeNumber({ min: 1_000, max: 60 * 60_000, fallback: 60_000 }),
    CATALYST_CHECKPOINT_TIMEOUT_MS: wholeNumber({ min: 1_000, max: 60 * 60_000, fallback: 60_000 }),
    CATALYST_PREVIEW_IDLE_MS: wholeNumber({ min: 1_000, max: 30 * 24 * 3_600_000, fallback: 3_600_000 }),
    /** The longest one file call may wait for an SSH host (issue 25); host/ssh/sftp-client.ts has the default. */
    CATALYST_FILE_TIMEOUT_MS: present
      .regex(/^\d+$/, 'must be a whole number')
      .transform(Number)
      .pipe(
        z
          .int()
          .min(100)
          .max(10 * 60_000),
      )
      .optional(),
    /** A browser's session ends this many days after its login (issue 25). */
    CATALYST_SESSION_DAYS: wholeNumber({ min: 1, max: 3_650, fallback: DEFAULT_SESSION_DAYS }),
    /** Browser origins allowed besides the app's own (e.g. a dev server, a reverse proxy's public name). */
    CATALYST_ALLOWED_ORIGINS: OriginListSchema.optional(),
    /** The https URL of a reverse proxy in front of Catalyst: Secure cookie, its origin allowed, the printed link. */
    CATALYST_PUBLIC_URL: PublicUrlSchema.optional(),
    /** Push services' hosts (or `*.suffix`) taken besides the known ones (issue 39): push-services.ts. */
    CATALYST_PUSH_SERVICES: PushServiceListSchema.optional(),
  })
  .refine((env) => LOOPBACK_BINDS.has(env.CATALYST_BIND) || env.CATALYST_TOKEN !== undefined, {
    message:
      'binding an address other than loopback (127.0.0.1, ::1, localhost) makes Catalyst reachable from other machines, so CATALYST_TOKEN must be set explicitly',
    path: ['CATALYST_BIND'],
    when: (payload) =>
      !payload.issues.some((issue) => ['CATALYST_BIND', 'CATALYST_TOKEN'].includes(String(issue.path?.[0]))),
  });

/** The one schema: the environment, and the hosts file's JSON when there is one. */
export const ConfigSourcesSchema = z.object({ env: EnvSchema, file: ConfigFileSchema.optional() });

export type { HostEntry, LocalHostEntry, SshHostEntry };

export interface Config {
  readonly bind: string;
  readonly port: number;
  /** Only when set explicitly; otherwise resolveToken() reads or creates `<configDir>/token`. Never log it. */
  readonly token?: string;
  readonly configDir: string;
  readonly allowedOrigins: readonly string[];
  /** CATALYST_PUBLIC_URL, an origin without a trailing `/`; the login link and the cookie's Secure follow it. */
  readonly publicUrl?: string;
  /** CATALYST_PUSH_SERVICES: push services' hosts taken besides the known ones. */
  readonly pushServices?: readonly string[];
  readonly hosts: readonly HostEntry[];
  readonly defaultHost: string;
  readonly ideasRoot: string;
  readonly claudePath?: string;
  /** CATALYST_SSH_CONFIG_FILE: the ssh_config hosts added in the app are resolved with (`ssh -F`). */
  readonly sshConfigFile?: string;
  readonly claudeTimeoutMs: number;
  readonly maxRunMs: number;
  readonly detachedLimitMs: number;
  /** CATALYST_LEASE_MS: how long a session waits for a heartbeat before it counts its Catalyst gone. */
  readonly leaseMs: number;
  readonly warmIdleMs: number;
  /** CATALYST_CHECKPOINT_TIMEOUT_MS: the longest a checkpoint's git may take (a build's end waits for it). */
  readonly checkpointTimeoutMs: number;
  /** CATALYST_PREVIEW_IDLE_MS: a preview nobody has used for this long is stopped. */
  readonly previewIdleMs: number;
  /** CATALYST_FILE_TIMEOUT_MS, when set: the longest one file call may wait for an SSH host. */
  readonly fileTimeoutMs?: number;
  /** CATALYST_SESSION_DAYS: a browser session ends this many days after its login. */
  readonly sessionDays: number;
  readonly warmPerHost: number;
  readonly qa: { readonly model: string; readonly timeoutMs: number };
  readonly logLevel: LogLevel;
}

export interface LoadConfigOptions {
  /** This machine's home, for `~/` in local paths and the default config dir. */
  homeDir?: string;
  cwd?: string;
  readFile?: ReadTextFile;
}

/** Throws CONFIG_INVALID listing every problem (one per line, in `details.problems` too). */
export function loadConfig(env: NodeJS.ProcessEnv, options: LoadConfigOptions = {}): Config {
  const places = { homeDir: options.homeDir ?? homedir(), cwd: options.cwd ?? process.cwd() };
  const problems: string[] = [];
  const filePath = env.CATALYST_CONFIG_FILE ? toLocalPath(env.CATALYST_CONFIG_FILE, places) : undefined;
  let file: unknown;
  if (filePath !== undefined) {
    const read = readConfigFile(filePath, options.readFile ?? readTextFile);
    if (read.ok) file = read.value;
    else problems.push(read.problem);
  }
  const parsed = ConfigSourcesSchema.safeParse({ env, file });
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      problems.push(describeConfigIssue(issue, filePath ?? 'config file'));
  }
  if (!parsed.success || problems.length > 0) throw configError(problems);
  return toConfig(parsed.data, places);
}

function describeConfigIssue(issue: z.core.$ZodIssue, filePath: string): string {
  const [source, ...rest] = issue.path;
  const where = formatIssuePath(rest);
  if (source === 'env') return `${where}: ${issue.message}`;
  return `${filePath}${where === '' ? '' : ` ${where}`}: ${issue.message}`;
}

function configError(problems: readonly string[]): CatalystError {
  const count = problems.length === 1 ? 'a problem' : `${problems.length} problems`;
  return new CatalystError(
    'CONFIG_INVALID',
    `Catalyst's configuration has ${count}:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`,
    { details: { problems: [...problems] } },
  );
}

type Sources = z.output<typeof ConfigSourcesSchema>;
interface Places {
  homeDir: string;
  cwd: string;
}

function toConfig({ env, file }: Sources, places: Places): Config {
  const hosts = toHosts(file, env, places);
  const first = hosts[0];
  if (first === undefined) throw new CatalystError('CONFIG_INVALID', 'no host is configured');
  return {
    bind: env.CATALYST_BIND,
    port: env.CATALYST_PORT,
    ...(env.CATALYST_TOKEN === undefined ? {} : { token: env.CATALYST_TOKEN }),
    configDir: toLocalPath(env.CATALYST_CONFIG_DIR ?? '~/.config/catalyst', places),
    allowedOrigins: env.CATALYST_ALLOWED_ORIGINS ?? [],
    ...(env.CATALYST_PUBLIC_URL === undefined ? {} : { publicUrl: env.CATALYST_PUBLIC_URL }),
    ...(env.CATALYST_PUSH_SERVICES === undefined ? {} : { pushServices: env.CATALYST_PUSH_SERVICES }),
    hosts,
    defaultHost: file?.defaultHost ?? first.name,
    ideasRoot: env.CATALYST_IDEAS_ROOT,
    ...(env.CATALYST_CLAUDE_PATH === undefined ? {} : { claudePath: env.CATALYST_CLAUDE_PATH }),
    ...(env.CATALYST_SSH_CONFIG_FILE === undefined
      ? {}
      : { sshConfigFile: toLocalPath(env.CATALYST_SSH_CONFIG_FILE, places) }),
    claudeTimeoutMs: env.CLAUDE_TIMEOUT_MS,
    maxRunMs: env.CATALYST_MAX_RUN_MS,
    detachedLimitMs: env.CATALYST_DETACHED_LIMIT_MS,
    leaseMs: env.CATALYST_LEASE_MS,
    warmIdleMs: env.CATALYST_WARM_IDLE_MS,
    checkpointTimeoutMs: env.CATALYST_CHECKPOINT_TIMEOUT_MS,
    previewIdleMs: env.CATALYST_PREVIEW_IDLE_MS,
    ...(env.CATALYST_FILE_TIMEOUT_MS === undefined ? {} : { fileTimeoutMs: env.CATALYST_FILE_TIMEOUT_MS }),
    sessionDays: env.CATALYST_SESSION_DAYS,
    warmPerHost: env.CATALYST_WARM_PER_HOST,
    qa: { model: env.CATALYST_QA_MODEL, timeoutMs: env.CATALYST_QA_TIMEOUT_MS },
    logLevel: env.CATALYST_LOG_LEVEL,
  };
}

/** Without a file, one `local` host; a host's own ideasRoot and claudePath win over the global ones. */
function toHosts(file: ConfigFile | undefined, env: Sources['env'], places: Places): HostEntry[] {
  const hosts: ConfigFileHost[] = file?.hosts ?? [{ name: 'local', kind: 'local' }];
  const isBuiltIn = file?.hosts === undefined;
  return hosts.map((host) => {
    const claudePath = host.claudePath ?? env.CATALYST_CLAUDE_PATH;
    const shared = {
      name: host.name,
      ideasRoot: host.ideasRoot ?? env.CATALYST_IDEAS_ROOT,
      ...(claudePath === undefined ? {} : { claudePath }),
    };
    if (host.kind === 'local') return { ...shared, kind: 'local', ...(isBuiltIn ? { isBuiltIn } : {}) };
    return { ...shared, kind: 'ssh', connect: toConnectEntry(host, places) };
  });
}

/** The schema has checked which fields are there (config-file.ts): an alias, or all four fields. */
function toConnectEntry(host: Extract<ConfigFileHost, { kind: 'ssh' }>, places: Places): SshConnectEntry {
  const { address, user, privateKeyPath, hostKey } = host;
  if (host.sshAlias !== undefined) {
    return {
      via: 'ssh-config',
      alias: host.sshAlias,
      ...(host.sshConfigFile === undefined ? {} : { configFile: toLocalPath(host.sshConfigFile, places) }),
      ...(user === undefined ? {} : { user }),
      ...(host.port === undefined ? {} : { port: host.port }),
      ...(hostKey === undefined ? {} : { hostKey }),
    };
  }
  if (address === undefined || user === undefined || privateKeyPath === undefined || hostKey === undefined) {
    throw new CatalystError(
      'CONFIG_INVALID',
      `host ${host.name}: set sshAlias, or address, user, privateKeyPath and hostKey`,
    );
  }
  const path = toLocalPath(privateKeyPath, places);
  return { via: 'fields', address, port: host.port ?? 22, user, privateKeyPath: path, hostKey };
}

function toLocalPath(path: string, places: Places): string {
  if (path === '~') return places.homeDir;
  if (path.startsWith('~/')) return join(places.homeDir, path.slice(2));
  return resolve(places.cwd, path);
}

/** The configuration as it may be logged: everything but the token, which is only said to be set or not. */
export function describeConfig(config: Config): Record<string, unknown> {
  const { token, hosts, ...rest } = config;
  return {
    ...rest,
    token: token === undefined ? 'from the token file' : 'set by CATALYST_TOKEN',
    hosts: hosts.map((host) =>
      host.kind === 'local'
        ? `${host.name} (local)`
        : host.connect.via === 'fields'
          ? `${host.name} (ssh ${host.connect.user}@${host.connect.address}:${host.connect.port})`
          : `${host.name} (ssh ${host.connect.alias} from ${host.connect.configFile ?? '~/.ssh/config'})`,
    ),
  };
}
