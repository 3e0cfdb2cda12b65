import type { IdeaView } from '@catalyst/protocol';
import { useCallback, useEffect, useId, useMemo, useState } from 'react';
import { CheckpointList } from '../checkpoints/CheckpointList.tsx';
import { FilesPanel } from '../files/FilesPanel.tsx';
import { ProjectLinksProvider } from '../files/project-context.ts';
import type { ProjectFiles } from '../files/use-project-files.ts';
import type { ShownState } from '../files/use-files-view.ts';
import { PreviewPanel } from '../preview/PreviewPanel.tsx';
import { TerminalPanel } from '../terminal/TerminalPanel.tsx';
import {
  shownTab,
  useIsWide,
  useWorkspaceTab,
  type SideTab,
  type WorkspaceTab,
} from '../workspace/use-workspace-tab.ts';
import { SettingsPanel } from './IdeaSettings.tsx';

export interface SideTabs {
  isWide: boolean;
  /** Opens a tab (the URL's `?tab=`). */
  setTab: (tab: WorkspaceTab) => void;
  /** The Files tab in sight, and the way to show it (a file link in the transcript opens it). */
  filesShown: ShownState;
  /** The Terminal tab was in sight once: it stays mounted, its shells attached while another tab is in sight. */
  hasOpenedTerminal: boolean;
}

/** Which of the workspace's side tabs is in sight, as the idea's page needs to know it. */
export function useSideTabs(): SideTabs {
  const isWide = useIsWide();
  const [urlTab, setTab] = useWorkspaceTab();
  const shown = shownTab(urlTab, isWide);
  const isFilesShown = shown === 'files';
  const [hasOpenedTerminal, setHasOpenedTerminal] = useState(false);
  const isTerminalShown = shown === 'terminal';
  useEffect(() => {
    if (isTerminalShown) setHasOpenedTerminal(true);
  }, [isTerminalShown]);
  const setIsFilesShown = useCallback(
    (isShown: boolean) => {
      setTab(isShown ? 'files' : isWide ? 'changes' : 'conversation');
    },
    [setTab, isWide],
  );
  const filesShown = useMemo(
    () => ({ isShown: isFilesShown, setIsShown: setIsFilesShown }),
    [isFilesShown, setIsFilesShown],
  );
  return { isWide, setTab, filesShown, hasOpenedTerminal };
}

interface IdeaSidePanelProps {
  tab: SideTab;
  /** The tab in sight: a panel fetches nothing while it is not. */
  isShown: boolean;
  ideaId: string;
  idea: IdeaView | undefined;
  files: ProjectFiles;
  hasOpenedTerminal: boolean;
  onIdeaChanged: (idea: IdeaView) => void;
}

/** One tab of the idea's workspace: Changes, Files, Preview, Terminal or Settings. */
export function IdeaSidePanel({
  tab,
  isShown,
  ideaId,
  idea,
  files,
  hasOpenedTerminal,
  onIdeaChanged,
}: IdeaSidePanelProps) {
  const panelId = useId();
  switch (tab) {
    case 'changes':
      return isShown ? (
        <ProjectLinksProvider value={files.links}>
          <CheckpointList ideaId={ideaId} projectVersion={files.version} />
        </ProjectLinksProvider>
      ) : null;
    case 'files':
      return <FilesPanel id={panelId} ideaId={ideaId} view={files.view} projectVersion={files.version} />;
    case 'preview':
      return <PreviewPanel id={panelId} ideaId={ideaId} isOpen={isShown} onIdeaChanged={onIdeaChanged} />;
    case 'terminal':
      return isShown || hasOpenedTerminal ? <TerminalPanel ideaId={ideaId} /> : null;
    case 'settings':
      return idea === undefined ? (
        <p className="muted">Loading…</p>
      ) : (
        <SettingsPanel idea={idea} onChanged={onIdeaChanged} />
      );
  }
}
