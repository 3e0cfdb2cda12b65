import { describe, expect, it } from 'vitest';
import { CatalystError } from '../core/catalyst-error.ts';
import { loadConfig } from './config.ts';

// Issue 39, item 3: a home, `/` or `/tmp` as ideas root is refused at start-up, from the environment or the file.

const HOME = '/home/alice';

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof CatalystError && error.code === 'CONFIG_INVALID') return error.message;
    throw error;
  }
  throw new Error('expected CONFIG_INVALID, the configuration was accepted');
}

describe('the ideas root in the configuration', () => {
  it('refuses the home, / and /tmp in CATALYST_IDEAS_ROOT, saying why', () => {
    for (const root of ['~', '~/', '/', '/tmp']) {
      const message = refusal(() => loadConfig({ CATALYST_IDEAS_ROOT: root }, { homeDir: HOME }));
      expect(message, root).toContain('CATALYST_IDEAS_ROOT');
      expect(message, root).toContain('give it a folder of its own');
    }
    expect(loadConfig({ CATALYST_IDEAS_ROOT: '~/ideas' }, { homeDir: HOME }).hosts[0]?.ideasRoot).toBe(
      '~/ideas',
    );
  });

  it('refuses a host of CATALYST_CONFIG_FILE whose ideasRoot is the home', () => {
    const file = { hosts: [{ name: 'local', kind: 'local', ideasRoot: '~' }] };
    const message = refusal(() =>
      loadConfig(
        { CATALYST_CONFIG_FILE: '/etc/catalyst.json' },
        { homeDir: HOME, cwd: '/srv', readFile: () => JSON.stringify(file) },
      ),
    );
    expect(message).toContain('The ideas folder ~ is the home itself');
  });
});
