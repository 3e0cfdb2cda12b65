import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

/**
 * The idea's actions (edit, delete, notify) behind one button (issue 31), so the page's top is the idea, not a row
 * of buttons. A small non-modal dialog: it takes the focus when it opens; Escape, a click elsewhere or choosing an
 * action closes it, and the focus goes back to the button.
 */
export function IdeaMenu({ children }: { children: (close: () => void) => ReactNode }) {
  const [isOpen, setIsOpen] = useState(false);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const popupRef = useRef<HTMLDivElement>(null);
  const popupId = useId();

  useEffect(() => {
    if (!isOpen) return undefined;
    popupRef.current?.querySelector<HTMLElement>('button:not(:disabled)')?.focus();
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
    return () => {
      document.removeEventListener('pointerdown', onPointerDown);
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
        <div
          ref={popupRef}
          id={popupId}
          role="dialog"
          aria-label="Idea actions"
          className="idea-menu__popup"
          onKeyDown={(event) => {
            if (event.key !== 'Escape') return;
            event.preventDefault();
            close();
          }}
        >
          {children(close)}
        </div>
      ) : null}
    </div>
  );
}
