import { useEffect } from 'react';
import type { WorkspaceTab } from './use-workspace-tab.ts';

const TAB_KEYS: Readonly<Record<string, WorkspaceTab>> = {
  t: 'conversation',
  c: 'changes',
  f: 'files',
  p: 'preview',
  '`': 'terminal',
  s: 'settings',
};

interface PageShortcuts {
  openTab: (tab: WorkspaceTab) => void;
  showShortcuts: () => void;
  /** Brings the conversation into sight (on a narrow screen) and puts the cursor in the message box. */
  focusMessage: () => void;
}

/**
 * The idea page's single-key shortcuts (ShortcutsDialog lists them). Never while typing in a field, in a dialog,
 * or with a modifier held (the browser's and the screen reader's own keys stay theirs).
 */
export function usePageShortcuts({ openTab, showShortcuts, focusMessage }: PageShortcuts): void {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      if (isTyping(event.target) || document.querySelector('dialog[open]') !== null) return;
      if (event.key === '?') {
        event.preventDefault();
        showShortcuts();
      } else if (event.key === '/') {
        event.preventDefault();
        focusMessage();
      } else {
        const tab = TAB_KEYS[event.key];
        if (tab === undefined) return;
        event.preventDefault();
        openTab(tab);
      }
    };
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('keydown', onKeyDown);
    };
  }, [openTab, showShortcuts, focusMessage]);
}

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}
