import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { useWorkspaceTab } from '../workspace/use-workspace-tab.ts';
import { usePath } from '../base/router.ts';

/**
 * The idea's actions (edit, delete, notify) behind one button (issue 31), so the page's top is the idea, not a row
 * of buttons. A small non-modal dialog: it takes the focus when it opens; Escape, a click elsewhere or choosing an
 * action closes it, and the focus goes back to the button. Escape is heard on the whole document while it is open
 * (a tap on its padding leaves the focus on the page), and a navigation (another path or tab) closes it too
 * (issue 40). On a narrow screen it opens in the page's flow, pushing the tabs down rather than covering them.
 */
export function IdeaMenu({ children }: { children: (close: () => void) => ReactNode }) {
  const [isOpen, setIsOpen] = useState(false);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const popupRef = useRef<HTMLDivElement>(null);
  const popupId = useId();
  const place = `${usePath()}?${useWorkspaceTab()[0] ?? ''}`;

  useEffect(() => {
    setIsOpen(false);
  }, [place]);

  useEffect(() => {
    if (!isOpen) return undefined;
    popupRef.current?.querySelector<HTMLElement>('button:not(:disabled)')?.focus();
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      event.preventDefault();
      setIsOpen(false);
      buttonRef.current?.focus();
    };
    const onPointerDown = (event: PointerEvent) => {
      const target = event.target;
      if (
        target instanceof Node &&
        (popupRef.current?.contains(target) || buttonRef.current?.contains(target))
      )
        return;
      setIsOpen(false);
    };
    document.addEventListener('pointerdown', onPointerDown);
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown);
      document.removeEventListener('keydown', onKeyDown);
    };
  }, [isOpen]);

  const close = () => {
    setIsOpen(false);
    buttonRef.current?.focus();
  };
  return (
    <div className="idea-menu">
      <button
        ref={buttonRef}
        type="button"
        aria-haspopup="dialog"
        aria-expanded={isOpen}
        aria-controls={isOpen ? popupId : undefined}
        onClick={() => {
          setIsOpen((open) => !open);
        }}
      >
        Idea actions
      </button>
      {isOpen ? (
        <div ref={popupRef} id={popupId} role="dialog" aria-label="Idea actions" className="idea-menu__popup">
          {children(close)}
        </div>
      ) : null}
    </div>
  );
}
