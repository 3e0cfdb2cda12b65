import { readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { syncDirectory } from './atomic-file.ts';

/**
 * A JSON file Catalyst writes for itself alone (the signed-in browsers, the push subscriptions, the hosts added in the
 * app, the idea index), read at start-up. One that is empty or torn (a power cut before its data reached the disk) or
 * not of its schema is not a reason to refuse to start (issue 39): it is set aside as `<name>.broken-<timestamp>`,
 * kept for a person to look at, with a warning, and Catalyst starts without what it held. A file the person writes
 * (CATALYST_CONFIG_FILE) is refused instead (config.ts): there, a mistake is theirs to fix.
 */

export interface OwnJsonFile<S extends z.ZodType> {
  path: string;
  /** The file's text (read as the caller reads it, e.g. readPrivateFile); undefined when there is none. */
  text: string | undefined;
  schema: S;
  /** Names it in the warning: "the sessions file". */
  what: string;
  logger: Logger;
  /** Tests fix the clock; Date.now otherwise. */
  now?: () => number;
}

/** The parsed file; undefined when there is none, or when it was damaged and has been set aside. */
export async function parseOwnJsonFile<S extends z.ZodType>(
  file: OwnJsonFile<S>,
): Promise<z.output<S> | undefined> {
  if (file.text === undefined) return undefined;
  const json = parseJson(file.text);
  const parsed = json === undefined ? undefined : file.schema.safeParse(json);
  if (parsed?.success === true) return parsed.data;
  const problem = parsed === undefined ? textProblemOf(file.text) : schemaProblemOf(parsed.error.issues);
  await setAsideDamagedFile({ ...file, problem });
  return undefined;
}

/** The text of a file Catalyst keeps, or undefined when there is none; any other failure to read is thrown. */
export async function readOwnFile(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return undefined;
    throw error;
  }
}

export interface DamagedFile {
  path: string;
  what: string;
  /** What is wrong with it, for the warning ("it is empty"). */
  problem: string;
  logger: Logger;
  now?: () => number;
}

/**
 * Renames a damaged file to `<path>.broken-<timestamp>` (colons left out: some file systems refuse them) and warns,
 * naming where it is kept; the caller goes on without what it held.
 */
export async function setAsideDamagedFile(file: DamagedFile): Promise<string> {
  const at = new Date((file.now ?? Date.now)());
  const keptAs = `${file.path}.broken-${at.toISOString().replace(/[:.]/g, '-')}`;
  await rename(file.path, keptAs);
  await syncDirectory(dirname(file.path));
  file.logger.warn(
    { path: file.path, keptAs, problem: file.problem },
    `${file.what} was damaged (${file.problem}), likely by a crash while it was written: set aside as ${keptAs}; starting without what it held`,
  );
  return keptAs;
}

/** The first few issues, where and what (never the value: it may be a secret). */
function schemaProblemOf(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || 'the whole'}: ${issue.message}`)
    .join('; ');
}

function textProblemOf(text: string): string {
  return text.trim() === '' ? 'it is empty' : 'it is not whole JSON';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
