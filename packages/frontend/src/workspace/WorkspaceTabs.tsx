import { useRef, type KeyboardEvent } from 'react';
import { TAB_NAMES, type WorkspaceTab } from './use-workspace-tab.ts';

interface WorkspaceTabsProps {
  tabs: readonly WorkspaceTab[];
  selected: WorkspaceTab;
  /** The id of a tab's button and of its panel, from the tab's name. */
  idOf: (tab: WorkspaceTab, part: 'tab' | 'panel') => string;
  onSelect: (tab: WorkspaceTab) => void;
}

/**
 * The workspace's tabs as a WAI-ARIA tablist: one tab in the Tab order (the open one); the arrow keys, Home and End
 * move between tabs and open the one they reach.
 */
export function WorkspaceTabs({ tabs, selected, idOf, onSelect }: WorkspaceTabsProps) {
  const listRef = useRef<HTMLDivElement>(null);
  const onKeyDown = (event: KeyboardEvent) => {
    const index = tabs.indexOf(selected);
    const next = nextIndex(event.key, index, tabs.length);
    const tab = next === undefined ? undefined : tabs[next];
    if (tab === undefined) return;
    event.preventDefault();
    onSelect(tab);
    listRef.current?.querySelector<HTMLElement>(`#${CSS.escape(idOf(tab, 'tab'))}`)?.focus();
  };
  return (
    <div ref={listRef} className="ws-tabs" role="tablist" aria-label="Workspace" onKeyDown={onKeyDown}>
      {tabs.map((tab) => (
        <button
          key={tab}
          type="button"
          role="tab"
          id={idOf(tab, 'tab')}
          className="ws-tab"
          aria-selected={tab === selected}
          aria-controls={idOf(tab, 'panel')}
          tabIndex={tab === selected ? 0 : -1}
          onClick={() => {
            onSelect(tab);
          }}
        >
          {TAB_NAMES[tab]}
        </button>
      ))}
    </div>
  );
}

function nextIndex(key: string, index: number, count: number): number | undefined {
  switch (key) {
    case 'ArrowRight':
    case 'ArrowDown':
      return (index + 1) % count;
    case 'ArrowLeft':
    case 'ArrowUp':
      return (index - 1 + count) % count;
    case 'Home':
      return 0;
    case 'End':
      return count - 1;
    default:
      return undefined;
  }
}
