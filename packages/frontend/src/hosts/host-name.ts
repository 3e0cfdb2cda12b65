import { HOST_NAME_PATTERN } from '@catalyst/protocol';

/**
 * A name for a host from what it is reached by, in the form a host name takes (lower-case letters, digits and
 * dashes): `devbox` → `devbox`, `Dev_Box` → `dev-box`, `me@vm.example.com:2222` → `vm`, `me@10.0.0.5` →
 * `10-0-0-5`. A name already taken gets `-2`, `-3`, …; empty when nothing usable is left.
 */
export function suggestHostName(target: string, taken: readonly string[] = []): string {
  const base = slugOf(machineOf(target.trim()));
  if (base === '') return '';
  if (!taken.includes(base)) return base;
  for (let suffix = 2; ; suffix += 1) {
    const candidate = `${base.slice(0, 62 - String(suffix).length)}-${String(suffix)}`;
    if (!taken.includes(candidate)) return candidate;
  }
}

/** The machine part of `user@host[:port]` (an IPv6 address inside brackets); an alias as it is. */
function machineOf(target: string): string {
  const afterUser = target.slice(target.lastIndexOf('@') + 1);
  if (afterUser.startsWith('[')) {
    const end = afterUser.indexOf(']');
    return afterUser.slice(1, end === -1 ? undefined : end);
  }
  const host = afterUser.replace(/:\d*$/, '');
  if (!target.includes('@')) return host;
  // A DNS name is named by its first label; an IPv4 address keeps every part.
  return /^[\d.]+$/.test(host) ? host : (host.split('.')[0] ?? host);
}

function slugOf(text: string): string {
  const slug = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return HOST_NAME_PATTERN.test(slug) ? slug : '';
}
