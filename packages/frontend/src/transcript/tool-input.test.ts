import { describe, expect, it } from 'vitest';
import { displayKeyInput, projectRelativePath, readEditedPath } from './tool-input.ts';

describe('displayKeyInput', () => {
  it('shows a path inside the idea’s project relative to it, anything else as it is', () => {
    const inProject = '/home/me/catalyst/ideas/idea-0123456789abcdef/project/src/app.py';
    expect(displayKeyInput({ field: 'file_path', value: inProject })).toBe('src/app.py');
    expect(displayKeyInput({ field: 'file_path', value: '/etc/hosts' })).toBe('/etc/hosts');
    expect(displayKeyInput({ field: 'command', value: `cat ${inProject}` })).toBe(`cat ${inProject}`);
  });
});

describe('readEditedPath', () => {
  it('reads the file a Write, Edit, MultiEdit or NotebookEdit changes, and nothing of other tools', () => {
    expect(readEditedPath('Write', { file_path: '/p/a.ts', content: '' })).toBe('/p/a.ts');
    expect(readEditedPath('Edit', { file_path: '/p/a.ts' })).toBe('/p/a.ts');
    expect(readEditedPath('MultiEdit', { file_path: '/p/a.ts', edits: [] })).toBe('/p/a.ts');
    expect(readEditedPath('NotebookEdit', { notebook_path: '/p/n.ipynb' })).toBe('/p/n.ipynb');
    expect(readEditedPath('Read', { file_path: '/p/a.ts' })).toBeUndefined();
    expect(readEditedPath('Write', { file_path: 42 })).toBeUndefined();
  });
});

describe('projectRelativePath', () => {
  const root = '/home/me/ideas/idea-0123456789abcdef/project';
  it('makes a path inside the project relative to it', () => {
    expect(projectRelativePath(`${root}/src/app.ts`, root)).toBe('src/app.ts');
    expect(projectRelativePath(`${root}/./src//app.ts`, `${root}/`)).toBe('src/app.ts');
  });
  it('has nothing for a path outside it, the folder itself, or one that climbs out', () => {
    expect(projectRelativePath('/etc/hosts', root)).toBeUndefined();
    expect(projectRelativePath(`${root}-other/a.ts`, root)).toBeUndefined();
    expect(projectRelativePath(`${root}/`, root)).toBeUndefined();
    expect(projectRelativePath(`${root}/src/../../secret`, root)).toBeUndefined();
    expect(projectRelativePath('src/app.ts', 'src')).toBeUndefined();
  });
});
