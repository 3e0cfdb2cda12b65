import { CheckpointViewSchema, type FileContentResponse, type FileListResponse } from '@catalyst/protocol';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { api, ApiError } from '../base/api.ts';
import { IDEA_ID } from '../../test/support/transcript-fixtures.ts';
import { FilesPanel, FilesToggle } from './FilesPanel.tsx';
import { useFilesView } from './use-files-view.ts';

// The Files view: nothing asked for before it is opened; the tree lists a folder when it is expanded; a file shows
// with line numbers and highlighting, or a sentence with its size when it is too large or binary; its history
// opens the file as it was at a checkpoint; a file opened from elsewhere expands its folders and takes the focus.

beforeAll(() => {
  // jsdom lays nothing out.
  Element.prototype.scrollIntoView = vi.fn();
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const MODIFIED = '2025-01-01T12:00:00.000Z';
const entry = (name: string, type: 'file' | 'directory' | 'other', size = 10) => ({
  name,
  type,
  size,
  modified: MODIFIED,
});
const FOLDERS: Record<string, FileListResponse['entries']> = {
  '': [
    entry('src', 'directory'),
    entry('README.md', 'file'),
    entry('logo.png', 'file'),
    entry('link', 'other'),
  ],
  src: [entry('lib', 'directory'), entry('app.ts', 'file')],
  'src/lib': [entry('util.ts', 'file')],
};
const CHECKPOINT = '2'.repeat(40);
const CONTENTS: Record<string, FileContentResponse> = {
  'src/app.ts': { path: 'src/app.ts', size: 34, text: '// greet\nconst name = "you";\n' },
  [`src/app.ts@${CHECKPOINT}`]: { path: 'src/app.ts', size: 12, text: 'let a = 1;\n' },
  'src/lib/util.ts': { path: 'src/lib/util.ts', size: 4, text: 'x;\n' },
  'README.md': { path: 'README.md', size: 5 * 1024 * 1024, tooLarge: true },
  'logo.png': { path: 'logo.png', size: 2048, binary: true },
};
const HISTORY = [
  CheckpointViewSchema.parse({
    commit: CHECKPOINT,
    parent: '1'.repeat(40),
    kind: 'build',
    runId: 'run-1',
    filesChanged: 1,
    insertions: 1,
    deletions: 1,
    files: [{ path: 'src/app.ts', status: 'modified', insertions: 1, deletions: 1 }],
    createdAt: MODIFIED,
  }),
];

let listFiles: MockInstance<typeof api.listFiles>;
let fileContent: MockInstance<typeof api.fileContent>;
beforeEach(() => {
  listFiles = vi.spyOn(api, 'listFiles').mockImplementation((_id, path) => {
    const entries = FOLDERS[path];
    return entries === undefined
      ? Promise.reject(new ApiError('PATH_NOT_FOUND', `${path} is not in the project.`, 404))
      : Promise.resolve({ path, entries });
  });
  fileContent = vi.spyOn(api, 'fileContent').mockImplementation((_id, path, at) => {
    const content = CONTENTS[at === undefined ? path : `${path}@${at}`];
    return content === undefined ? Promise.reject(new Error('no such file')) : Promise.resolve(content);
  });
  vi.spyOn(api, 'fileHistory').mockResolvedValue(HISTORY);
});

function Page() {
  const view = useFilesView();
  return (
    <>
      <FilesToggle panelId="files" view={view} />
      <button
        type="button"
        onClick={() => {
          view.openFile('src/lib/util.ts');
        }}
      >
        Open util
      </button>
      <FilesPanel id="files" ideaId={IDEA_ID} view={view} projectVersion={0} />
    </>
  );
}

const button = (name: string) => screen.getByRole('button', { name });
const tree = () => screen.getByRole('list', { name: 'Project files' });
const numberedLines = (table: HTMLElement) =>
  [...table.querySelectorAll('tr')].map((row) =>
    [...row.querySelectorAll('td')].map((cell) => cell.textContent),
  );

describe('the Files view', () => {
  it('lists the project when opened, and a folder when it is expanded', async () => {
    render(<Page />);
    expect(screen.queryByRole('region', { name: 'Files' })).toBeNull();
    expect(listFiles).not.toHaveBeenCalled();
    fireEvent.click(button('Files'));
    expect(button('Files').getAttribute('aria-expanded')).toBe('true');
    expect(screen.getByRole('region', { name: 'Files' })).toBeTruthy();
    await screen.findByRole('list', { name: 'Project files' });
    expect(listFiles.mock.calls).toEqual([[IDEA_ID, '']]);
    const top = within(tree())
      .getAllByRole('listitem')
      .map((item) => item.textContent);
    expect(top).toEqual(['▸src', 'README.md', 'logo.png', 'link']);
    expect(within(tree()).queryByRole('button', { name: 'link' }), 'a link is named, not opened').toBeNull();

    fireEvent.click(within(tree()).getByRole('button', { name: 'src' }));
    expect(await within(tree()).findByRole('button', { name: 'app.ts' })).toBeTruthy();
    expect(within(tree()).getByRole('button', { name: 'src' }).getAttribute('aria-expanded')).toBe('true');
    expect(listFiles.mock.calls).toEqual([
      [IDEA_ID, ''],
      [IDEA_ID, 'src'],
    ]);
    fireEvent.click(within(tree()).getByRole('button', { name: 'src' }));
    expect(within(tree()).queryByRole('button', { name: 'app.ts' })).toBeNull();
  });

  it('shows a file with line numbers and highlighting, and its history, each entry the file as it was', async () => {
    render(<Page />);
    fireEvent.click(button('Files'));
    fireEvent.click(await screen.findByRole('button', { name: 'src' }));
    fireEvent.click(await screen.findByRole('button', { name: 'app.ts' }));
    expect(button('app.ts').getAttribute('aria-current')).toBe('true');
    const viewer = screen.getByRole('region', { name: 'File src/app.ts' });
    const contents = await within(viewer).findByRole('table', { name: 'Contents of src/app.ts' });
    expect(numberedLines(contents)).toEqual([
      ['1', '// greet'],
      ['2', 'const name = "you";'],
    ]);
    expect(contents.querySelector('.hljs-comment')?.textContent).toBe('// greet');
    expect(contents.querySelector('.hljs-keyword')?.textContent).toBe('const');
    expect(fileContent).toHaveBeenCalledWith(IDEA_ID, 'src/app.ts', undefined);

    const history = await within(viewer).findByRole('list', { name: 'History of src/app.ts' });
    const entries = within(history).getAllByRole('button');
    expect(entries.map((entry) => entry.textContent)).toEqual([
      'Current version',
      expect.stringMatching(/^2222222 · After a build · .+ · modified, \+1 −1$/),
    ]);
    expect(entries[0]?.getAttribute('aria-current')).toBe('true');
    fireEvent.click(within(history).getByRole('button', { name: /^2222222/ }));
    expect(fileContent).toHaveBeenLastCalledWith(IDEA_ID, 'src/app.ts', CHECKPOINT);
    const then = await within(viewer).findByRole('table', { name: 'Contents of src/app.ts' });
    expect(numberedLines(then)).toEqual([['1', 'let a = 1;']]);
    expect(within(viewer).getByText(/^At checkpoint 2222222/)).toBeTruthy();
    expect(
      within(history)
        .getByRole('button', { name: /^2222222/ })
        .getAttribute('aria-current'),
    ).toBe('true');
  });

  it('says a file is too large or binary, with its size', async () => {
    render(<Page />);
    fireEvent.click(button('Files'));
    fireEvent.click(await screen.findByRole('button', { name: 'README.md' }));
    const large = screen.getByRole('region', { name: 'File README.md' });
    expect(
      await within(large).findByText('This file is 5.0 MiB: too large to show here (at most 1.0 MiB).'),
    ).toBeTruthy();
    fireEvent.click(button('logo.png'));
    const binary = screen.getByRole('region', { name: 'File logo.png' });
    expect(
      await within(binary).findByText('This is a binary file (2.0 KiB): it cannot be shown as text.'),
    ).toBeTruthy();
  });

  it('opens a file from elsewhere: its folders expanded, the viewer focused', async () => {
    render(<Page />);
    fireEvent.click(button('Open util'));
    expect(button('Files').getAttribute('aria-expanded')).toBe('true');
    const viewer = screen.getByRole('region', { name: 'File src/lib/util.ts' });
    expect(document.activeElement).toBe(viewer);
    expect(await within(viewer).findByRole('table', { name: 'Contents of src/lib/util.ts' })).toBeTruthy();
    expect(await within(tree()).findByRole('button', { name: 'util.ts' })).toHaveProperty(
      'ariaCurrent',
      'true',
    );
    expect(within(tree()).getByRole('button', { name: 'lib' }).getAttribute('aria-expanded')).toBe('true');
  });

  it('shows a folder that cannot be listed as the server’s sentence', async () => {
    listFiles.mockImplementation((_id, path) =>
      path === ''
        ? Promise.resolve({ path, entries: [entry('gone', 'directory')] })
        : Promise.reject(new ApiError('PATH_NOT_FOUND', 'gone is no longer in the project.', 404)),
    );
    render(<Page />);
    fireEvent.click(button('Files'));
    fireEvent.click(await screen.findByRole('button', { name: 'gone' }));
    expect((await screen.findByRole('alert')).textContent).toBe('gone is no longer in the project.');
  });
});
