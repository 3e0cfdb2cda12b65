import { useCallback, useMemo, useState } from 'react';

/** A file of the project shown in the viewer: now, or as it was at a checkpoint (`at`, its commit). */
export interface FileSelection {
  readonly path: string;
  readonly at: string | undefined;
}

/** The idea page's Files view (issue 13): whether it is open, which folders are expanded, which file is shown. */
export interface FilesView {
  readonly isOpen: boolean;
  readonly selected: FileSelection | undefined;
  /** Paths of the expanded folders, relative to the project. */
  readonly expanded: ReadonlySet<string>;
  /** Counts the files opened from elsewhere (a tool card): each one brings the viewer into sight. */
  readonly openedFromLink: number;
  toggle: () => void;
  /** Opens the view at a file, its folders expanded. */
  openFile: (path: string) => void;
  select: (selection: FileSelection) => void;
  toggleFolder: (path: string) => void;
}

/** The folders a path is in: `a/b/c.ts` → `a`, `a/b`. */
export function foldersOf(path: string): string[] {
  const segments = path.split('/');
  return segments.slice(0, -1).map((_, index) => segments.slice(0, index + 1).join('/'));
}

/** Whether the view is in sight, when something else decides it (the workspace's Files tab). */
export interface ShownState {
  readonly isShown: boolean;
  setIsShown: (isShown: boolean) => void;
}

export function useFilesView(shownBy?: ShownState): FilesView {
  const [isOwnOpen, setIsOwnOpen] = useState(false);
  const isOpen = shownBy?.isShown ?? isOwnOpen;
  const setShown = shownBy?.setIsShown;
  const setIsOpen = useCallback(
    (open: boolean) => {
      if (setShown === undefined) setIsOwnOpen(open);
      else setShown(open);
    },
    [setShown],
  );
  const [selected, setSelected] = useState<FileSelection>();
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set());
  const [openedFromLink, setOpenedFromLink] = useState(0);
  const toggle = useCallback(() => {
    setIsOpen(!isOpen);
  }, [isOpen, setIsOpen]);
  const openFile = useCallback(
    (path: string) => {
      setIsOpen(true);
      setSelected({ path, at: undefined });
      setExpanded((current) => new Set([...current, ...foldersOf(path)]));
      setOpenedFromLink((count) => count + 1);
    },
    [setIsOpen],
  );
  const toggleFolder = useCallback((path: string) => {
    setExpanded((current) => {
      const next = new Set(current);
      if (!next.delete(path)) next.add(path);
      return next;
    });
  }, []);
  return useMemo(
    () => ({
      isOpen,
      selected,
      expanded,
      openedFromLink,
      toggle,
      openFile,
      select: setSelected,
      toggleFolder,
    }),
    [isOpen, selected, expanded, openedFromLink, toggle, openFile, toggleFolder],
  );
}
