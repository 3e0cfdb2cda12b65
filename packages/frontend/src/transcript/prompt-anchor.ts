import { useEffect, useRef } from 'react';

/**
 * A question's or permission request's card is `#seq-<n>` (its event's seq): a push opens `/ideas/<id>#seq-<n>`
 * (issue 29), and the page brings that card into view once the transcript has it.
 */
export function promptAnchor(seq: number): string {
  return `seq-${String(seq)}`;
}

/** Brings the card the address's `#seq-<n>` names into view and focus, once, when it is there. */
export function useScrollToAnchor(itemCount: number): void {
  const wanted = useRef(/^#seq-\d+$/.test(window.location.hash) ? window.location.hash.slice(1) : undefined);
  useEffect(() => {
    const id = wanted.current;
    if (id === undefined) return;
    const card = document.getElementById(id);
    if (card === null) return;
    wanted.current = undefined;
    card.scrollIntoView({ block: 'center' });
    if (!card.hasAttribute('tabindex')) card.setAttribute('tabindex', '-1');
    card.focus({ preventScroll: true });
  }, [itemCount]);
}
