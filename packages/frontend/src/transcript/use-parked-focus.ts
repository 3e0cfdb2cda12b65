import { useLayoutEffect, useRef, type FocusEvent } from 'react';

/** Marks an element that holds the focus only because what had it went away (the composer takes it back). */
export const PARKED_FOCUS_ATTRIBUTE = 'data-parked-focus';

/**
 * A card whose controls disappear when it closes (a decided question or permission) keeps the keyboard's place:
 * if the focus was inside it, the card itself takes the focus instead of leaving it on the page's body.
 */
export function useParkedFocus<E extends HTMLElement>(isClosed: boolean) {
  const ref = useRef<E>(null);
  const hadFocus = useRef(false);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!isClosed || !hadFocus.current || element === null) return;
    hadFocus.current = false;
    const active = document.activeElement;
    if (active === null || active === document.body) element.focus();
  }, [isClosed]);
  return {
    ref,
    tabIndex: -1,
    [PARKED_FOCUS_ATTRIBUTE]: isClosed ? '' : undefined,
    onFocus: () => {
      hadFocus.current = true;
    },
    onBlur: (event: FocusEvent<E>) => {
      // Focus moved somewhere else on purpose; a control that disappears blurs with no next target.
      const next = event.relatedTarget;
      if (next !== null && !event.currentTarget.contains(next)) hadFocus.current = false;
    },
  };
}
