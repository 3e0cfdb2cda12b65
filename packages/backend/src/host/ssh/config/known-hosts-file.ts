import { CatalystError } from '../../../core/catalyst-error.ts';
import { describeHostKeyBlob } from './host-key-blob.ts';
import { parseHashedName, type HashedName } from './known-hosts-hash.ts';

/**
 * The known_hosts format as hostfile.c `hostkeys_foreach_file` reads it: `[@marker] names keytype base64 [comment]`,
 * `#` comments and blank lines. OpenSSH skips a bad line with a debug message nobody sees; here it is skipped too,
 * but reported with its file and line so a person learns why a key they added is not used.
 */

export type KnownHostsMarker = 'none' | 'cert-authority' | 'revoked';

export type KnownHostsNames =
  | { readonly kind: 'patterns'; readonly patterns: string }
  | { readonly kind: 'hashed'; readonly hashed: HashedName };

export interface KnownHostsLocation {
  readonly file: string;
  readonly line: number;
}

export interface KnownHostsEntry extends KnownHostsLocation {
  readonly marker: KnownHostsMarker;
  readonly names: KnownHostsNames;
  readonly keyType: string;
  readonly blob: Buffer;
  readonly comment: string;
}

export interface KnownHostsProblem extends KnownHostsLocation {
  readonly problem: string;
}

/** One file's contents and the name to report it by. Several are read in order: the user's, then global ones. */
export interface KnownHostsSource {
  readonly fileName: string;
  readonly text: string;
}

export interface KnownHosts {
  readonly entries: readonly KnownHostsEntry[];
  readonly problems: readonly KnownHostsProblem[];
}

const MARKERS = new Map<string, KnownHostsMarker>([
  ['@cert-authority', 'cert-authority'],
  ['@revoked', 'revoked'],
]);
/** check_markers copies the marker into a 32-byte buffer: "@" alone or 32 characters and more are invalid. */
const MAX_MARKER_LENGTH = 31;

export function parseKnownHosts(sources: readonly KnownHostsSource[]): KnownHosts {
  const entries: KnownHostsEntry[] = [];
  const problems: KnownHostsProblem[] = [];
  for (const { fileName, text } of sources) {
    // A CR of a CRLF file ends up inside the base64 word, which OpenSSH's decoder skips as white space.
    text.split('\n').forEach((raw, index) => {
      const at = { file: fileName, line: index + 1 };
      const parsed = parseLine(raw.replace(/\r$/, ''));
      if (typeof parsed === 'string') problems.push({ ...at, problem: parsed });
      else if (parsed !== undefined) entries.push({ ...at, ...parsed });
    });
  }
  return { entries, problems };
}

type ParsedLine = Omit<KnownHostsEntry, keyof KnownHostsLocation>;

/** The entry, undefined for a comment or blank line, or why the line is skipped. */
function parseLine(line: string): ParsedLine | string | undefined {
  const content = line.replace(/^[ \t]+/, '');
  if (content === '' || content.startsWith('#')) return undefined;
  const marked = readMarker(content);
  if (typeof marked === 'string') return marked;
  const [namesText, keyText] = splitWord(marked.rest);
  const names = parseNames(namesText);
  if (typeof names === 'string') return names;
  if (keyText === '' || keyText.startsWith('#')) return 'the line ends before the key type';
  const key = parseKey(keyText);
  if (typeof key === 'string') return key;
  return { marker: marked.marker, names, ...key };
}

/**
 * check_markers: one `@cert-authority` or `@revoked`, case-sensitive. Its quirk is kept: the marker ends at the
 * first space of the line, or at the first tab only when there is no space, so `@revoked<TAB>host key comment`
 * is an invalid marker for OpenSSH too.
 */
function readMarker(content: string): { marker: KnownHostsMarker; rest: string } | string {
  if (!content.startsWith('@')) return { marker: 'none', rest: content };
  const space = content.indexOf(' ');
  const end = space >= 0 ? space : content.indexOf('\t');
  const word = end < 0 ? content : content.slice(0, end);
  const marker = end > 1 && end <= MAX_MARKER_LENGTH ? MARKERS.get(word) : undefined;
  if (marker === undefined) return `${JSON.stringify(word.slice(0, 40))} is not @cert-authority or @revoked`;
  const rest = content.slice(end).replace(/^[ \t]+/, '');
  if (rest.startsWith('@')) return 'only one marker is allowed on a line';
  return { marker, rest };
}

function parseNames(text: string): KnownHostsNames | string {
  if (!text.startsWith('|')) return { kind: 'patterns', patterns: text };
  const hashed = parseHashedName(text);
  return typeof hashed === 'string' ? hashed : { kind: 'hashed', hashed };
}

/** sshkey_read: a type OpenSSH knows, then base64 of a blob of that same type, then an optional comment. */
function parseKey(text: string): Pick<KnownHostsEntry, 'keyType' | 'blob' | 'comment'> | string {
  const [keyType, afterType] = splitWord(text);
  const [encoded, comment] = splitWord(afterType);
  if (encoded === '') return `the ${keyType.slice(0, 60)} key has no base64 part`;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return 'the key is not base64';
  const blob = Buffer.from(encoded, 'base64');
  const description = describeHostKeyBlob(blob);
  if (typeof description === 'string') return description;
  if (description.keyType !== keyType) {
    return `the line says ${keyType.slice(0, 60)} but the key is ${description.keyType}`;
  }
  return { keyType, blob, comment };
}

/** The first word (up to a space or tab) and the rest, without the blanks between them. */
function splitWord(text: string): [string, string] {
  const match = /^([^ \t]*)[ \t]*(.*)$/s.exec(text);
  return [match?.[1] ?? '', match?.[2] ?? ''];
}

/**
 * Catalyst's own known_hosts line for a key a person confirmed: `name keytype base64`, the name as
 * computeKnownHostsName gives it. Plain rather than hashed: the file sits beside Catalyst's hosts file, which names
 * every host in clear already, so hashing would hide nothing and would stop a person from seeing which line to
 * delete when a VM is rebuilt. OpenSSH reads the line either way.
 */
export function renderKnownHostsLine(options: { name: string; blob: Buffer }): string {
  const { name, blob } = options;
  const description = describeHostKeyBlob(blob);
  if (typeof description === 'string') {
    throw new CatalystError('INVALID_ARGUMENT', `cannot write a known_hosts line: ${description}`);
  }
  if (!/^[^\s,*?!|@#]+$/.test(name)) {
    throw new CatalystError(
      'INVALID_ARGUMENT',
      `cannot write a known_hosts line for ${JSON.stringify(name)}: OpenSSH would read it as a pattern, a hash, a marker or a comment`,
      { details: { name } },
    );
  }
  return `${name} ${description.keyType} ${blob.toString('base64')}`;
}
