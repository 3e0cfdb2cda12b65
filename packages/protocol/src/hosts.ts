import { z } from 'zod';

/**
 * Hosts managed in the app (issue 28): added by the alias a person's `ssh` already knows (`devbox`) or as
 * `user@host[:port]`, checked step by step, a new host key confirmed by its fingerprint, removed. Hosts from
 * CATALYST_CONFIG_FILE are listed too, read-only.
 */

export const HOST_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;
export const HostNameSchema = z
  .string()
  .regex(
    HOST_NAME_PATTERN,
    'must be 1–63 lower-case letters, digits and dashes, starting with a letter or digit',
  );

/** `devbox` (a Host of ~/.ssh/config) or `user@host`, `user@host:2222`, `user@[::1]:2222`. */
export const HostTargetSchema = z
  .string()
  .trim()
  .min(1)
  .max(300)
  .regex(
    /^[^\s'"`$;&|<>\\]+$/,
    'must be an alias from ~/.ssh/config or user@host[:port], without spaces or quotes',
  );

/** `~/…` means the host user's home. */
export const HostIdeasRootSchema = z
  .string()
  .regex(/^(~|\/)/, 'must be absolute or start with ~/ (the host user’s home)')
  .refine((root) => !root.split('/').includes('..'), 'must not contain .. segments')
  .refine((root) => !root.includes('\0'), 'must not contain NUL');

export const HostClaudePathSchema = z.string().startsWith('/', 'must be an absolute path').max(1000);

export const AddHostBodySchema = z.strictObject({
  name: HostNameSchema,
  target: HostTargetSchema,
  ideasRoot: HostIdeasRootSchema.optional(),
  claudePath: HostClaudePathSchema.optional(),
  /** New ideas go to this host unless they name another. */
  isDefault: z.boolean().optional(),
});
export type AddHostBody = z.infer<typeof AddHostBodySchema>;

export const UpdateHostBodySchema = z.strictObject({
  target: HostTargetSchema.optional(),
  ideasRoot: HostIdeasRootSchema.optional(),
  /** null: found on the host, as for a new host. */
  claudePath: HostClaudePathSchema.nullable().optional(),
  /** Only `true`: a host stops being the default when another becomes it. */
  isDefault: z.literal(true).optional(),
});
export type UpdateHostBody = z.infer<typeof UpdateHostBodySchema>;

export const HostSourceSchema = z.enum(['app', 'file', 'builtin']);
export type HostSource = z.infer<typeof HostSourceSchema>;

/** A host as configured (not checked): where it is, where it came from, whether the app may change it. */
export const HostEntryViewSchema = z.object({
  name: z.string(),
  kind: z.enum(['local', 'ssh']),
  /** For a host added in the app: the alias or user@host[:port] it was added as. */
  target: z.string().optional(),
  /**
   * `app`: added here, kept in Catalyst's config dir; `file`: from CATALYST_CONFIG_FILE; `builtin`: this machine, the
   * host Catalyst makes when no CATALYST_CONFIG_FILE is set.
   */
  source: HostSourceSchema,
  isDefault: z.boolean(),
  ideasRoot: z.string(),
  claudePath: z.string().optional(),
});
export type HostEntryView = z.infer<typeof HostEntryViewSchema>;
export const HostEntryResponseSchema = z.object({ host: HostEntryViewSchema });

/** The steps of a host's check, in the order they run; a failed step skips the ones after it. */
export const HostCheckStepIdSchema = z.enum([
  'resolve',
  'connect',
  'host-key',
  'auth',
  'claude',
  'login',
  'tools',
  'disk',
]);
export type HostCheckStepId = z.infer<typeof HostCheckStepIdSchema>;

export const HostCheckStepSchema = z.object({
  id: HostCheckStepIdSchema,
  status: z.enum(['ok', 'warning', 'failed', 'skipped']),
  /** What was found, in a sentence: "through bastion (ops@10.0.0.1:22)", "claude 2.1.332 at /usr/bin/claude". */
  detail: z.string(),
  /** What to do next, in one sentence, when the step failed or warns. */
  fix: z.string().optional(),
});
export type HostCheckStep = z.infer<typeof HostCheckStepSchema>;

/** The key a host presented that no known_hosts holds: what a person compares with the VM's console. */
export const PresentedHostKeySchema = z.object({
  fingerprint: z.string(),
  keyType: z.string(),
  /** The name it is confirmed for: `host`, `[host]:port` or the HostKeyAlias. */
  knownHostsName: z.string(),
  /** Which machine presented it, as a label: the host itself, or a jump host on the way to it. */
  hop: z.string(),
  /** True when `hop` is a jump host (ProxyJump) on the way: the key is compared on that machine's console. */
  isJump: z.boolean().optional(),
});
export type PresentedHostKey = z.infer<typeof PresentedHostKeySchema>;

export const HostCheckViewSchema = z.object({
  name: z.string(),
  /** Every step ok or warning: runs can start. */
  isReady: z.boolean(),
  steps: z.array(HostCheckStepSchema),
  /** Set when the host-key step failed on a key known nowhere: confirm it with `POST …/trust`. */
  unknownHostKey: PresentedHostKeySchema.optional(),
  /** What of the person's ssh_config Catalyst does not honour, in sentences. */
  ignored: z.array(z.string()),
  checkedAt: z.string(),
});
export type HostCheckView = z.infer<typeof HostCheckViewSchema>;
export const HostCheckResponseSchema = z.object({ check: HostCheckViewSchema });

/** A fingerprint as `ssh-keygen -lf` prints it, or as a person pastes it from the VM's console. */
export const TrustHostKeyBodySchema = z.strictObject({ fingerprint: z.string().trim().min(1).max(200) });
export type TrustHostKeyBody = z.infer<typeof TrustHostKeyBodySchema>;

export const DeleteHostQuerySchema = z.strictObject({
  /** The host still holds ideas: remove it anyway (they stay on the VM and come back if it is added again). */
  confirm: z.enum(['true']).optional(),
});

export const SshAliasesResponseSchema = z.object({
  /** Concrete Host names of ~/.ssh/config (wildcards left out), in file order. */
  aliases: z.array(z.string()),
  /** Set when ~/.ssh/config could not be read, in words. */
  problem: z.string().optional(),
});
export type SshAliasesResponse = z.infer<typeof SshAliasesResponseSchema>;

/** `GET /api/hosts/:name`: the host as configured and its last check, if one ran (no connection is made). */
export const HostDetailResponseSchema = z.object({
  host: HostEntryViewSchema,
  lastCheck: HostCheckViewSchema.nullable(),
});
export type HostDetailResponse = z.infer<typeof HostDetailResponseSchema>;

/**
 * The one rule for a host's name from what it is reached by (the page's suggestion and `catalyst hosts add` without
 * --name), in the form a host name takes: `devbox` → `devbox`, `Dev_Box` → `dev-box`, `me@vm.example.com:2222` →
 * `vm` (a DNS name by its first label), `me@10.0.0.5` → `10-0-0-5`. A name already taken gets `-2`, `-3`, …; empty
 * when nothing usable is left.
 */
export function suggestHostName(target: string, taken: readonly string[] = []): string {
  const base = hostNameSlug(machineNameOf(target.trim()));
  if (base === '') return '';
  if (!taken.includes(base)) return base;
  for (let suffix = 2; ; suffix += 1) {
    const candidate = `${base.slice(0, 62 - String(suffix).length)}-${String(suffix)}`;
    if (!taken.includes(candidate)) return candidate;
  }
}

/** The machine of a target; a DNS name after `user@` by its first label, an IPv4 address whole. */
function machineNameOf(target: string): string {
  const machine = machineOfTarget(target);
  if (!target.includes('@') || /^[\d.]+$/.test(machine)) return machine;
  return machine.split('.')[0] ?? machine;
}

/**
 * What names a host's machine in a target: the host of `user@host[:port]` (an IPv6 address without its brackets),
 * an alias as it is. For a name to suggest, never to connect by (the backend reads a target as ssh does).
 */
function machineOfTarget(target: string): string {
  const afterUser = target.slice(target.lastIndexOf('@') + 1);
  if (afterUser.startsWith('[')) {
    const end = afterUser.indexOf(']');
    return afterUser.slice(1, end === -1 ? undefined : end);
  }
  return afterUser.replace(/:\d*$/, '');
}

/** A text in the form a host's name takes (lower-case letters, digits, dashes, at most 63); '' when none is left. */
function hostNameSlug(text: string): string {
  const slug = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return HOST_NAME_PATTERN.test(slug) ? slug : '';
}
