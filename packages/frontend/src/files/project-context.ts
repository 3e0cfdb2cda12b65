import { createContext, useContext } from 'react';

/**
 * What the transcript's cards need of the idea page to act on the project's files (issue 13): whether a run is
 * going on (a restore waits for it), where the project lives on the host (to tell which tool calls wrote inside
 * it), and how to open a file in the Files view. Outside an idea page (a card rendered alone) there is no Files
 * view: no links, and nothing is running.
 */
export interface ProjectLinks {
  readonly isRunning: boolean;
  /** The runs' working directory on the host, `…/<idea id>/project`; undefined before the first run. */
  readonly root: string | undefined;
  /** Opens the Files view at a path relative to the project. */
  readonly openFile: ((path: string) => void) | undefined;
}

const ProjectContext = createContext<ProjectLinks>({
  isRunning: false,
  root: undefined,
  openFile: undefined,
});

export const ProjectLinksProvider = ProjectContext.Provider;

export function useProjectLinks(): ProjectLinks {
  return useContext(ProjectContext);
}
