import type { ClientFrame, ErrorFrame, RelayEvent, RunMode } from '@catalyst/protocol';
import { useCallback, useEffect, useState } from 'react';
import type { Connection, ConnectionState, SendResult } from './connection.ts';
import { carriesMessage, stepIdsUpTo } from './idea-events.ts';

const SEND_PROBLEMS: Record<SendResult, string | undefined> = {
  sent: undefined,
  offline: 'Not connected: Catalyst is reconnecting. Try again in a moment.',
  too_large: 'That is too long to send in one message. Shorten it, or split it in parts.',
};

/** A message sent and not yet answered by its run:started (accepted) or an error naming its request (refused). */
interface PendingSend {
  requestId: string;
  message: string;
  /** The newest event seen when it was sent: its run:started comes after. */
  afterSeq: number;
  /** Its socket closed before the answer came: the answer may come with the replay, or never. */
  isInterrupted?: boolean;
}

/** How long an interrupted send waits for its run:started once the page has caught up again. */
const INTERRUPTED_SEND_GRACE_MS = 3000;

export interface MessageSendsOptions {
  connection: Connection;
  connectionState: ConnectionState;
  ideaId: string;
  events: readonly RelayEvent[];
  lastSeq: number;
  isLive: boolean;
  /** The error frames shown: one that names a request refused it. */
  errors: readonly ErrorFrame[];
  /** The run going now, if any. */
  activeRunId: string | undefined;
}

export interface MessageSends {
  /** Sends a frame; a frame that could not go says why in `sendError`. */
  send: (frame: ClientFrame) => boolean;
  /** A chat or build message; `isPending` until its run starts, it is queued, or it is refused. */
  sendMessage: (mode: RunMode, message: string) => void;
  /** Cancels the run going now; `isStopping` until it ends or the cancel is refused. */
  cancel: () => void;
  sendError: string | undefined;
  isPending: boolean;
  /** How many messages were accepted so far (the composer clears its box on each). */
  accepted: number;
  isStopping: boolean;
}

/** The idea page's messages and cancels on their way: sent as frames, followed until the history answers them. */
export function useMessageSends(options: MessageSendsOptions): MessageSends {
  const { connection, connectionState, ideaId, events, lastSeq, isLive, errors, activeRunId } = options;
  const [sendError, setSendError] = useState<string>();
  /** A chat/build frame sent, not yet started (`run:started`) nor refused (an error frame with its requestId). */
  const [pending, setPending] = useState<PendingSend>();
  const [accepted, setAccepted] = useState(0);
  const [stoppingRun, setStoppingRun] = useState<{ runId: string; requestId: string }>();

  useEffect(() => {
    if (activeRunId === undefined) setStoppingRun(undefined);
  }, [activeRunId]);

  // Back online: the old error is stale. Offline: an unanswered send may or may not have reached the server
  // before its socket died.
  useEffect(() => {
    if (connectionState === 'open') setSendError(undefined);
    else setPending((current) => (current === undefined ? current : { ...current, isInterrupted: true }));
  }, [connectionState]);

  // If it did, its run:started comes with the replay or just after it; once caught up, the send waits a little
  // longer, then stops waiting (its text is still in the box, as for any message whose run did not start).
  useEffect(() => {
    if (pending?.isInterrupted !== true || connectionState !== 'open' || !isLive) return undefined;
    const timer = setTimeout(() => {
      setPending(undefined);
    }, INTERRUPTED_SEND_GRACE_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [pending, connectionState, isLive]);

  // A pending message is accepted when its run starts or it joins the queue, refused when an error names its
  // request.
  useEffect(() => {
    if (pending === undefined) return;
    const known = stepIdsUpTo(events, pending.afterSeq);
    const started = events.some((e) => e.seq > pending.afterSeq && carriesMessage(e, pending.message, known));
    if (started) {
      setPending(undefined);
      setAccepted((count) => count + 1);
    }
  }, [pending, events]);
  useEffect(() => {
    if (pending !== undefined && errors.some((frame) => frame.requestId === pending.requestId)) {
      setPending(undefined);
    }
    if (stoppingRun !== undefined && errors.some((frame) => frame.requestId === stoppingRun.requestId)) {
      setStoppingRun(undefined);
    }
  }, [pending, stoppingRun, errors]);

  const send = useCallback(
    (frame: ClientFrame): boolean => {
      const result: SendResult = connection.send(frame);
      setSendError(SEND_PROBLEMS[result]);
      return result === 'sent';
    },
    [connection],
  );
  const sendMessage = useCallback(
    (mode: RunMode, message: string) => {
      const requestId = connection.nextRequestId('send');
      if (send({ type: mode, ideaId, message, requestId })) {
        setPending({ requestId, message, afterSeq: lastSeq });
      }
    },
    [connection, send, ideaId, lastSeq],
  );
  const cancel = useCallback(() => {
    const requestId = connection.nextRequestId('cancel');
    if (activeRunId !== undefined && send({ type: 'cancel', ideaId, requestId })) {
      setStoppingRun({ runId: activeRunId, requestId });
    }
  }, [connection, send, ideaId, activeRunId]);

  return {
    send,
    sendMessage,
    cancel,
    sendError,
    isPending: pending !== undefined,
    accepted,
    isStopping: stoppingRun !== undefined && stoppingRun.runId === activeRunId,
  };
}
