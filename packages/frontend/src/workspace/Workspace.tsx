import { useId, type CSSProperties, type ReactNode } from 'react';
import { Splitter } from './Splitter.tsx';
import { useSideWidth } from './use-side-width.ts';
import {
  DEFAULT_SIDE_TAB,
  shownTab,
  SIDE_TABS,
  useIsWide,
  useWorkspaceTab,
  type SideTab,
  type WorkspaceTab,
} from './use-workspace-tab.ts';
import { WorkspaceTabs } from './WorkspaceTabs.tsx';
import './workspace.css';

interface WorkspaceProps {
  /** The conversation: the transcript and the composer. */
  conversation: ReactNode;
  /** Each side tab's content, given whether it is the tab in sight (a panel fetches nothing while closed). */
  renderPanel: (tab: SideTab, isShown: boolean) => ReactNode;
}

/**
 * The idea's page as a workspace (issue 31). On a wide screen the conversation, and beside it a side panel with
 * tabs (Changes, Files, Preview, Settings) whose width the person sets; on a narrow one the same tabs, the
 * conversation first among them, each filling the screen. The open tab is in the URL.
 */
export function Workspace({ conversation, renderPanel }: WorkspaceProps) {
  const isWide = useIsWide();
  const [urlTab, setTab] = useWorkspaceTab();
  const [width, setWidth] = useSideWidth();
  const baseId = useId();
  const idOf = (tab: WorkspaceTab, part: 'tab' | 'panel') => `${baseId}-${tab}-${part}`;
  const sideId = `${baseId}-side`;
  const shown = shownTab(urlTab, isWide);
  const sideTab: SideTab = shown === 'conversation' ? DEFAULT_SIDE_TAB : shown;
  const isConversationShown = isWide || shown === 'conversation';
  const style = { '--side-width': `${String(width)}px` } as CSSProperties;
  return (
    <div className={isWide ? 'workspace workspace--wide' : 'workspace'} style={style}>
      {isWide ? null : (
        <WorkspaceTabs tabs={['conversation', ...SIDE_TABS]} selected={shown} idOf={idOf} onSelect={setTab} />
      )}
      <div
        className="ws-main"
        hidden={!isConversationShown}
        {...(isWide
          ? {}
          : {
              role: 'tabpanel',
              id: idOf('conversation', 'panel'),
              'aria-labelledby': idOf('conversation', 'tab'),
            })}
      >
        {conversation}
      </div>
      {isWide ? <Splitter width={width} onResize={setWidth} controls={sideId} /> : null}
      <div id={sideId} className="ws-side" hidden={isConversationShown && !isWide}>
        {isWide ? <WorkspaceTabs tabs={SIDE_TABS} selected={sideTab} idOf={idOf} onSelect={setTab} /> : null}
        {SIDE_TABS.map((tab) => (
          <div
            key={tab}
            role="tabpanel"
            id={idOf(tab, 'panel')}
            aria-labelledby={idOf(tab, 'tab')}
            className="ws-panel"
            hidden={tab !== shown}
          >
            {renderPanel(tab, tab === shown)}
          </div>
        ))}
      </div>
    </div>
  );
}
