import type { RelayEvent } from '@catalyst/protocol';
import { useMemo } from 'react';
import type { ProjectLinks } from './project-context.ts';
import { useFilesView, type FilesView, type ShownState } from './use-files-view.ts';

export interface ProjectFiles {
  readonly view: FilesView;
  /** For the transcript's cards (ProjectLinksProvider). */
  readonly links: ProjectLinks;
  /** The `seq` of the newest checkpoint or restore (0: none yet): the project's files changed then. */
  readonly version: number;
}

/** The idea page's Files view, and what the transcript's cards need of it and of the run (issue 13). */
export function useProjectFiles(
  events: readonly RelayEvent[],
  isRunning: boolean,
  root: string | undefined,
  shownBy?: ShownState,
): ProjectFiles {
  const view = useFilesView(shownBy);
  const { openFile } = view;
  const links = useMemo(() => ({ isRunning, root, openFile }), [isRunning, root, openFile]);
  const version = useMemo(() => findLastCheckpointSeq(events), [events]);
  return { view, links, version };
}

function findLastCheckpointSeq(events: readonly RelayEvent[]): number {
  const last = events.findLast(
    (event) => event.type === 'checkpoint:created' || event.type === 'checkpoint:restored',
  );
  return last?.seq ?? 0;
}
