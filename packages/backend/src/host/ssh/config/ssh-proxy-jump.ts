import { isValidHostnameArg, isValidRemoteUser } from './ssh-command-line-names.ts';
import { invalidConfigError, type ConfigPosition } from './ssh-config-errors.ts';
import type { JumpState, OptionState } from './ssh-config-options.ts';
import { formatJumpSpec, parseJumpSpec, type JumpSpec } from './ssh-jump-spec.ts';
import type { ResolvedSshConfig } from './resolved-ssh-config.ts';

/**
 * ProxyJump as OpenSSH 9.2 reads it (readconf.c parse_jump) and follows it (ssh.c builds
 * `ssh [-l user] [-p port] [-J earlier,hops] -W [%h]:%p lasthop`): each hop is an ssh of its own.
 */

interface JumpLine {
  readonly isActive: boolean;
  readonly at: ConfigPosition | undefined;
  /** From the command line (`-J`): host and user names are checked for shell metacharacters. */
  readonly isStrict?: boolean;
}

/**
 * Applies one ProxyJump value. ProxyJump and ProxyCommand compete, whichever is obtained first winning; `none` only
 * blocks later ProxyJump lines. (Debian's 9.2p1 carries 10.3's rule here: stock 9.2 let a ProxyJump, even `none`,
 * block every later ProxyCommand, and the installed ssh -G says otherwise.)
 */
export function applyProxyJump(state: OptionState, raw: string, line: JumpLine): void {
  if (raw.toLowerCase() === 'none') {
    if (line.isActive && state.jump === undefined) state.jump = { kind: 'none' };
    return;
  }
  // parse_jump cuts at the first `#` anywhere, not only at the start of a word.
  const text = (raw.split('#')[0] ?? '').trimEnd();
  const specs = text.split(',').map(parseJumpSpec);
  const last = specs[specs.length - 1];
  if (last === undefined || specs.includes(undefined)) {
    throw invalidConfigError(line.at, `Invalid ProxyJump "${raw}"`);
  }
  if (line.isStrict === true)
    refuseUnsafeHops(
      specs.filter((spec) => spec !== undefined),
      raw,
    );
  if (!line.isActive || state.proxyCommand !== undefined || state.jump !== undefined) return;
  const comma = text.lastIndexOf(',');
  state.jump = { kind: 'hops', last, earlier: comma > 0 ? text.slice(0, comma) : undefined };
  // As in ssh: a ProxyJump stores ProxyCommand "none", so no later ProxyCommand line applies.
  state.proxyCommand = { value: 'none', at: line.at };
}

function refuseUnsafeHops(specs: readonly JumpSpec[], raw: string): void {
  for (const spec of specs) {
    if (!isValidHostnameArg(spec.host) || (spec.user !== undefined && !isValidRemoteUser(spec.user))) {
      throw invalidConfigError(undefined, `Invalid ProxyJump "${raw}": invalid host or user name`);
    }
  }
}

/** The ProxyJump value as `ssh -G` prints it, or undefined for none. */
export function formatProxyJump(jump: JumpState | undefined): string | undefined {
  if (jump === undefined || jump.kind === 'none') return undefined;
  return `${jump.earlier === undefined ? '' : `${jump.earlier},`}${formatJumpSpec(jump.last)}`;
}

/** The hops of a ProxyJump value, first hop first; [] for `none`. Throws SSH_CONFIG_INVALID for a bad hop. */
export function parseProxyJump(value: string): JumpSpec[] {
  if (value.toLowerCase() === 'none') return [];
  return value.split(',').map((piece) => {
    const spec = parseJumpSpec(piece);
    if (spec === undefined) throw invalidConfigError(undefined, `Invalid ProxyJump "${value}"`);
    return spec;
  });
}

/** What a hop's own `ssh` is given on its command line, which wins over its config like -l, -p and -J. */
export interface HopOverrides {
  readonly user?: string;
  readonly port?: number;
  /** The hops before this one, as `-J`: it overrides the hop's own ProxyJump and ProxyCommand. */
  readonly proxyJump?: string;
}
export type ResolveHop = (alias: string, overrides: HopOverrides) => Promise<ResolvedSshConfig>;

/**
 * The hosts to go through to reach `target`, in dialling order: the first is reached directly or by its own
 * ProxyCommand, each next one through the one before. Each hop is resolved as its own alias (its Host and Match
 * blocks, User, IdentityFile, known_hosts); only the first hop's own ProxyJump applies, recursively.
 */
export async function expandJumpChain(
  target: ResolvedSshConfig,
  resolveHop: ResolveHop,
): Promise<ResolvedSshConfig[]> {
  return expandFrom(target, resolveHop, []);
}

async function expandFrom(
  target: ResolvedSshConfig,
  resolveHop: ResolveHop,
  visiting: readonly string[],
): Promise<ResolvedSshConfig[]> {
  if (target.proxyJump === undefined) return [];
  const specs = parseProxyJump(target.proxyJump);
  const hops: ResolvedSshConfig[] = [];
  for (const [index, spec] of specs.entries()) {
    const key = formatJumpSpec(spec);
    if (visiting.includes(key)) throw invalidConfigError(undefined, `jump host loop via ${spec.host}`);
    const earlier = specs.slice(0, index).map(formatJumpSpec).join(',');
    hops.push(await resolveHop(spec.host, toOverrides(spec, earlier)));
  }
  const first = hops[0];
  if (first === undefined) return [];
  const keys = specs.map(formatJumpSpec);
  const before = await expandFrom(first, resolveHop, [...visiting, ...keys]);
  return [...before, ...hops];
}

function toOverrides(spec: JumpSpec, earlier: string): HopOverrides {
  return {
    ...(spec.user === undefined ? {} : { user: spec.user }),
    ...(spec.port === undefined ? {} : { port: spec.port }),
    ...(earlier === '' ? {} : { proxyJump: earlier }),
  };
}
