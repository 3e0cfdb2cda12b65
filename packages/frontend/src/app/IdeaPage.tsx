import type { RunMode } from '@catalyst/protocol';
import { useCallback, useEffect, useId, useMemo, useState } from 'react';
import { AsidePanel, AsideToggle } from '../asides/AsidePanel.tsx';
import { useAsides } from '../asides/use-asides.ts';
import { AutopilotPanel, AutopilotToggle } from '../autopilot/AutopilotPanel.tsx';
import { ReviewChangesProvider, useReviewChangesOf } from '../checkpoints/review-changes.ts';
import { useAutopilot } from '../autopilot/use-autopilot.ts';
import { QueuePanel } from '../autopilot/QueuePanel.tsx';
import { ProjectLinksProvider } from '../files/project-context.ts';
import { useProjectFiles } from '../files/use-project-files.ts';
import { NotifyButton } from '../notify/NotifyButton.tsx';
import { usePushDevice } from '../notify/push-context.ts';
import { isMutedHere } from '../notify/push-device.ts';
import { useAttention } from '../notify/use-attention.ts';
import { Transcript, type TranscriptActions } from '../transcript/Transcript.tsx';
import { summarize } from '../transcript/transcript-summary.ts';
import { ShortcutsDialog } from '../workspace/ShortcutsDialog.tsx';
import { usePageShortcuts } from '../workspace/use-page-shortcuts.ts';
import { Workspace } from '../workspace/Workspace.tsx';
import { BudgetNotice, CONTINUE_MESSAGE } from './BudgetNotice.tsx';
import { Composer } from './Composer.tsx';
import { findLastRun } from './composer-mode.ts';
import { ConnectionBanner } from './ConnectionBanner.tsx';
import { useConnection, useConnectionState } from './connection-context.ts';
import { HostNotReady } from './HostNotReady.tsx';
import { findBudgetStop, isAutopilotRunning } from './idea-events.ts';
import { IdeaDeleted, IdeaUnreadable } from './IdeaGone.tsx';
import { IdeaHeader } from './IdeaHeader.tsx';
import { IdeaSidePanel, useSideTabs } from './IdeaSidePanel.tsx';
import { useIdeaDetails } from './use-idea-details.ts';
import { useIdeaStream } from './use-idea-stream.ts';
import { useMessageSends } from './use-message-sends.ts';
import { useShownErrors } from './use-shown-errors.ts';
import { useShownMode } from './use-shown-mode.ts';
import { useViewing } from './use-viewing.ts';

/** One idea: its header, the live transcript and the composer, beside the workspace's side tabs. */
export function IdeaPage({ ideaId }: { ideaId: string }) {
  const connection = useConnection();
  const connectionState = useConnectionState(connection);
  const stream = useIdeaStream(connection, ideaId);
  const { transcript, isLive } = stream;
  const summary = useMemo(() => summarize(transcript), [transcript]);
  const reviewChanges = useReviewChangesOf(transcript.events);
  const { idea, loadError, isGone, host, hostCheck, reload, applyChange } = useIdeaDetails(ideaId);
  const errors = useShownErrors(connection, stream);
  /** The run stopped at the idea's budget whose notice the person put away. */
  const [dismissedBudgetStop, setDismissedBudgetStop] = useState<string>();
  const autopilot = useAutopilot(ideaId, transcript.events, isLive);
  const [isAutopilotOpen, setIsAutopilotOpen] = useState(false);
  const autopilotPanelId = useId();
  const asides = useAsides(ideaId, transcript.events);
  const [isAsideOpen, setIsAsideOpen] = useState(false);
  const asidePanelId = useId();

  useViewing(connection, connectionState, ideaId);
  const [shownMode, setShownMode] = useState<RunMode>();
  useShownMode(connection, connectionState, { ideaId, mode: shownMode, isLive });
  const push = usePushDevice();
  useAttention({
    ideaId,
    isMutedHere: isMutedHere(push.state, ideaId),
    events: transcript.events,
    lastSeq: transcript.lastSeq,
    isLive,
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
  const sends = useMessageSends({
    connection,
    connectionState,
    ideaId,
    events: transcript.events,
    lastSeq: transcript.lastSeq,
    isLive,
    errors: errors.frames,
    activeRunId,
  });
  const { send } = sends;

  const sideTabs = useSideTabs();
  const { isWide, setTab } = sideTabs;
  const files = useProjectFiles(transcript.events, running, summary.projectRoot, sideTabs.filesShown);
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
  const lastRun = useMemo(() => findLastRun(transcript.events, lastMode), [transcript.events, lastMode]);

  // Totals and status live in meta.json: fetch again when a run ends or the status moves (once live, not for
  // every step of a replay).
  useEffect(() => {
    if (isLive) void reload();
  }, [activeRunId, summary.status, isLive, reload]);

  const actions: TranscriptActions = useMemo(
    () => ({
      answer: (questionId, answers) => send({ type: 'answer', ideaId, questionId, answers }),
      dismiss: (questionId) => send({ type: 'dismiss', ideaId, questionId }),
      permission: (requestId, decision, remember) =>
        send({ type: 'permission', ideaId, requestId, decision, ...(remember ? { remember } : {}) }),
    }),
    [send, ideaId],
  );

  if (isGone || stream.errors.some((shown) => shown.frame.code === 'IDEA_NOT_FOUND')) return <IdeaDeleted />;
  if (loadError !== undefined && idea === undefined) return <IdeaUnreadable error={loadError} />;

  const hasBuilt = idea?.meta?.lastMode === 'build' || summary.hasBuilt;
  // The idea's own budget in the way (issue 30): a message refused for it, or a run the CLI stopped at it.
  const budgetRefusal = errors.shown.find(({ frame }) => frame.code === 'BUDGET_EXCEEDED');
  const budgetStop = findBudgetStop(transcript.events);
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

  return (
    <ReviewChangesProvider value={reviewChanges}>
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
          renderPanel={(tab, isShown) => (
            <IdeaSidePanel
              tab={tab}
              isShown={isShown}
              ideaId={ideaId}
              idea={idea}
              files={files}
              hasOpenedTerminal={sideTabs.hasOpenedTerminal}
              onIdeaChanged={applyChange}
            />
          )}
          conversation={
            <>
              {errors.shown
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
                <Transcript state={transcript} actions={actions} isLive={isLive} />
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
                composerMode={shownMode}
              />
              {budgetBlock === undefined || idea === undefined ? null : (
                <BudgetNotice
                  idea={idea}
                  blocked={budgetBlock}
                  onChanged={applyChange}
                  onContinue={(mode) => {
                    sends.sendMessage(mode, CONTINUE_MESSAGE);
                  }}
                  onDismiss={budgetBlock.dismiss}
                />
              )}
              {sends.sendError === undefined ? null : (
                <p className="form-error" role="alert">
                  {sends.sendError}
                </p>
              )}
              <div className="composer-dock">
                <Composer
                  ideaId={ideaId}
                  connected={connectionState === 'open' && isLive}
                  running={running}
                  isAutopilotRunning={isAutopilotRunning(transcript.events)}
                  pending={sends.isPending}
                  accepted={sends.accepted}
                  stopping={sends.isStopping}
                  hasBuilt={hasBuilt}
                  hostName={idea?.host}
                  lastRun={lastRun}
                  newestSeq={transcript.lastSeq}
                  slashCommands={summary.slashCommands}
                  waitingForPerson={
                    summary.pendingQuestionIds.length + summary.pendingPermissionIds.length > 0
                  }
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
                  onSend={sends.sendMessage}
                  onCancel={sends.cancel}
                />
              </div>
            </>
          }
        />
      </main>
    </ReviewChangesProvider>
  );
}
