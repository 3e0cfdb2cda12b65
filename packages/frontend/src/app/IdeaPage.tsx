import type {
  ClientFrame,
  ErrorFrame,
  HostCheckView,
  HostHealthView,
  IdeaView,
  QueuedStep,
  RelayEvent,
  RunMode,
} from '@catalyst/protocol';
import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { AsidePanel, AsideToggle } from '../asides/AsidePanel.tsx';
import { useAsides } from '../asides/use-asides.ts';
import { AutopilotPanel, AutopilotToggle } from '../autopilot/AutopilotPanel.tsx';
import { useAutopilot } from '../autopilot/use-autopilot.ts';
import { QueuePanel } from '../autopilot/QueuePanel.tsx';
import { BudgetNotice, CONTINUE_MESSAGE } from './BudgetNotice.tsx';
import { CheckpointList } from '../checkpoints/CheckpointList.tsx';
import { FilesPanel } from '../files/FilesPanel.tsx';
import { ProjectLinksProvider } from '../files/project-context.ts';
import { useProjectFiles } from '../files/use-project-files.ts';
import { NotifyButton } from '../notify/NotifyButton.tsx';
import { usePushDevice } from '../notify/push-context.ts';
import { isMutedHere } from '../notify/push-device.ts';
import { useAttention } from '../notify/use-attention.ts';
import { PreviewPanel } from '../preview/PreviewPanel.tsx';
import { Transcript, type TranscriptActions } from '../transcript/Transcript.tsx';
import { summarize } from '../transcript/transcript-state.ts';
import { api, ApiError, describeError } from './api.ts';
import { AppLink } from './AppLink.tsx';
import { HostNotReady } from './HostNotReady.tsx';
import { useConnection, useConnectionState } from './App.tsx';
import type { SendResult } from './connection.ts';
import { Composer } from './Composer.tsx';
import { findLastRun } from './composer-mode.ts';
import { ConnectionBanner } from './ConnectionBanner.tsx';
import { IdeaHeader } from './IdeaHeader.tsx';
import { SettingsPanel } from './IdeaSettings.tsx';
import { NoticePage } from './NoticePage.tsx';
import { navigate } from './router.ts';
import { useIdeaStream } from './use-idea-stream.ts';
import { useShownMode } from './use-shown-mode.ts';
import { useViewing } from './use-viewing.ts';
import { ShortcutsDialog } from '../workspace/ShortcutsDialog.tsx';
import { usePageShortcuts } from '../workspace/use-page-shortcuts.ts';
import { TerminalPanel } from '../terminal/TerminalPanel.tsx';
import { Workspace } from '../workspace/Workspace.tsx';
import { shownTab, useIsWide, useWorkspaceTab, type SideTab } from '../workspace/use-workspace-tab.ts';

/** One idea: its header, the live transcript, and the composer. */
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

export function IdeaPage({ ideaId }: { ideaId: string }) {
  const connection = useConnection();
  const connectionState = useConnectionState(connection);
  const stream = useIdeaStream(connection, ideaId);
  const summary = useMemo(() => summarize(stream.transcript), [stream.transcript]);
  const [idea, setIdea] = useState<IdeaView>();
  const [loadError, setLoadError] = useState<string>();
  /** The server said there is no such idea: deleted (here, or in another tab or device). */
  const [isGone, setIsGone] = useState(false);
  const [host, setHost] = useState<HostHealthView>();
  const [hostCheck, setHostCheck] = useState<HostCheckView | null>();
  const [stoppingRun, setStoppingRun] = useState<{ runId: string; requestId: string }>();
  const [sendError, setSendError] = useState<string>();
  /** A chat/build frame sent, not yet started (`run:started`) nor refused (an error frame with its requestId). */
  const [pending, setPending] = useState<PendingSend>();
  const [accepted, setAccepted] = useState(0);
  /** The run stopped at the idea's budget whose notice the person put away. */
  const [dismissedBudgetStop, setDismissedBudgetStop] = useState<string>();
  const [unclaimedErrors, setUnclaimedErrors] = useState<readonly ErrorFrame[]>([]);
  const loads = useRef(0);
  const autopilot = useAutopilot(ideaId, stream.transcript.events, stream.isLive);
  const [isAutopilotOpen, setIsAutopilotOpen] = useState(false);
  const autopilotPanelId = useId();
  const filesPanelId = useId();
  const previewPanelId = useId();
  const asides = useAsides(ideaId, stream.transcript.events);
  const [isAsideOpen, setIsAsideOpen] = useState(false);
  const [jumpSlot, setJumpSlot] = useState<HTMLDivElement | null>(null);
  const asidePanelId = useId();

  // Only the newest answer counts: a slow older one must not overwrite a settings change made since.
  const reload = useCallback(async () => {
    loads.current += 1;
    const load = loads.current;
    try {
      const fresh = await api.getIdea(ideaId);
      if (load !== loads.current) return;
      setIdea(fresh);
      setLoadError(undefined);
    } catch (caught) {
      if (load !== loads.current) return;
      setLoadError(describeError(caught));
      if (caught instanceof ApiError && caught.code === 'IDEA_NOT_FOUND') setIsGone(true);
    }
  }, [ideaId]);

  // Once at first, without waiting for the stream: an idea that no longer exists never becomes live.
  useEffect(() => {
    void reload();
  }, [reload]);
  const applyChange = useCallback((changed: IdeaView) => {
    loads.current += 1;
    setIdea(changed);
  }, []);

  // Errors no idea claims (a frame too large to be read has no idea on it) still reach the person.
  useEffect(
    () =>
      connection.onError((frame) => {
        setUnclaimedErrors((list) => [...list.slice(-2), frame]);
      }),
    [connection],
  );

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
    api.lastHostCheck(hostName).then(
      (check) => {
        if (live) setHostCheck(check);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [hostName]);

  useViewing(connection, connectionState, ideaId);
  const [shownMode, setShownMode] = useState<RunMode>();
  useShownMode(connection, connectionState, { ideaId, mode: shownMode, isLive: stream.isLive });
  const push = usePushDevice();
  useAttention({
    ideaId,
    isMutedHere: isMutedHere(push.state, ideaId),
    events: stream.transcript.events,
    lastSeq: stream.transcript.lastSeq,
    isLive: stream.isLive,
    ideaTitle: idea?.meta?.title,
    ideaPolicy: idea?.meta?.questionPolicy,
  });

  // A run the history shows as started but the server (after the replay) says is not running ended without its
  // `run:ended`: Catalyst was stopped mid-run. The page must not wait for it forever.
  const subscribed = stream.subscribed;
  const isOrphaned =
    summary.activeRun !== undefined &&
    subscribed !== undefined &&
    !subscribed.running &&
    summary.activeRun.startedSeq <= subscribed.lastSeq;
  const activeRunId = isOrphaned ? undefined : summary.activeRun?.runId;
  const running = activeRunId !== undefined;
  const isWide = useIsWide();
  const [urlTab, setTab] = useWorkspaceTab();
  const isFilesShown = shownTab(urlTab, isWide) === 'files';
  /** The Terminal tab, once opened, stays mounted: its shells stay attached while another tab is in sight. */
  const [hasOpenedTerminal, setHasOpenedTerminal] = useState(false);
  const isTerminalShown = shownTab(urlTab, isWide) === 'terminal';
  useEffect(() => {
    if (isTerminalShown) setHasOpenedTerminal(true);
  }, [isTerminalShown]);
  const setIsFilesShown = useCallback(
    (isShown: boolean) => {
      setTab(isShown ? 'files' : isWide ? 'changes' : 'conversation');
    },
    [setTab, isWide],
  );
  const filesShown = useMemo(
    () => ({ isShown: isFilesShown, setIsShown: setIsFilesShown }),
    [isFilesShown, setIsFilesShown],
  );
  const files = useProjectFiles(stream.transcript.events, running, summary.projectRoot, filesShown);
  const [isShowingShortcuts, setIsShowingShortcuts] = useState(false);
  const showShortcuts = useCallback(() => {
    setIsShowingShortcuts(true);
  }, []);
  const focusMessage = useCallback(() => {
    if (!isWide) setTab('conversation');
    // After the conversation is in sight: a hidden box takes no focus.
    requestAnimationFrame(() => {
      document.getElementById(`message-${ideaId}`)?.focus();
    });
  }, [isWide, setTab, ideaId]);
  usePageShortcuts({ openTab: setTab, showShortcuts, focusMessage });
  const lastMode = idea?.meta?.lastMode;
  const lastRun = useMemo(
    () => findLastRun(stream.transcript.events, lastMode),
    [stream.transcript.events, lastMode],
  );

  // Totals and status live in meta.json: fetch again when a run ends or the status moves (once live, not for
  // every step of a replay).
  const isLive = stream.isLive;
  useEffect(() => {
    if (activeRunId === undefined) setStoppingRun(undefined);
    if (isLive) void reload();
  }, [activeRunId, summary.status, isLive, reload]);

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
    const known = stepIdsUpTo(stream.transcript.events, pending.afterSeq);
    const started = stream.transcript.events.some(
      (e) => e.seq > pending.afterSeq && carriesMessage(e, pending.message, known),
    );
    if (started) {
      setPending(undefined);
      setAccepted((count) => count + 1);
    }
  }, [pending, stream.transcript.events]);
  useEffect(() => {
    const refused = [...stream.errors.map((shown) => shown.frame), ...unclaimedErrors];
    if (pending !== undefined && refused.some((frame) => frame.requestId === pending.requestId)) {
      setPending(undefined);
    }
    if (stoppingRun !== undefined && refused.some((frame) => frame.requestId === stoppingRun.requestId)) {
      setStoppingRun(undefined);
    }
  }, [pending, stoppingRun, stream.errors, unclaimedErrors]);

  const send = useCallback(
    (frame: ClientFrame): boolean => {
      const result: SendResult = connection.send(frame);
      setSendError(SEND_PROBLEMS[result]);
      return result === 'sent';
    },
    [connection],
  );

  const actions: TranscriptActions = useMemo(
    () => ({
      answer: (questionId, answers) => send({ type: 'answer', ideaId, questionId, answers }),
      dismiss: (questionId) => send({ type: 'dismiss', ideaId, questionId }),
      permission: (requestId, decision, remember) =>
        send({ type: 'permission', ideaId, requestId, decision, ...(remember ? { remember } : {}) }),
    }),
    [send, ideaId],
  );

  if (isGone || stream.errors.some((shown) => shown.frame.code === 'IDEA_NOT_FOUND')) {
    return (
      <main className="centered">
        <div className="panel" role="alert">
          <h1>This idea was deleted</h1>
          <p>Its conversation and its project are gone.</p>
          <AppLink href="/">Back to your ideas</AppLink>
        </div>
      </main>
    );
  }
  if (loadError !== undefined && idea === undefined) {
    return (
      <NoticePage
        title="This idea cannot be opened"
        action={{
          label: 'Back to your ideas',
          onClick: () => {
            navigate('/');
          },
        }}
      >
        <p role="alert">{loadError}</p>
      </NoticePage>
    );
  }

  const shownErrors = [
    ...stream.errors.map((shown) => ({
      id: `idea-${shown.id}`,
      frame: shown.frame,
      dismiss: () => {
        stream.dismissError(shown.id);
      },
    })),
    ...unclaimedErrors.map((frame, index) => ({
      id: `unclaimed-${index}`,
      frame,
      dismiss: () => {
        setUnclaimedErrors((list) => list.filter((item) => item !== frame));
      },
    })),
  ];
  const hasBuilt = idea?.meta?.lastMode === 'build' || summary.hasBuilt;
  // The idea's own budget in the way (issue 30): a message refused for it, or a run the CLI stopped at it.
  const budgetRefusal = shownErrors.find(({ frame }) => frame.code === 'BUDGET_EXCEEDED');
  const budgetStop = findBudgetStop(stream.transcript.events);
  const budgetBlock =
    budgetRefusal !== undefined
      ? { kind: 'refused' as const, dismiss: budgetRefusal.dismiss }
      : budgetStop !== undefined && budgetStop.runId !== dismissedBudgetStop && !running
        ? {
            kind: 'stopped' as const,
            mode: budgetStop.mode,
            dismiss: () => {
              setDismissedBudgetStop(budgetStop.runId);
            },
          }
        : undefined;

  const renderSidePanel = (tab: SideTab, isShown: boolean) => {
    switch (tab) {
      case 'changes':
        return isShown ? (
          <ProjectLinksProvider value={files.links}>
            <CheckpointList ideaId={ideaId} projectVersion={files.version} />
          </ProjectLinksProvider>
        ) : null;
      case 'files':
        return (
          <FilesPanel id={filesPanelId} ideaId={ideaId} view={files.view} projectVersion={files.version} />
        );
      case 'preview':
        return (
          <PreviewPanel id={previewPanelId} ideaId={ideaId} isOpen={isShown} onIdeaChanged={applyChange} />
        );
      case 'terminal':
        return isShown || hasOpenedTerminal ? <TerminalPanel ideaId={ideaId} /> : null;
      case 'settings':
        return idea === undefined ? (
          <p className="muted">Loading…</p>
        ) : (
          <SettingsPanel idea={idea} onChanged={applyChange} />
        );
    }
  };

  return (
    <main className="page idea-page">
      <ConnectionBanner state={connectionState} />
      {isShowingShortcuts ? (
        <ShortcutsDialog
          onClose={() => {
            setIsShowingShortcuts(false);
          }}
        />
      ) : null}
      <IdeaHeader
        ideaId={ideaId}
        idea={idea}
        host={host}
        liveStatus={summary.status}
        sessionId={summary.sessionId ?? idea?.meta?.sessionId}
        running={running}
        onChanged={applyChange}
        actions={
          <>
            <NotifyButton ideaId={ideaId} />
            <button type="button" onClick={showShortcuts}>
              Keyboard shortcuts <kbd>?</kbd>
            </button>
          </>
        }
      />
      <Workspace
        renderPanel={(tab, isShown) => renderSidePanel(tab, isShown)}
        conversation={
          <>
            {shownErrors
              .filter(({ frame }) => idea === undefined || frame.code !== 'BUDGET_EXCEEDED')
              .map(({ id, frame, dismiss }) => (
                <p className="form-error" role="alert" key={id}>
                  {frame.message}{' '}
                  <button type="button" className="link" onClick={dismiss}>
                    Dismiss
                  </button>
                </p>
              ))}
            <HostNotReady check={hostCheck} />
            {isOrphaned ? (
              <p className="notice" role="note">
                The last run stopped without an ending (Catalyst was restarted while it ran). You can send a
                new message.
              </p>
            ) : null}
            <ProjectLinksProvider value={files.links}>
              <Transcript state={stream.transcript} actions={actions} isLive={isLive} jumpSlot={jumpSlot} />
            </ProjectLinksProvider>
            <QueuePanel ideaId={ideaId} view={autopilot.view} onChanged={autopilot.adopt} />
            <AsidePanel
              id={asidePanelId}
              isOpen={isAsideOpen}
              control={asides}
              hasSession={(summary.sessionId ?? idea?.meta?.sessionId) !== undefined}
              onClose={() => {
                setIsAsideOpen(false);
              }}
            />
            <AutopilotPanel
              id={autopilotPanelId}
              isOpen={isAutopilotOpen}
              control={autopilot}
              slashCommands={summary.slashCommands}
            />
            {budgetBlock === undefined || idea === undefined ? null : (
              <BudgetNotice
                idea={idea}
                blocked={budgetBlock}
                onChanged={applyChange}
                onContinue={(mode) => {
                  const requestId = connection.nextRequestId('send');
                  if (send({ type: mode, ideaId, message: CONTINUE_MESSAGE, requestId })) {
                    setPending({ requestId, message: CONTINUE_MESSAGE, afterSeq: stream.transcript.lastSeq });
                  }
                }}
                onDismiss={budgetBlock.dismiss}
              />
            )}
            {sendError === undefined ? null : (
              <p className="form-error" role="alert">
                {sendError}
              </p>
            )}
            <div className="composer-dock">
              <div ref={setJumpSlot} className="jump-slot" />
              <Composer
                ideaId={ideaId}
                connected={connectionState === 'open' && isLive}
                running={running}
                isAutopilotRunning={isAutopilotRunning(stream.transcript.events)}
                pending={pending !== undefined}
                accepted={accepted}
                stopping={stoppingRun !== undefined && stoppingRun.runId === activeRunId}
                hasBuilt={hasBuilt}
                hostName={hostName}
                lastRun={lastRun}
                newestSeq={stream.transcript.lastSeq}
                slashCommands={summary.slashCommands}
                waitingForPerson={summary.pendingQuestionIds.length + summary.pendingPermissionIds.length > 0}
                tools={
                  <>
                    <AutopilotToggle
                      panelId={autopilotPanelId}
                      isOpen={isAutopilotOpen}
                      control={autopilot}
                      onToggle={() => {
                        setIsAutopilotOpen((isOpen) => !isOpen);
                      }}
                    />
                    <AsideToggle
                      panelId={asidePanelId}
                      isOpen={isAsideOpen}
                      goingCount={asides.goingCount}
                      onToggle={() => {
                        setIsAsideOpen((isOpen) => !isOpen);
                      }}
                    />
                  </>
                }
                onModeShown={setShownMode}
                onSend={(mode: RunMode, message: string) => {
                  const requestId = connection.nextRequestId('send');
                  if (!send({ type: mode, ideaId, message, requestId })) return;
                  setPending({ requestId, message, afterSeq: stream.transcript.lastSeq });
                }}
                onCancel={() => {
                  const requestId = connection.nextRequestId('cancel');
                  if (activeRunId !== undefined && send({ type: 'cancel', ideaId, requestId })) {
                    setStoppingRun({ runId: activeRunId, requestId });
                  }
                }}
              />
            </div>
          </>
        }
      />
    </main>
  );
}

/**
 * The newest run, when the CLI stopped it at the idea's budget and it was a person's run (an autopilot's or a
 * queue's step pauses its queue instead, which the queue panel shows).
 */
function findBudgetStop(events: readonly RelayEvent[]): { runId: string; mode: RunMode } | undefined {
  const ended = events.findLast((event) => event.type === 'run:ended');
  if (ended?.type !== 'run:ended' || ended.runId === undefined) return undefined;
  if (ended.error?.code !== 'BUDGET_EXCEEDED') return undefined;
  const { runId } = ended;
  if (events.some((event) => event.type === 'autopilot:step_started' && event.runId === runId))
    return undefined;
  const started = events.find((event) => event.type === 'run:started' && event.runId === runId);
  return started?.type === 'run:started' ? { runId, mode: started.mode } : undefined;
}

/** The event that says a message sent went out: its run started, or it waits in the queue (issue 30). */
function carriesMessage(event: RelayEvent, message: string, known: ReadonlySet<string>): boolean {
  if (event.type === 'run:started') return event.message === message;
  // A queued message is a new step, last: not one already there with the same words, moved or edited.
  const last = queuedStepsOf(event).at(-1);
  return last?.message === message && (last.id === undefined || !known.has(last.id));
}

/** The waiting steps an event names: a queue's first, or its waiting ones after a change; none for any other. */
function queuedStepsOf(event: RelayEvent): readonly QueuedStep[] {
  if (event.type === 'autopilot:started') return event.steps;
  if (event.type === 'autopilot:queue_changed') return event.pending;
  return [];
}

/** The ids of the queued steps the history held up to `seq`. */
function stepIdsUpTo(events: readonly RelayEvent[], seq: number): Set<string> {
  const ids = new Set<string>();
  for (const event of events) {
    if (event.seq > seq) break;
    for (const step of queuedStepsOf(event)) if (step.id !== undefined) ids.add(step.id);
  }
  return ids;
}

/**
 * From the history itself, so a view that failed to load cannot mislead the composer: a queue runs (a message
 * sent now goes after it), not paused (a message sent now runs at once) nor ended.
 */
function isAutopilotRunning(events: readonly RelayEvent[]): boolean {
  const last = events.findLast(
    (event) =>
      event.type === 'autopilot:started' ||
      event.type === 'autopilot:paused' ||
      event.type === 'autopilot:resumed' ||
      event.type === 'autopilot:ended',
  );
  return last?.type === 'autopilot:started' || last?.type === 'autopilot:resumed';
}
