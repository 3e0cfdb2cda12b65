import type { z } from 'zod';

/**
 * Zod issues as one sentence for a person (REST 400s, WebSocket error frames, config errors). Issue messages
 * never quote the input (zod leaves it out unless asked), so a summary cannot echo a secret or a huge payload.
 */

const MAX_ISSUES_SHOWN = 5;

/** `['hosts', 0, 'address']` → `hosts[0].address`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, key) => {
    if (typeof key === 'number') return `${text}[${key}]`;
    return text === '' ? String(key) : `${text}.${String(key)}`;
  }, '');
}

export function describeIssue(issue: z.core.$ZodIssue): string {
  const where = formatIssuePath(issue.path);
  return where === '' ? issue.message : `${where}: ${issue.message}`;
}

/** E.g. `title: Too small: expected string to have >=1 characters; host: Invalid input` (at most five). */
export function summarizeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const shown = issues.slice(0, MAX_ISSUES_SHOWN).map(describeIssue);
  const hidden = issues.length - shown.length;
  return hidden > 0 ? `${shown.join('; ')}; and ${hidden} more` : shown.join('; ');
}
