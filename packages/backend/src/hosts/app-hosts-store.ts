import { appendFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pino, type Logger } from 'pino';
import { writeFileAtomically } from '../service/atomic-file.ts';
import { parseOwnJsonFile, readOwnFile } from '../service/own-json-file.ts';
import { z } from 'zod';
import {
  HostClaudePathSchema,
  HostIdeasRootSchema,
  HostNameSchema,
  HostTargetSchema,
} from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import type { HostEntry } from '../host/host-entry.ts';
import { listSshConfigAliases } from '../host/ssh/config/ssh-config-import.ts';
import { resolveSshConfig } from '../host/ssh/config/ssh-config-resolve.ts';
import type { SshConfigSources } from '../host/ssh/config/ssh-config-sources.ts';
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

  readonly #logger: Logger;

  /** `logger`: where a damaged file's warning goes. */
  constructor(path: string, logger: Logger = pino({ level: 'silent' })) {
    this.#path = path;
    this.#logger = logger;
  }

  /** The file's hosts; none when it does not exist, or when it was damaged and set aside (own-json-file.ts). */
  async read(): Promise<AppHostsFile> {
    const file = await parseOwnJsonFile({
      path: this.#path,
      text: await readOwnFile(this.#path),
      schema: AppHostsFileSchema,
      what: 'the hosts added in the app',
      logger: this.#logger,
    });
    return file ?? { version: 1, hosts: [] };
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

/** A bare word must be a Host of the config; the config must resolve it (an error names file and line). */
export async function checkHostTarget(
  text: string,
  where: { sources: SshConfigSources; configFile?: string },
): Promise<void> {
  const target = parseHostTarget(text);
  const configFile = where.configFile === undefined ? {} : { configFile: where.configFile };
  if (isBareAlias(target)) {
    const aliases = await listSshConfigAliases(where.sources, configFile);
    if (!aliases.includes(target.alias)) {
      const some = aliases.slice(0, 8).join(', ');
      throw new CatalystError(
        'INVALID_ARGUMENT',
        `${target.alias} is not a Host of ~/.ssh/config${some === '' ? '' : ` (it has ${some})`}: type user@host[:port] for a host that is not there.`,
      );
    }
  }
  await resolveSshConfig(target.alias, where.sources, {
    ...configFile,
    overrides: {
      ...(target.user === undefined ? {} : { user: target.user }),
      ...(target.port === undefined ? {} : { port: target.port }),
    },
  });
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
