/**
 * Ports of OpenSSH's match.c, which ssh_config and known_hosts both use. Not globs: `*` is any run of characters,
 * `?` exactly one, and there are no character classes or escapes.
 */

/** match_pattern: the whole of `text` against one pattern, case-sensitively. */
export function matchPattern(text: string, pattern: string): boolean {
  const matchFrom = (from: number, patternFrom: number): boolean => {
    let t = from;
    let p = patternFrom;
    for (;;) {
      if (p === pattern.length) return t === text.length;
      if (pattern.charAt(p) === '*') {
        while (pattern.charAt(p) === '*') p++;
        if (p === pattern.length) return true;
        const next = pattern.charAt(p);
        for (; t < text.length; t++) {
          // A literal next character is consumed here, as match.c's shortcut does; `?` retries from t.
          if (next === '?' && matchFrom(t, p)) return true;
          if (next !== '?' && text.charAt(t) === next && matchFrom(t + 1, p + 1)) return true;
        }
        return false;
      }
      if (t === text.length) return false;
      if (pattern.charAt(p) !== '?' && pattern.charAt(p) !== text.charAt(t)) return false;
      t++;
      p++;
    }
  };
  return matchFrom(0, 0);
}

/** Longer subpatterns than match.c's 1024-byte buffer holds make the whole list fail to match, as there. */
const MAX_SUBPATTERN = 1023;

/**
 * match_pattern_list: a comma-separated list of patterns, each possibly negated with `!`.
 * Returns -1 when a negated pattern matches, 1 when a plain one does (and none negated), else 0.
 * With `isLowercased`, the patterns (not the text) are lowercased first.
 */
export function matchPatternList(text: string, patternList: string, isLowercased = false): -1 | 0 | 1 {
  let isPositive = false;
  for (const raw of splitSubpatterns(patternList)) {
    const isNegated = raw.startsWith('!');
    const body = isNegated ? raw.slice(1) : raw;
    if (body.length >= MAX_SUBPATTERN) return 0;
    const pattern = isLowercased ? asciiLowercase(body) : body;
    if (matchPattern(text, pattern)) {
      if (isNegated) return -1;
      isPositive = true;
    }
  }
  return isPositive ? 1 : 0;
}

function splitSubpatterns(patternList: string): string[] {
  if (patternList === '') return [];
  const parts = patternList.split(',');
  // "a," is one subpattern in match.c (the comma is skipped at the end), not "a" and "".
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** match_hostname: the host lowercased, then matched against the lowercased pattern list. */
export function matchHostname(host: string, patternList: string): -1 | 0 | 1 {
  return matchPatternList(asciiLowercase(host), patternList, true);
}

/** C's tolower in the C locale: only A–Z change. */
export function asciiLowercase(text: string): string {
  return text.replace(/[A-Z]/g, (char) => char.toLowerCase());
}
