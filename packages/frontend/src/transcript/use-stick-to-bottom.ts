import { useCallback, useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react';

/** Within this many pixels of the end counts as "at the bottom" (sub-pixel rounding, a last line half shown). */
const BOTTOM_SLACK_PX = 48;

interface StickToBottom<T extends HTMLElement> {
  ref: RefObject<T | null>;
  isAtBottom: boolean;
  scrollToBottom: () => void;
}

/**
 * Keeps the reader at the newest content while they are at the bottom, and leaves them where they are once they
 * scroll up. Follows the element when it is its own scroll container, else the page (the layout decides which).
 * `content` changes whenever something was added.
 */
export function useStickToBottom<T extends HTMLElement>(content: unknown): StickToBottom<T> {
  const ref = useRef<T>(null);
  const isAtBottomRef = useRef(true);
  const [isAtBottom, setIsAtBottom] = useState(true);

  useEffect(() => {
    const element = ref.current;
    if (element === null) return undefined;
    const onScroll = () => {
      const atBottom = measureIsAtBottom(element);
      isAtBottomRef.current = atBottom;
      setIsAtBottom(atBottom);
    };
    element.addEventListener('scroll', onScroll, { passive: true });
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      element.removeEventListener('scroll', onScroll);
      window.removeEventListener('scroll', onScroll);
    };
  }, []);

  const scrollToBottom = useCallback(() => {
    const element = ref.current;
    if (element === null) return;
    isAtBottomRef.current = true;
    setIsAtBottom(true);
    const page = document.documentElement;
    if (isOwnScroller(element)) element.scrollTop = element.scrollHeight;
    else if (page.scrollHeight > window.innerHeight) window.scrollTo({ top: page.scrollHeight });
  }, []);

  // Before paint, so the reader never sees the new content below the fold and then a jump.
  useLayoutEffect(() => {
    if (isAtBottomRef.current) scrollToBottom();
  }, [content, scrollToBottom]);

  return { ref, isAtBottom, scrollToBottom };
}

function isOwnScroller(element: HTMLElement): boolean {
  if (element.scrollHeight <= element.clientHeight) return false;
  const overflow = getComputedStyle(element).overflowY;
  return overflow === 'auto' || overflow === 'scroll';
}

function measureIsAtBottom(element: HTMLElement): boolean {
  if (isOwnScroller(element)) {
    return element.scrollHeight - element.scrollTop - element.clientHeight <= BOTTOM_SLACK_PX;
  }
  const page = document.documentElement;
  return page.scrollHeight - window.scrollY - window.innerHeight <= BOTTOM_SLACK_PX;
}
