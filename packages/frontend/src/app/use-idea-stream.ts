import type { ErrorFrame, SubscribedFrame } from '@catalyst/protocol';
import { useEffect, useRef, useState } from 'react';
import { applyFrames, emptyTranscript, type TranscriptState } from '../transcript/transcript-state.ts';
import type { Connection } from './connection.ts';

export interface IdeaStream {
  transcript: TranscriptState;
  /** The server's answer to the latest (re)subscribe; undefined until the first arrives. */
  subscribed: SubscribedFrame | undefined;
  errors: readonly ErrorFrame[];
  dismissError(frame: ErrorFrame): void;
}

/**
 * One idea's live history: subscribes through the page's connection, and on every reconnect continues from the
 * newest `seq` it holds. The transcript state dedupes and orders by `seq`, so a replay overlapping live events
 * renders each event once.
 */
export function useIdeaStream(connection: Connection, ideaId: string): IdeaStream {
  const [transcript, setTranscript] = useState<TranscriptState>(emptyTranscript);
  const [subscribed, setSubscribed] = useState<SubscribedFrame>();
  const [errors, setErrors] = useState<readonly ErrorFrame[]>([]);
  const current = useRef(transcript);

  useEffect(() => {
    current.current = emptyTranscript;
    setTranscript(emptyTranscript);
    return connection.subscribe({
      ideaId,
      lastSeq: () => current.current.lastSeq,
      onFrames: (frames) => {
        const next = applyFrames(current.current, frames);
        if (next === current.current) return;
        current.current = next;
        setTranscript(next);
      },
      onSubscribed: setSubscribed,
      onError: (frame) => {
        setErrors((list) => [...list.slice(-4), frame]);
      },
    });
  }, [connection, ideaId]);

  return {
    transcript,
    subscribed,
    errors,
    dismissError: (frame) => {
      setErrors((list) => list.filter((item) => item !== frame));
    },
  };
}
