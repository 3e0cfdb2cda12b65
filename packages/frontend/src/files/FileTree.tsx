import type { FileListResponse } from '@catalyst/protocol';
import { api } from '../base/api.ts';
import { useFetched } from '../base/use-fetched.ts';
import type { FilesView } from './use-files-view.ts';

type Entry = FileListResponse['entries'][number];

interface FolderProps {
  ideaId: string;
  /** Relative to the project; `''` is the project itself. */
  path: string;
  /** Changes when the project may have changed (a checkpoint, a refresh): the folder is listed again. */
  version: string;
  view: FilesView;
}

/**
 * The project's files as nested lists of buttons (a folder's button expands it, a file's shows it), each folder
 * listed only once expanded. The list of the project itself is named "Project files".
 */
export function FileTree(props: Omit<FolderProps, 'path'>) {
  return (
    <div className="files-tree">
      <FolderEntries {...props} path="" />
    </div>
  );
}

function FolderEntries({ ideaId, path, version, view }: FolderProps) {
  const fetched = useFetched(`${ideaId}\n${path}\n${version}`, () => api.listFiles(ideaId, path), {
    keepPrevious: true,
  });
  if (fetched.kind === 'loading') return <p className="files-status muted">Loading…</p>;
  if (fetched.kind === 'failed') {
    return (
      <p className="files-status form-error" role="alert">
        {fetched.message}
      </p>
    );
  }
  const { entries } = fetched.value;
  if (entries.length === 0) {
    return <p className="files-status muted">{path === '' ? 'The project has no files yet.' : 'Empty.'}</p>;
  }
  return (
    <ul className="files-list" aria-label={path === '' ? 'Project files' : undefined}>
      {entries.map((entry) => (
        <li key={entry.name}>
          <EntryView
            entry={entry}
            path={joinPath(path, entry.name)}
            ideaId={ideaId}
            version={version}
            view={view}
          />
        </li>
      ))}
    </ul>
  );
}

/** A folder expands in place; a file opens in the viewer; a link or special file is only named. */
function EntryView({ entry, ...folder }: FolderProps & { entry: Entry }) {
  const { path, view } = folder;
  switch (entry.type) {
    case 'directory':
      return <FolderEntry name={entry.name} {...folder} />;
    case 'file':
      return (
        <button
          type="button"
          className="files-entry files-entry--file"
          aria-current={view.selected?.path === path ? 'true' : undefined}
          onClick={() => {
            view.select({ path, at: undefined });
          }}
        >
          {entry.name}
        </button>
      );
    case 'other':
      return (
        <span className="files-entry files-entry--other" title="A link or a special file: not shown here">
          {entry.name}
        </span>
      );
  }
}

function FolderEntry({ name, ...folder }: FolderProps & { name: string }) {
  const { path, view } = folder;
  const isExpanded = view.expanded.has(path);
  return (
    <>
      <button
        type="button"
        className="files-entry files-entry--folder"
        aria-expanded={isExpanded}
        onClick={() => {
          view.toggleFolder(path);
        }}
      >
        <span className="files-entry__icon" aria-hidden="true">
          {isExpanded ? '▾' : '▸'}
        </span>
        {name}
      </button>
      {isExpanded ? <FolderEntries {...folder} /> : null}
    </>
  );
}

function joinPath(folder: string, name: string): string {
  return folder === '' ? name : `${folder}/${name}`;
}
