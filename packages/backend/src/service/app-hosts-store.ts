import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomically } from './atomic-file.ts';
import { z } from 'zod';
import {
  HostClaudePathSchema,
  HostIdeasRootSchema,
  HostNameSchema,
  HostTargetSchema,
} from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import type { HostEntry } from '../host/host-entry.ts';
import { parseJumpSpec } from '../host/ssh/config/ssh-jump-spec.ts';

/**
 * The hosts added in the app (issue 28), kept in Catalyst's config dir as `added-hosts.json` (0600, written whole and
 * renamed into place, so a crash leaves the old file or the new one): read at start, written on every change. The
 * keys a person confirmed go to `known_hosts` beside it (0600), never into their own ~/.ssh/known_hosts.
 */

export const AppHostRecordSchema = z.strictObject({
  name: HostNameSchema,
  target: HostTargetSchema,
  ideasRoot: HostIdeasRootSchema.optional(),
  claudePath: HostClaudePathSchema.optional(),
});
export type AppHostRecord = z.infer<typeof AppHostRecordSchema>;

const AppHostsFileSchema = z.strictObject({
  version: z.literal(1),
  hosts: z.array(AppHostRecordSchema).max(64),
  defaultHost: HostNameSchema.optional(),
});
export type AppHostsFile = z.infer<typeof AppHostsFileSchema>;

export class AppHostsStore {
  readonly #path: string;
  #saving: Promise<void> = Promise.resolve();

  constructor(path: string) {
    this.#path = path;
  }

  /** The file's hosts; none when it does not exist. CONFIG_INVALID, naming the file, when it is not ours. */
  async read(): Promise<AppHostsFile> {
    let text: string;
    try {
      text = await readFile(this.#path, 'utf8');
    } catch (error) {
      if (typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT')
        return { version: 1, hosts: [] };
      throw error;
    }
    const parsed = AppHostsFileSchema.safeParse(safeJson(text));
    if (!parsed.success) {
      throw new CatalystError(
        'CONFIG_INVALID',
        `${this.#path} is not a hosts file Catalyst wrote: ${z.prettifyError(parsed.error)}`,
      );
    }
    return parsed.data;
  }

  save(file: AppHostsFile): Promise<void> {
    const body = `${JSON.stringify(file, null, 2)}\n`;
    const saving = this.#saving.catch(() => undefined).then(() => writeFileAtomically(this.#path, body));
    this.#saving = saving;
    return saving;
  }
}

/** Catalyst's own known_hosts, in its config dir: where the keys a person confirmed go, for every SSH host. */
export function catalystKnownHostsPath(configDir: string): string {
  return join(configDir, 'known_hosts');
}

/** Adds a confirmed key to Catalyst's own known_hosts (0600), one line, appended. */
export async function appendKnownHost(path: string, line: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await appendFile(path, `${line}\n`, { mode: 0o600 });
}

/** `devbox`, `dev@devbox`, `dev@10.0.0.5:2222`, `ssh://dev@[::1]:2222`: the alias ssh resolves, and -l/-p. */
export interface HostTarget {
  readonly alias: string;
  readonly user?: string;
  readonly port?: number;
}

export function parseHostTarget(text: string): HostTarget {
  const spec = parseJumpSpec(text.trim());
  if (spec === undefined) {
    throw new CatalystError(
      'INVALID_ARGUMENT',
      `${JSON.stringify(text.slice(0, 100))} is neither an alias of ~/.ssh/config nor user@host[:port].`,
    );
  }
  return {
    alias: spec.host,
    ...(spec.user === undefined ? {} : { user: spec.user }),
    ...(spec.port === undefined ? {} : { port: spec.port }),
  };
}

/** A typed target names a host outright; a bare word must be one of the config's aliases. */
export function isBareAlias(target: HostTarget): boolean {
  return target.user === undefined && target.port === undefined;
}

export interface AppHostDefaults {
  readonly ideasRoot: string;
  readonly claudePath?: string;
  /** CATALYST_SSH_CONFIG_FILE: like `ssh -F`. */
  readonly sshConfigFile?: string;
}

export function entryOfAppHost(record: AppHostRecord, defaults: AppHostDefaults): HostEntry {
  const target = parseHostTarget(record.target);
  const claudePath = record.claudePath ?? defaults.claudePath;
  return {
    name: record.name,
    kind: 'ssh',
    addedAs: record.target,
    connect: {
      via: 'ssh-config',
      ...target,
      ...(defaults.sshConfigFile === undefined ? {} : { configFile: defaults.sshConfigFile }),
    },
    ideasRoot: record.ideasRoot ?? defaults.ideasRoot,
    ...(claudePath === undefined ? {} : { claudePath }),
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
