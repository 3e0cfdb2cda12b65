import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { CliError } from './cli-error.ts';

/**
 * The file Catalyst writes beside its token each time it starts listening (backend server/url-file.ts): where this
 * machine reaches it, `{ "url": "http://127.0.0.1:7455" }`. Ours, so parsed strictly (issue 40, item 4).
 */
const UrlFileSchema = z
  .object({
    url: z
      .string()
      .refine(
        (text) =>
          URL.canParse(text) && /^https?:$/.test(new URL(text).protocol) && new URL(text).origin === text,
        'must be an origin like http://127.0.0.1:7433',
      ),
  })
  .strict();

/** The URL in the file, or undefined when there is none (a Catalyst that never started, or an older one). */
export async function readUrlFile(path: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return undefined;
    throw invalid(path, error instanceof Error && 'code' in error ? String(error.code) : 'unreadable', error);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw invalid(path, 'not JSON', error);
  }
  const parsed = UrlFileSchema.safeParse(json);
  if (!parsed.success) throw invalid(path, parsed.error.issues.map(describeIssue).join('; '));
  return parsed.data.url;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  return issue.path.length === 0 ? issue.message : `${issue.path.join('.')}: ${issue.message}`;
}

function invalid(path: string, problem: string, cause?: unknown): CliError {
  return new CliError(
    'CONFIG_INVALID',
    `Cannot use ${path}, where Catalyst writes the address it listens on (${problem}): start Catalyst again to rewrite it, or pass --url.`,
    { cause },
  );
}
