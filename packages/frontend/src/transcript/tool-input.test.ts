import { describe, expect, it } from 'vitest';
import { displayKeyInput } from './tool-input.ts';

describe('displayKeyInput', () => {
  it('shows a path inside the idea’s project relative to it, anything else as it is', () => {
    const inProject = '/home/me/catalyst/ideas/idea-0123456789abcdef/project/src/app.py';
    expect(displayKeyInput({ field: 'file_path', value: inProject })).toBe('src/app.py');
    expect(displayKeyInput({ field: 'file_path', value: '/etc/hosts' })).toBe('/etc/hosts');
    expect(displayKeyInput({ field: 'command', value: `cat ${inProject}` })).toBe(`cat ${inProject}`);
  });
});
