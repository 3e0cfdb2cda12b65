import { readFileSync } from 'node:fs';
import { z } from 'zod';
// A host's name, ideas root and claude path: one definition each, with the app's host routes (protocol hosts.ts).
import { HostClaudePathSchema as ClaudePathSchema, HostNameSchema } from '@catalyst/protocol';
import { isCatalystError } from '../core/catalyst-error.ts';
import { SafeIdeasRootSchema as IdeasRootSchema } from '../core/ideas-root-rules.ts';
import { parseKnownHostsLine } from '../host/ssh/host-key-pin.ts';

/**
 * The optional JSON file named by CATALYST_CONFIG_FILE: the hosts Catalyst may run on. Ours, so strict: an
 * unknown key is a typo to report, not something to ignore.
 */

const knownHostsLine = z.string().superRefine((line, ctx) => {
  try {
    parseKnownHostsLine(line);
  } catch (error) {
    ctx.addIssue({
      code: 'custom',
      message: isCatalystError(error) ? error.message : 'is not a known_hosts line',
    });
  }
});

const LocalHostFileSchema = z.strictObject({
  name: HostNameSchema,
  kind: z.literal('local'),
  claudePath: ClaudePathSchema.optional(),
  ideasRoot: IdeasRootSchema.optional(),
});

/**
 * An SSH host, given either by its alias in ~/.ssh/config (`sshAlias`: address, user, keys, jump hosts and
 * known_hosts as `ssh <alias>` has them; `user` and `port` here win like `ssh -l`/`-p`) or field by field (address,
 * user, privateKeyPath and hostKey, the key pinned).
 */
const SshHostFileSchema = z
  .strictObject({
    name: HostNameSchema,
    kind: z.literal('ssh'),
    sshAlias: z
      .string()
      .regex(/^[^\s'"`$;&|<>\\]{1,255}$/, 'must be a Host alias of ~/.ssh/config')
      .optional(),
    /** Like `ssh -F`: another file than ~/.ssh/config; `~/` is expanded by loadConfig. */
    sshConfigFile: z
      .string()
      .regex(/^(~\/|\/)/, 'must be absolute or start with ~/')
      .optional(),
    address: z
      .string()
      .regex(/^[^\s/]{1,255}$/, 'must be a host name or an IP address')
      .optional(),
    port: z.int().min(1).max(65_535).optional(),
    user: z
      .string()
      .regex(/^[^\s]{1,64}$/, 'must be a user name without spaces')
      .optional(),
    /** On the machine that runs Catalyst; `~/` is expanded by loadConfig. */
    privateKeyPath: z
      .string()
      .regex(/^(~\/|\/)/, 'must be absolute or start with ~/')
      .optional(),
    /** One known_hosts line, as `ssh-keyscan` prints it: Catalyst never trusts a key on first use. */
    hostKey: knownHostsLine.optional(),
    claudePath: ClaudePathSchema.optional(),
    ideasRoot: IdeasRootSchema.optional(),
  })
  .superRefine((host, ctx) => {
    const fields = ['address', 'user', 'privateKeyPath', 'hostKey'] as const;
    if (host.sshAlias !== undefined) {
      for (const field of ['address', 'privateKeyPath'] as const) {
        if (host[field] !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: [field],
            message: `comes from ~/.ssh/config when sshAlias is set`,
          });
      }
      return;
    }
    if (host.sshConfigFile !== undefined)
      ctx.addIssue({ code: 'custom', path: ['sshConfigFile'], message: 'needs sshAlias' });
    for (const field of fields) {
      if (host[field] === undefined)
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: 'is required without sshAlias (or name the host by its ~/.ssh/config alias with sshAlias)',
        });
    }
  });

export const ConfigFileSchema = z
  .strictObject({
    hosts: z
      .array(z.discriminatedUnion('kind', [LocalHostFileSchema, SshHostFileSchema]))
      .min(1)
      .max(64),
    /** The host new ideas go to when none is named; the first host when absent. */
    defaultHost: HostNameSchema.optional(),
  })
  .refine((file) => new Set(file.hosts.map((host) => host.name)).size === file.hosts.length, {
    message: 'host names must be unique',
    path: ['hosts'],
    when: (payload) => payload.issues.length === 0,
  })
  .refine(
    (file) => file.defaultHost === undefined || file.hosts.some((host) => host.name === file.defaultHost),
    {
      message: 'must name one of the hosts',
      path: ['defaultHost'],
      when: (payload) => payload.issues.length === 0,
    },
  );

export type ConfigFile = z.output<typeof ConfigFileSchema>;
export type ConfigFileHost = ConfigFile['hosts'][number];

export type ReadTextFile = (path: string) => string;

export const readTextFile: ReadTextFile = (path) => readFileSync(path, 'utf8');

/** The file's JSON, or a sentence saying why it could not be read; the schema judges the content. */
export function readConfigFile(
  path: string,
  readFile: ReadTextFile,
): { ok: true; value: unknown } | { ok: false; problem: string } {
  let text: string;
  try {
    text = readFile(path);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, problem: `CATALYST_CONFIG_FILE: cannot read ${path}: ${reason}` };
  }
  try {
    const value: unknown = JSON.parse(text);
    return { ok: true, value };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, problem: `CATALYST_CONFIG_FILE: ${path} is not valid JSON: ${reason}` };
  }
}
