import type { ErrorFrame } from '@catalyst/protocol';
import { useEffect, useMemo, useState } from 'react';
import type { Connection } from './connection.ts';
import type { IdeaStream } from './use-idea-stream.ts';

export interface DismissableError {
  id: string;
  frame: ErrorFrame;
  dismiss: () => void;
}

/**
 * The error frames the idea's page shows: the idea's own, and those no idea claims (a frame too large to be read
 * has no idea on it), the newest three of them.
 */
export function useShownErrors(
  connection: Connection,
  stream: IdeaStream,
): { shown: DismissableError[]; frames: readonly ErrorFrame[] } {
  const [unclaimed, setUnclaimed] = useState<readonly ErrorFrame[]>([]);
  useEffect(
    () =>
      connection.onError((frame) => {
        setUnclaimed((list) => [...list.slice(-2), frame]);
      }),
    [connection],
  );
  const ideaErrors = stream.errors;
  const frames = useMemo(
    () => [...ideaErrors.map((error) => error.frame), ...unclaimed],
    [ideaErrors, unclaimed],
  );
  const shown = [
    ...ideaErrors.map((error) => ({
      id: `idea-${String(error.id)}`,
      frame: error.frame,
      dismiss: () => {
        stream.dismissError(error.id);
      },
    })),
    ...unclaimed.map((frame, index) => ({
      id: `unclaimed-${String(index)}`,
      frame,
      dismiss: () => {
        setUnclaimed((list) => list.filter((item) => item !== frame));
      },
    })),
  ];
  return { shown, frames };
}
