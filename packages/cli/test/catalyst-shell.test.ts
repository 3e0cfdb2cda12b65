import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useServiceFixture } from '../../backend/test/service-harness.ts';
import { killLeftovers, startCli } from './cli-process.ts';

// `catalyst shell <idea>` (issue 31): the idea's terminal in the person's own, the real bin at a terminal (util-linux
// script), against a whole Catalyst whose host is the test kit's sshd.

const fixture = useServiceFixture();
let tempDir: string;
let tokenFile: string;

beforeAll(async () => {
  tempDir = await mkdtemp(join(tmpdir(), 'catalyst-shell-'));
  tokenFile = join(tempDir, 'token');
  await writeFile(tokenFile, `${fixture.service.catalyst.token}\n`, { mode: 0o600 });
});
afterEach(async () => {
  expect(await killLeftovers(), 'the test left a catalyst process running').toBe(0);
});
afterAll(async () => {
  await rm(tempDir, { recursive: true, force: true });
});

describe('catalyst shell', () => {
  it('opens a shell in the project folder at a terminal, runs what is typed, and ends with exit', async () => {
    const idea = await fixture.service.createIdea('Shell from the command line');
    const cli = startCli(
      ['--url', fixture.service.catalyst.url, '--token-file', tokenFile, 'shell', idea.id],
      {
        atTerminal: true,
      },
    );
    cli.type('pwd');
    await cli.printed(fixture.service.projectDir(idea.id));
    cli.type('echo "sum-$((6*7))"');
    await cli.printed('sum-42');
    expect(fixture.service.catalyst.services.terminals.idsOf(idea.id)).toHaveLength(1);
    cli.type('exit');
    const exit = await cli.exited;
    expect(exit.code).toBe(0);
    expect(fixture.service.catalyst.services.terminals.idsOf(idea.id)).toEqual([]);
  });
});
