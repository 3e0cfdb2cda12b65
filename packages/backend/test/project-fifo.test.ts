import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ApiErrorBodySchema,
  FileContentResponseSchema,
  FileListResponseSchema,
  PreviewViewSchema,
} from '@catalyst/protocol';
import { makeFifo, releaseFifo } from './fifo-test-kit.ts';
import { useServiceFixture, type ServiceUnderTest } from './service-harness.ts';

// Issue 25, findings 2 and 10, over the test kit's sshd: a FIFO in a project (one Bash step of a build can make
// one) is never opened. The preview suggestion and the Files view answer at once, and the host's other ideas go
// on, where an SFTP open() of the FIFO used to hold the host's one SFTP session, and with it every idea there.

const fixture = useServiceFixture();

/** Far longer than any answer here takes: the test fails instead of waiting for a request that never ends. */
const ANSWER_LIMIT_MS = 5_000;

async function timedGet(
  service: ServiceUnderTest,
  path: string,
): Promise<{ response: Response; ms: number }> {
  const started = performance.now();
  const response = await service.api(path, { signal: AbortSignal.timeout(ANSWER_LIMIT_MS) });
  return { response, ms: performance.now() - started };
}

async function json(service: ServiceUnderTest, path: string): Promise<unknown> {
  const { response } = await timedGet(service, path);
  expect(response.status, path).toBe(200);
  return response.json();
}

describe('a FIFO in a project', () => {
  it('leaves the preview suggestion, the Files view and the host’s other ideas answering at once', async () => {
    const { service } = fixture;
    const other = await service.createIdea('Neighbour');
    await writeFile(join(service.projectDir(other.id), 'notes.txt'), 'still here\n');
    const piped = await service.createIdea('Piped package.json');
    const pipedProject = service.projectDir(piped.id);
    const fifos = [join(pipedProject, 'package.json'), join(pipedProject, 'src', 'pipe')];
    await mkdir(join(pipedProject, 'src'));
    await writeFile(join(pipedProject, 'src', 'main.ts'), 'code\n');
    const python = await service.createIdea('Piped pyproject.toml');
    fifos.push(join(service.projectDir(python.id), 'pyproject.toml'));
    for (const fifo of fifos) makeFifo(fifo);
    try {
      for (const id of [piped.id, python.id]) {
        const { response, ms } = await timedGet(service, `/api/ideas/${id}/preview`);
        expect(response.status).toBe(200);
        const view = PreviewViewSchema.parse(await response.json());
        expect(view).toMatchObject({ state: 'stopped' });
        expect(view.suggestion).toBeUndefined();
        expect(ms).toBeLessThan(2_000);
      }

      const content = await timedGet(service, `/api/ideas/${piped.id}/files/content?path=package.json`);
      const refused = ApiErrorBodySchema.parse(await content.response.json()).error;
      expect({ status: content.response.status, code: refused.code }).toEqual({
        status: 400,
        code: 'INVALID_PATH',
      });
      expect(refused.message).toMatch(/not a regular file/);
      expect(content.ms).toBeLessThan(2_000);
      const inner = await timedGet(service, `/api/ideas/${piped.id}/files/content?path=src/pipe`);
      expect(inner.response.status).toBe(400);

      const root = FileListResponseSchema.parse(await json(service, `/api/ideas/${piped.id}/files?path=`));
      expect(root.entries.find((entry) => entry.name === 'package.json')?.type).toBe('other');
      const src = FileListResponseSchema.parse(await json(service, `/api/ideas/${piped.id}/files?path=src`));
      expect(src.entries.map(({ name, type }) => ({ name, type }))).toEqual([
        { name: 'main.ts', type: 'file' },
        { name: 'pipe', type: 'other' },
      ]);
      const main = FileContentResponseSchema.parse(
        await json(service, `/api/ideas/${piped.id}/files/content?path=src/main.ts`),
      );
      expect(main).toEqual({ path: 'src/main.ts', size: 5, text: 'code\n' });

      // The host's other ideas: the list, another idea's file.
      expect(await json(service, '/api/ideas')).toBeDefined();
      const notes = FileContentResponseSchema.parse(
        await json(service, `/api/ideas/${other.id}/files/content?path=notes.txt`),
      );
      expect(notes).toMatchObject({ text: 'still here\n' });
    } finally {
      await Promise.all(fifos.map(releaseFifo));
    }
  });

  // Issue 39: Catalyst's own files beside the project. A FIFO at meta.json used to cost every listing the host's
  // file time limit (20 s) and then a 503, as the SFTP session waited in its open().
  it('a FIFO in place of an idea’s meta.json: the list answers at once, that idea marked as unreadable', async () => {
    const { service } = fixture;
    const other = await service.createIdea('Neighbour of a piped meta.json');
    const piped = await service.createIdea('Piped meta.json');
    const meta = join(service.ideasRoot, piped.id, 'meta.json');
    await rm(meta);
    makeFifo(meta);
    try {
      for (let round = 0; round < 3; round += 1) {
        const { response, ms } = await timedGet(service, '/api/ideas');
        expect(response.status).toBe(200);
        const body = JSON.stringify(await response.json());
        expect(body).toContain(other.id);
        expect(body).toContain('not a regular file');
        expect(ms).toBeLessThan(2_000);
      }
      const { response, ms } = await timedGet(service, `/api/ideas/${other.id}`);
      expect({ status: response.status, isQuick: ms < 2_000 }).toEqual({ status: 200, isQuick: true });
    } finally {
      await releaseFifo(meta);
    }
  });

  it('never shows a file outside the project while a folder is swapped for a symlink (finding 10)', async () => {
    const { service } = fixture;
    const idea = await service.createIdea('Swapped');
    const project = service.projectDir(idea.id);
    const outside = join(service.ideasRoot, `outside-${idea.id}`);
    await mkdir(join(project, 'sub'), { recursive: true });
    await mkdir(outside, { recursive: true });
    await writeFile(join(project, 'sub', 'x.txt'), 'inside\n');
    await writeFile(join(outside, 'x.txt'), 'outside\n');
    // What a process on the VM could do: `sub` is the real folder, then gone, then a symlink out, then back. As
    // fast as it can, but niced: on a busy machine (the suite's other files) the reads still get their turns, and
    // the loop takes what CPU is left rather than a core of its own.
    const swapper = spawn(
      'nice',
      [
        '-n',
        '19',
        'sh',
        '-c',
        'while :; do mv sub real-sub; ln -s "$1" sub; rm sub; mv real-sub sub; done',
        'swap',
        outside,
      ],
      { cwd: project, stdio: 'ignore' },
    );
    const seen = new Map<string, number>();
    try {
      for (let round = 0; round < 300; round += 1) {
        const { response } = await timedGet(service, `/api/ideas/${idea.id}/files/content?path=sub/x.txt`);
        const body: unknown = await response.json();
        const text = FileContentResponseSchema.safeParse(body).data;
        const key = text === undefined ? String(response.status) : JSON.stringify(text);
        seen.set(key, (seen.get(key) ?? 0) + 1);
      }
    } finally {
      swapper.kill();
      await once(swapper, 'exit');
    }
    // Read, refused (it led outside, or changed while read), or missing: never the file outside, never a 5xx.
    const inside = JSON.stringify({ path: 'sub/x.txt', size: 7, text: 'inside\n' });
    expect([...seen.keys()].filter((key) => ![inside, '400', '404'].includes(key))).toEqual([]);
    expect(seen.get(inside)).toBeGreaterThan(0);
  });
});
