import { hostNameSlug, machineOfTarget } from '@catalyst/protocol';

/**
 * A name for a host from what it is reached by, in the form a host name takes (lower-case letters, digits and
 * dashes): `devbox` → `devbox`, `Dev_Box` → `dev-box`, `me@vm.example.com:2222` → `vm`, `me@10.0.0.5` →
 * `10-0-0-5`. A name already taken gets `-2`, `-3`, …; empty when nothing usable is left.
 */
export function suggestHostName(target: string, taken: readonly string[] = []): string {
  const base = hostNameSlug(machineOf(target.trim()));
  if (base === '') return '';
  if (!taken.includes(base)) return base;
  for (let suffix = 2; ; suffix += 1) {
    const candidate = `${base.slice(0, 62 - String(suffix).length)}-${String(suffix)}`;
    if (!taken.includes(candidate)) return candidate;
  }
}

/** The machine of a target; a DNS name after `user@` by its first label, an IPv4 address whole. */
function machineOf(target: string): string {
  const machine = machineOfTarget(target);
  if (!target.includes('@') || /^[\d.]+$/.test(machine)) return machine;
  return machine.split('.')[0] ?? machine;
}
