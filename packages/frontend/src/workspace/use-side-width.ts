import { useCallback, useState } from 'react';
import { z } from 'zod';

/** The side panel's width in pixels, remembered in this browser (issue 31). */

const STORAGE_KEY = 'catalyst.sidePanelWidth';
export const SIDE_WIDTH_MIN = 320;
export const SIDE_WIDTH_MAX = 960;
/** Until the person sets one: about two fifths of the window, the conversation keeping the rest. */
const DEFAULT_SHARE = 0.42;

const StoredWidthSchema = z.coerce.number().int().min(SIDE_WIDTH_MIN).max(SIDE_WIDTH_MAX);

export function clampSideWidth(width: number): number {
  return Math.round(Math.min(SIDE_WIDTH_MAX, Math.max(SIDE_WIDTH_MIN, width)));
}

function readStoredWidth(): number {
  const fallback = clampSideWidth(window.innerWidth * DEFAULT_SHARE);
  let stored: string | null = null;
  try {
    stored = localStorage.getItem(STORAGE_KEY);
  } catch {
    // Storage refused (a private window's policy): the default width, nothing remembered.
    return fallback;
  }
  const parsed = StoredWidthSchema.safeParse(stored);
  return parsed.success ? parsed.data : fallback;
}

export function useSideWidth(): [number, (width: number) => void] {
  const [width, setWidth] = useState(readStoredWidth);
  const change = useCallback((next: number) => {
    const clamped = clampSideWidth(next);
    setWidth(clamped);
    try {
      localStorage.setItem(STORAGE_KEY, String(clamped));
    } catch {
      // Not remembered; the width still changes for this page.
    }
  }, []);
  return [width, change];
}
