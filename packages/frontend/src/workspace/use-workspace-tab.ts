import { useCallback, useSyncExternalStore } from 'react';
import { z } from 'zod';

/**
 * The idea page's workspace (issue 31): which tab is open lives in the URL (`?tab=changes`), so a link or a
 * notification can open it, and Back leaves the page rather than stepping through tabs (the tab is replaced, not
 * pushed).
 */

export const SIDE_TABS = ['changes', 'files', 'preview', 'terminal', 'settings'] as const;
export type SideTab = (typeof SIDE_TABS)[number];
export const WorkspaceTabSchema = z.enum(['conversation', ...SIDE_TABS]);
export type WorkspaceTab = z.infer<typeof WorkspaceTabSchema>;

export const TAB_NAMES: Record<WorkspaceTab, string> = {
  conversation: 'Conversation',
  changes: 'Changes',
  files: 'Files',
  preview: 'Preview',
  terminal: 'Terminal',
  settings: 'Settings',
};

/** The side panel's tab when the URL names none (or names the conversation, which is always in sight there). */
export const DEFAULT_SIDE_TAB: SideTab = 'changes';

/** A screen at least this wide shows the conversation and the side panel together. */
export const WIDE_QUERY = '(min-width: 1100px)';

/** The tab in sight: on a wide screen a side tab (the conversation is always there), else any tab. */
export function shownTab(urlTab: WorkspaceTab | undefined, isWide: boolean): WorkspaceTab {
  if (!isWide) return urlTab ?? 'conversation';
  return urlTab === undefined || urlTab === 'conversation' ? DEFAULT_SIDE_TAB : urlTab;
}

const listeners = new Set<() => void>();

function subscribeToUrl(listener: () => void): () => void {
  listeners.add(listener);
  addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    removeEventListener('popstate', listener);
  };
}

/** The tab the URL names; a missing or unknown name is none. */
export function readTab(search: string): WorkspaceTab | undefined {
  const parsed = WorkspaceTabSchema.safeParse(new URLSearchParams(search).get('tab'));
  return parsed.success ? parsed.data : undefined;
}

export function useWorkspaceTab(): [WorkspaceTab | undefined, (tab: WorkspaceTab) => void] {
  const search = useSyncExternalStore(subscribeToUrl, () => location.search);
  const setTab = useCallback((tab: WorkspaceTab) => {
    const params = new URLSearchParams(location.search);
    params.set('tab', tab);
    history.replaceState(history.state, '', `${location.pathname}?${params.toString()}${location.hash}`);
    for (const listener of listeners) listener();
  }, []);
  return [readTab(search), setTab];
}

function subscribeToWidth(listener: () => void): () => void {
  const query = matchMedia(WIDE_QUERY);
  query.addEventListener('change', listener);
  return () => {
    query.removeEventListener('change', listener);
  };
}

/** Whether the screen is wide enough for the side panel beside the conversation. */
export function useIsWide(): boolean {
  return useSyncExternalStore(subscribeToWidth, () => matchMedia(WIDE_QUERY).matches);
}
