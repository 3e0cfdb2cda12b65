import { useCallback, useState } from 'react';
import { z } from 'zod';

/** The side panel's width in pixels, remembered in this browser (issue 31). */

const STORAGE_KEY = 'catalyst.sidePanelWidth';
export const SIDE_WIDTH_MIN = 320;
export const SIDE_WIDTH_MAX = 960;
export const SIDE_WIDTH_DEFAULT = 560;

const StoredWidthSchema = z.coerce.number().int().min(SIDE_WIDTH_MIN).max(SIDE_WIDTH_MAX);

export function clampSideWidth(width: number): number {
  return Math.round(Math.min(SIDE_WIDTH_MAX, Math.max(SIDE_WIDTH_MIN, width)));
}

function readStoredWidth(): number {
  let stored: string | null = null;
  try {
    stored = localStorage.getItem(STORAGE_KEY);
  } catch {
    // Storage refused (a private window's policy): the default width, nothing remembered.
    return SIDE_WIDTH_DEFAULT;
  }
  const parsed = StoredWidthSchema.safeParse(stored);
  return parsed.success ? parsed.data : SIDE_WIDTH_DEFAULT;
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
