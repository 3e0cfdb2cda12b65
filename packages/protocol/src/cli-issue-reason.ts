import type { z } from 'zod';

interface Located {
  path: readonly PropertyKey[];
  message: string;
}

/**
 * A union reports one issue list per branch. The branch that got furthest into the value (the longest path)
 * is almost always the one the line was meant to match, so its issue is the one a person wants to read.
 */
function locate(issue: z.core.$ZodIssue, prefix: readonly PropertyKey[]): Located {
  const path = [...prefix, ...issue.path];
  if (issue.code !== 'invalid_union') return { path, message: issue.message };
  let deepest: Located | undefined;
  for (const branch of issue.errors) {
    const first = branch[0];
    if (first === undefined) continue;
    const candidate = locate(first, path);
    if (deepest === undefined || candidate.path.length > deepest.path.length) deepest = candidate;
  }
  return deepest ?? { path, message: issue.message };
}

/** A one-line explanation of why a value failed its schema: the first issue's path and message. */
export function describeFirstIssue(error: z.ZodError): string {
  const first = error.issues[0];
  if (first === undefined) return 'failed validation';
  const { path, message } = locate(first, []);
  return path.length === 0 ? message : `${path.map(String).join('.')}: ${message}`;
}
