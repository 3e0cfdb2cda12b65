/**
 * One ProxyJump hop, `[user@]host[:port]` or `ssh://[user@]host[:port]`, parsed as OpenSSH 9.2 does
 * (misc.c parse_user_host_port, parse_uri, hpdelim2, cleanhostname, valid_domain).
 */
export interface JumpSpec {
  readonly user: string | undefined;
  readonly host: string;
  readonly port: number | undefined;
}

/** a2port for numbers: 1–65535 (0 is refused by every caller). Service names (/etc/services) are not looked up. */
export function parsePortNumber(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65_535 ? port : undefined;
}

interface HostSplit {
  readonly host: string;
  readonly delimiter: ':' | '/' | undefined;
  readonly tail: string | undefined;
}

/** hpdelim2: a bracketed IPv6 host, or up to the first `:` or `/`. */
function splitHost(text: string): HostSplit | undefined {
  let end: number;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) return undefined;
    end = close + 1;
  } else {
    const found = text.search(/[:/]/);
    end = found < 0 ? text.length : found;
  }
  if (end === text.length) return { host: text, delimiter: undefined, tail: undefined };
  const char = text.charAt(end);
  if (char !== ':' && char !== '/') return undefined;
  return { host: text.slice(0, end), delimiter: char, tail: text.slice(end + 1) };
}

function cleanHostname(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** misc.c valid_domain without lowercasing: ssh:// hosts must look like a DNS name (so no IPv6 in 9.2). */
function isValidDomain(name: string): boolean {
  return /^[A-Za-z0-9]/.test(name) && !name.includes('..') && /^[A-Za-z0-9._-]+$/.test(name);
}

/** misc.c urldecode: `+` is a space, `%XX` a byte; a bad escape makes the URI invalid. */
function decodeUrl(text: string): string | undefined {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const char = text.charAt(i);
    if (char !== '%') {
      out += char === '+' ? ' ' : char;
      continue;
    }
    const hex = text.slice(i + 1, i + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return undefined;
    out += String.fromCharCode(parseInt(hex, 16));
    i += 2;
  }
  return out;
}

/** parse_uri("ssh", …) refusing a path, as parse_ssh_uri does. */
function parseSshUri(text: string): JumpSpec | undefined {
  let rest = text.slice('ssh://'.length);
  let user: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    // Connection parameters after `;` are ignored, as in OpenSSH.
    const info = rest.slice(0, at).split(';')[0] ?? '';
    user = info === '' ? undefined : decodeUrl(info);
    if (user === undefined) return undefined;
    rest = rest.slice(at + 1);
  }
  const split = splitHost(rest);
  if (split === undefined || split.host === '') return undefined;
  const host = cleanHostname(split.host);
  if (!isValidDomain(host)) return undefined;
  let tail = split.tail;
  let port: number | undefined;
  if (tail !== undefined && tail !== '' && split.delimiter === ':') {
    const slash = tail.indexOf('/');
    port = parsePortNumber(slash < 0 ? tail : tail.slice(0, slash));
    if (port === undefined) return undefined;
    tail = slash < 0 ? undefined : tail.slice(slash + 1);
  }
  if (tail !== undefined && tail !== '') return undefined;
  return { user, host, port };
}

/** parse_user_host_port: the user is up to the last `@`; no `/` allowed after the host. */
function parseUserHostPort(text: string): JumpSpec | undefined {
  const at = text.lastIndexOf('@');
  const user = at < 0 ? undefined : text.slice(0, at);
  if (user === '') return undefined;
  const split = splitHost(at < 0 ? text : text.slice(at + 1));
  if (split === undefined || split.delimiter === '/' || split.host === '') return undefined;
  let port: number | undefined;
  if (split.tail !== undefined && split.tail !== '') {
    port = parsePortNumber(split.tail);
    if (port === undefined) return undefined;
  }
  return { user, host: cleanHostname(split.host), port };
}

/** One hop; undefined when OpenSSH would call the ProxyJump invalid. */
export function parseJumpSpec(text: string): JumpSpec | undefined {
  return text.startsWith('ssh://') ? parseSshUri(text) : parseUserHostPort(text);
}

/** How `ssh -G` prints a hop: an address (a `:` or only digits and dots) in brackets. */
export function formatJumpSpec(spec: JumpSpec): string {
  const isAddress = spec.host.includes(':') || /^[0-9.]*$/.test(spec.host);
  const host = isAddress ? `[${spec.host}]` : spec.host;
  return `${spec.user === undefined ? '' : `${spec.user}@`}${host}${spec.port === undefined ? '' : `:${spec.port}`}`;
}
