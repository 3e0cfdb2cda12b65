import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseOwnJsonFile, readOwnFile } from './own-json-file.ts';

const Schema = z.strictObject({ version: z.literal(1), items: z.array(z.string()) });
const AT = Date.parse('2030-01-01T12:34:56.789Z');

describe('parseOwnJsonFile', () => {
  let root: string;
  let warnings: string[];
  const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'catalyst-own-'));
    warnings = [];
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const parse = async (path: string) =>
    parseOwnJsonFile({
      path,
      text: await readOwnFile(path),
      schema: Schema,
      what: 'the test file',
      logger,
      now: () => AT,
    });

  it('parses a whole file, and gives undefined for none, saying nothing', async () => {
    const path = join(root, 'state.json');
    expect(await parse(path)).toBeUndefined();
    await writeFile(path, '{"version":1,"items":["a"]}');
    expect(await parse(path)).toEqual({ version: 1, items: ['a'] });
    expect(warnings).toEqual([]);
  });

  it.each([
    ['empty', '', 'it is empty'],
    ['torn', '{"version":1,"ite', 'it is not whole JSON'],
    ['of another shape', '{"version":2,"items":[]}', 'version'],
  ])('sets an %s file aside as <name>.broken-<timestamp>, with one warning', async (_, text, problem) => {
    const path = join(root, 'state.json');
    await writeFile(path, text);
    expect(await parse(path)).toBeUndefined();
    const keptAs = 'state.json.broken-2030-01-01T12-34-56-789Z';
    expect(await readdir(root)).toEqual([keptAs]);
    expect(await readFile(join(root, keptAs), 'utf8')).toBe(text);
    expect(warnings).toHaveLength(1);
    const warning = z.object({
      level: z.literal(40),
      keptAs: z.string(),
      problem: z.string(),
      msg: z.string(),
    });
    const logged = warning.parse(JSON.parse(warnings[0] ?? ''));
    expect(logged.keptAs).toBe(join(root, keptAs));
    expect(logged.problem).toContain(problem);
    expect(logged.msg).toMatch(/^the test file was damaged/);
  });
});
