import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LEFT_OUT_FOLDERS } from '../packages/backend/src/core/checkpoint-git.ts';
import { renderVmScripts, VM_SCRIPTS_MODULE } from './vm-scripts-render.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const folder = `${root}packages/backend/vm`;
const scripts = Object.fromEntries(
  readdirSync(folder)
    .filter((name) => name.endsWith('.sh'))
    .map((name) => [name, readFileSync(`${folder}/${name}`, 'utf8')]),
);

describe('the VM scripts', () => {
  it('are in the generated module as the .sh files hold them now (else: pnpm vm-scripts)', () => {
    expect(readFileSync(`${root}${VM_SCRIPTS_MODULE}`, 'utf8')).toBe(renderVmScripts(scripts));
  });

  it('leave out of a checkpoint exactly the folders core/checkpoint-git.ts names', () => {
    const excluded = [
      ...(scripts['checkpoint-git.sh'] ?? '').matchAll(/':\(exclude,glob\)\*\*\/([^/]+)\/\*\*'/g),
    ];
    expect(excluded.map((match) => match[1])).toEqual([...LEFT_OUT_FOLDERS]);
  });

  it('keep comments and blank lines out of the text sent to a host, and nothing else', () => {
    const rendered = renderVmScripts({ 'a.sh': '# shellcheck shell=sh\n\n  # why\necho "#not a comment"\n' });
    expect(rendered).toContain('"a": "echo \\"#not a comment\\"\\n"');
  });
});
