import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readVmScriptFiles, renderVmScripts, REPO_ROOT, VM_SCRIPTS_MODULE } from './vm-scripts-render.ts';

describe('the VM scripts', () => {
  it('are in the generated module as the .sh files hold them now (else: pnpm vm-scripts)', () => {
    expect(readFileSync(`${REPO_ROOT}${VM_SCRIPTS_MODULE}`, 'utf8')).toBe(
      renderVmScripts(readVmScriptFiles()),
    );
  });

  it('keep comments and blank lines out of the text sent to a host, and nothing else', () => {
    const rendered = renderVmScripts({ 'a.sh': '# shellcheck shell=sh\n\n  # why\necho "#not a comment"\n' });
    expect(rendered).toContain('"a": "echo \\"#not a comment\\"\\n"');
  });
});
