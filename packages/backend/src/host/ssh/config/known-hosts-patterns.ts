/**
 * OpenSSH's match.c as known_hosts uses it: `match_pattern` (`*` and `?`, nothing else; `[` is a literal) and
 * `match_hostname`, which lowercases both sides and reads a comma list where `!pattern` vetoes the whole list.
 * A minimal private port for known_hosts only; the ssh_config resolver carries its own full one (to be merged).
 */

/** OpenSSH copies each subpattern into a 1024-byte buffer and gives up on the whole list when one does not fit. */
const MAX_SUBPATTERN_LENGTH = 1023;

export type PatternListMatch = 'matched' | 'negated' | 'none';

/**
 * `match_hostname(host, patterns)`: `negated` when a `!` pattern matches (a veto, whatever else matches),
 * `matched` when a plain one does, `none` otherwise. Empty elements (`a,,b`) match only the empty name.
 */
export function matchHostnamePatterns(host: string, patterns: string): PatternListMatch {
  const name = lowercaseAscii(host);
  let hasPositive = false;
  for (const element of patterns.split(',')) {
    const isNegated = element.startsWith('!');
    const pattern = lowercaseAscii(isNegated ? element.slice(1) : element);
    if (pattern.length >= MAX_SUBPATTERN_LENGTH) return 'none';
    if (!matchPattern(name, pattern)) continue;
    if (isNegated) return 'negated';
    hasPositive = true;
  }
  return hasPositive ? 'matched' : 'none';
}

/** OpenSSH lowercases with C's `tolower`, byte by byte: ASCII only, never `İ` or `K` (Kelvin). */
export function lowercaseAscii(text: string): string {
  return text.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());
}

/**
 * `match_pattern(s, pattern)`, case-sensitive: the recursive C version, written as the usual backtracking loop
 * (resume after the last `*`), which accepts the same strings without its exponential worst case.
 */
export function matchPattern(text: string, pattern: string): boolean {
  let at = 0;
  let patternAt = 0;
  let starAt = -1;
  let resumeAt = 0;
  while (at < text.length) {
    const wanted = pattern[patternAt];
    if (wanted === '*') {
      starAt = patternAt++;
      resumeAt = at;
    } else if (wanted !== undefined && (wanted === '?' || wanted === text[at])) {
      at++;
      patternAt++;
    } else if (starAt >= 0) {
      patternAt = starAt + 1;
      at = ++resumeAt;
    } else {
      return false;
    }
  }
  while (pattern[patternAt] === '*') patternAt++;
  return patternAt === pattern.length;
}
