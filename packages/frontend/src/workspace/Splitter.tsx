import type { KeyboardEvent, PointerEvent } from 'react';
import { SIDE_WIDTH_MAX, SIDE_WIDTH_MIN } from './use-side-width.ts';

/** How far one arrow key moves the splitter; Page Up/Down move it further. */
const STEP_PX = 32;
const PAGE_STEP_PX = 128;

interface SplitterProps {
  width: number;
  onResize: (width: number) => void;
  /** The id of the side panel it resizes. */
  controls: string;
}

/**
 * Between the conversation and the side panel: drag it, or focus it and use the arrow keys (left widens the side
 * panel, which sits on the right), Home and End (WAI-ARIA's window splitter).
 */
export function Splitter({ width, onResize, controls }: SplitterProps) {
  const onKeyDown = (event: KeyboardEvent) => {
    const change = keyChange(event.key);
    if (change === undefined) return;
    event.preventDefault();
    onResize(change === 'min' ? SIDE_WIDTH_MIN : change === 'max' ? SIDE_WIDTH_MAX : width + change);
  };
  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => {
    if (event.button !== 0) return;
    event.preventDefault();
    const handle = event.currentTarget;
    handle.setPointerCapture(event.pointerId);
    const startX = event.clientX;
    const startWidth = width;
    const move = (moved: globalThis.PointerEvent) => {
      onResize(startWidth + (startX - moved.clientX));
    };
    const stop = () => {
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', stop);
      handle.removeEventListener('pointercancel', stop);
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', stop);
    handle.addEventListener('pointercancel', stop);
  };
  return (
    <div
      className="ws-splitter"
      role="separator"
      tabIndex={0}
      aria-orientation="vertical"
      aria-label="Side panel width"
      aria-controls={controls}
      aria-valuemin={SIDE_WIDTH_MIN}
      aria-valuemax={SIDE_WIDTH_MAX}
      aria-valuenow={width}
      onKeyDown={onKeyDown}
      onPointerDown={onPointerDown}
    />
  );
}

function keyChange(key: string): number | 'min' | 'max' | undefined {
  switch (key) {
    case 'ArrowLeft':
      return STEP_PX;
    case 'ArrowRight':
      return -STEP_PX;
    case 'PageUp':
      return PAGE_STEP_PX;
    case 'PageDown':
      return -PAGE_STEP_PX;
    case 'Home':
      return 'min';
    case 'End':
      return 'max';
    default:
      return undefined;
  }
}
