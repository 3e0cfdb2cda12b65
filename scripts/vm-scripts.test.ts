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

  it('puts a lib/ fragment in place of its include line, once, and makes no entry of the fragment itself', () => {
    const rendered = renderVmScripts({
      'a.sh':
        'echo a\n# shellcheck source=lib/f.sh\n. ./lib/f.sh\n# shellcheck source=lib/f.sh\n. ./lib/f.sh\necho z\n',
      'lib/f.sh': '# shellcheck shell=sh\n# why\nf() { :; }\n',
    });
    expect(rendered).toContain('"a": "echo a\\nf() { :; }\\necho z\\n"');
    expect(rendered).not.toContain('"lib/f"');
  });

  it('refuses an include shellcheck cannot follow, or of a fragment that is not there', () => {
    expect(() => renderVmScripts({ 'a.sh': '. ./lib/f.sh\n', 'lib/f.sh': 'f() { :; }\n' })).toThrow(
      /shellcheck source=lib\/f.sh/,
    );
    expect(() => renderVmScripts({ 'a.sh': '# shellcheck source=lib/g.sh\n. ./lib/g.sh\n' })).toThrow(
      /no fragment lib\/g.sh/,
    );
  });
});
