import type { ErrorFrame, SubscribedFrame } from '@catalyst/protocol';
import { useEffect, useRef, useState } from 'react';
import {
  applyFrames,
  emptyTranscript,
  withoutDrafts,
  type TranscriptState,
} from '../transcript/transcript-state.ts';
import type { Connection } from './connection.ts';

export interface ShownError {
  readonly id: number;
  readonly frame: ErrorFrame;
}

export interface IdeaStream {
  transcript: TranscriptState;
  /** The server's answer to the latest (re)subscribe; undefined until it arrives. */
  subscribed: SubscribedFrame | undefined;
  /** The replay the latest subscribe asked for has arrived: what follows is live. */
  isLive: boolean;
  errors: readonly ShownError[];
  dismissError(id: number): void;
}

let errorIds = 0;

/**
 * One idea's live history: subscribes through the page's connection, and on every reconnect continues from the
 * newest `seq` it holds. The transcript state dedupes and orders by `seq`, so a replay overlapping live events
 * renders each event once.
 */
export function useIdeaStream(connection: Connection, ideaId: string): IdeaStream {
  const [transcript, setTranscript] = useState<TranscriptState>(emptyTranscript);
  const [subscribed, setSubscribed] = useState<SubscribedFrame>();
  const [errors, setErrors] = useState<readonly ShownError[]>([]);
  const current = useRef(transcript);

  useEffect(() => {
    const update = (next: TranscriptState) => {
      if (next === current.current) return;
      current.current = next;
      setTranscript(next);
    };
    current.current = emptyTranscript;
    setTranscript(emptyTranscript);
    setSubscribed(undefined);
    return connection.subscribe({
      ideaId,
      lastSeq: () => current.current.lastSeq,
      onFrames: (frames) => {
        update(applyFrames(current.current, frames));
      },
      onSubscribed: (frame, replay) => {
        // The events held came from a history the server no longer has (they would shadow its events of the same
        // seq): the replay that came before this answer is the server's whole history, so it alone is kept.
        if (frame.reset === true) update(applyFrames(emptyTranscript, replay));
        setSubscribed(frame);
      },
      onError: (frame) => {
        errorIds += 1;
        const shown = { id: errorIds, frame };
        setErrors((list) => [...list.slice(-4), shown]);
      },
      onDisconnected: () => {
        update(withoutDrafts(current.current));
        setSubscribed(undefined);
      },
    });
  }, [connection, ideaId]);

  return {
    transcript,
    subscribed,
    // The replay ends at `lastSeq` of the answer; the events up to it are in once the state has reached it.
    isLive: subscribed !== undefined && transcript.lastSeq >= subscribed.lastSeq,
    errors,
    dismissError: (id) => {
      setErrors((list) => list.filter((item) => item.id !== id));
    },
  };
}
