import type { ClientFrame, HostHealthView, IdeaView, RunMode } from '@catalyst/protocol';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Transcript, type TranscriptActions } from '../transcript/Transcript.tsx';
import { summarize } from '../transcript/transcript-state.ts';
import { api, describeError } from './api.ts';
import { useConnection, useConnectionState } from './App.tsx';
import { Composer } from './Composer.tsx';
import { ConnectionBanner } from './ConnectionBanner.tsx';
import { IdeaHeader } from './IdeaHeader.tsx';
import { navigate } from './router.ts';
import { useIdeaStream } from './use-idea-stream.ts';

/** One idea: its header, the live transcript, and the composer. */
export function IdeaPage({ ideaId }: { ideaId: string }) {
  const connection = useConnection();
  const connectionState = useConnectionState(connection);
  const stream = useIdeaStream(connection, ideaId);
  const summary = useMemo(() => summarize(stream.transcript), [stream.transcript]);
  const [idea, setIdea] = useState<IdeaView>();
  const [loadError, setLoadError] = useState<string>();
  const [host, setHost] = useState<HostHealthView>();
  const [stoppingRun, setStoppingRun] = useState<string>();
  const [sendError, setSendError] = useState<string>();
  const requestCounter = useRef(0);

  const reload = useCallback(async () => {
    try {
      setIdea(await api.getIdea(ideaId));
      setLoadError(undefined);
    } catch (caught) {
      setLoadError(describeError(caught));
    }
  }, [ideaId]);

  useEffect(() => {
    void reload();
  }, [reload]);

  const hostName = idea?.host;
  useEffect(() => {
    if (hostName === undefined) return;
    let live = true;
    api.hosts().then(
      (hosts) => {
        if (live) setHost(hosts.find((candidate) => candidate.name === hostName));
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [hostName]);

  useEffect(() => {
    document.title = `${idea?.meta?.title ?? 'Idea'} · Catalyst`;
  }, [idea?.meta?.title]);

  // Totals and status live in meta.json: fetch again when a run ends or the status moves.
  const activeRunId = summary.activeRun?.runId;
  useEffect(() => {
    if (activeRunId === undefined) setStoppingRun(undefined);
    void reload();
  }, [activeRunId, summary.status, reload]);

  const send = useCallback(
    (frame: ClientFrame): boolean => {
      const sent = connection.send(frame);
      setSendError(sent ? undefined : 'Not connected: Catalyst is reconnecting. Try again in a moment.');
      return sent;
    },
    [connection],
  );

  const nextRequestId = () => {
    requestCounter.current += 1;
    return `ui-${requestCounter.current}`;
  };

  const actions: TranscriptActions = useMemo(
    () => ({
      answer: (questionId, answers) => {
        send({ type: 'answer', ideaId, questionId, answers });
      },
      dismiss: (questionId) => {
        send({ type: 'dismiss', ideaId, questionId });
      },
      permission: (requestId, decision, remember) => {
        send({ type: 'permission', ideaId, requestId, decision, ...(remember ? { remember } : {}) });
      },
    }),
    [send, ideaId],
  );

  if (loadError !== undefined && idea === undefined) {
    return (
      <main className="centered">
        <div className="panel">
          <h1>This idea cannot be opened</h1>
          <p role="alert">{loadError}</p>
          <button
            type="button"
            onClick={() => {
              navigate('/');
            }}
          >
            Back to your ideas
          </button>
        </div>
      </main>
    );
  }

  const hasBuilt =
    idea?.meta?.lastMode === 'build' ||
    stream.transcript.events.some((e) => e.type === 'run:started' && e.mode === 'build');
  const running = summary.activeRun !== undefined;

  return (
    <main className="page idea-page">
      <ConnectionBanner state={connectionState} />
      <IdeaHeader
        ideaId={ideaId}
        idea={idea}
        host={host}
        liveStatus={summary.status}
        sessionId={summary.sessionId ?? idea?.meta?.sessionId}
        running={running}
        onChanged={setIdea}
      />
      {stream.errors.map((frame, index) => (
        <p className="form-error" role="alert" key={`${frame.code}-${index}`}>
          {frame.message}{' '}
          <button
            type="button"
            className="link"
            onClick={() => {
              stream.dismissError(frame);
            }}
          >
            Dismiss
          </button>
        </p>
      ))}
      <Transcript state={stream.transcript} actions={actions} />
      {sendError === undefined ? null : (
        <p className="form-error" role="alert">
          {sendError}
        </p>
      )}
      <Composer
        ideaId={ideaId}
        connected={connectionState === 'open'}
        running={running}
        runMode={summary.activeRun?.mode}
        stopping={stoppingRun !== undefined && stoppingRun === activeRunId}
        hasBuilt={hasBuilt}
        hostName={hostName}
        slashCommands={summary.slashCommands}
        waitingForPerson={summary.pendingQuestionIds.length + summary.pendingPermissionIds.length > 0}
        onSend={(mode: RunMode, message: string) =>
          send({ type: mode, ideaId, message, requestId: nextRequestId() })
        }
        onCancel={() => {
          if (send({ type: 'cancel', ideaId, requestId: nextRequestId() })) setStoppingRun(activeRunId);
        }}
      />
    </main>
  );
}
