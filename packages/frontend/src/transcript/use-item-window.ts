import { useCallback, useEffect, useState } from 'react';
import type { TranscriptItem } from './transcript-items.ts';

/**
 * How many items render at first, and how many more each "Show earlier" adds. A long idea replays thousands of
 * events; rendering them all (Markdown, highlighting, diffs) would stall the page for seconds on open.
 */
export const ITEM_WINDOW = 300;

/**
 * The items from a first one on. The first is pinned by key once chosen, so live items only add at the end and
 * nothing slides out of the top under a reader.
 */
export function useItemWindow(
  items: readonly TranscriptItem[],
  /** False while a replay is still arriving (in batches): pinning then would pin a partial history's start. */
  canPin = true,
): {
  visible: readonly TranscriptItem[];
  hiddenCount: number;
  showEarlier: () => void;
} {
  const [firstKey, setFirstKey] = useState<string>();
  const pinned = firstKey === undefined ? -1 : items.findIndex((item) => item.key === firstKey);
  const first = pinned >= 0 ? pinned : Math.max(0, items.length - ITEM_WINDOW);
  const firstItemKey = items[first]?.key;

  useEffect(() => {
    if (canPin && pinned < 0 && firstItemKey !== undefined) setFirstKey(firstItemKey);
  }, [canPin, pinned, firstItemKey]);

  const showEarlier = useCallback(() => {
    setFirstKey(items[Math.max(0, first - ITEM_WINDOW)]?.key);
  }, [items, first]);

  return { visible: first === 0 ? items : items.slice(first), hiddenCount: first, showEarlier };
}
