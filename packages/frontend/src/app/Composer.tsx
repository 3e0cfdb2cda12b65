import { MAX_MESSAGE_CHARS, type RunMode } from '@catalyst/protocol';
import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { PARKED_FOCUS_ATTRIBUTE } from '../transcript/use-parked-focus.ts';
import {
  describeOpeningMode,
  openingMode,
  readModeChoice,
  saveModeChoice,
  type LastRun,
} from './composer-mode.ts';
import { Dialog } from '../base/Dialog.tsx';
import { SuggestionList } from '../base/SuggestionList.tsx';
import { useSlashSuggestions } from '../base/use-slash-suggestions.ts';

interface ComposerProps {
  ideaId: string;
  /** The connection is open and the history has caught up (a message sent before that could be misread). */
  connected: boolean;
  running: boolean;
  /** A queue (or an autopilot) runs: between its steps no run is active, yet a message would wait behind it. */
  isAutopilotRunning?: boolean;
  /** A message was sent and its run has neither started nor been refused. */
  pending: boolean;
  /** Counts the sent messages whose run started: each one clears the box (a refused one keeps its text). */
  accepted: number;
  /** Cancel was sent; the run has not ended yet. */
  stopping: boolean;
  /** The idea has been built before (no confirmation for Build then). */
  hasBuilt: boolean;
  hostName: string | undefined;
  /** The idea's newest run: the composer opens in its mode unless the person switched since (composer-mode.ts). */
  lastRun: LastRun | undefined;
  /** The newest seq the page holds: a switch remembers it, so a later run's mode can win on the next visit. */
  newestSeq: number;
  slashCommands: readonly string[];
  waitingForPerson: boolean;
  onSend: (mode: RunMode, message: string) => void;
  onCancel: () => void;
  /** More controls for the top row, beside the mode (the autopilot's toggle). */
  tools?: ReactNode;
  /** The mode it shows, first and on every change: the page has a claude of it pre-warmed (issue 30). */
  onModeShown?: (mode: RunMode) => void;
}

const MODE_HINT: Record<RunMode, string> = {
  chat: 'Chat: Claude reads and talks it through with you; it changes nothing.',
  build: 'Build: Claude writes files and runs commands in this idea’s project folder on the host.',
};

/** What to type, in which mode; Enter sends, Shift+Enter is a new line, `/` suggests the session's commands. */
export function Composer(props: ComposerProps) {
  const [remembered] = useState(() => readModeChoice(props.ideaId));
  /** A switch made on this page view: it holds, whatever runs start meanwhile. */
  const [switched, setSwitched] = useState<RunMode>();
  /**
   * The opening mode, settled once the history has caught up: later runs (a queue's, an autopilot's step) do not
   * flip the box to their mode; only the person changes it (issue 40).
   */
  const [settled, setSettled] = useState<ReturnType<typeof openingMode>>();
  const opening = settled ?? openingMode(remembered, props.lastRun);
  if (settled === undefined && props.connected) setSettled(opening);
  const mode = switched ?? opening.mode;
  const openingLine = switched === undefined ? describeOpeningMode(opening) : undefined;
  const { onModeShown } = props;
  useEffect(() => {
    onModeShown?.(mode);
  }, [mode, onModeShown]);
  const [text, setText] = useState('');
  const [confirmingBuild, setConfirmingBuild] = useState(false);
  const textareaRef = useRef<HTMLTextAreaElement>(null);
  const hintId = useId();
  const slash = useSlashSuggestions(text, props.slashCommands, (completed) => {
    setText(completed);
    textareaRef.current?.focus();
  });
  const confirmedKey = `catalyst.build-confirmed.${props.ideaId}`;

  const blockedReason = !props.connected
    ? 'Reconnecting… you can send again once the connection is back.'
    : props.pending
      ? 'Sending…'
      : undefined;
  const disabled = blockedReason !== undefined;
  /** A message sent now waits in the queue (issue 30): a run goes, or a queue runs. */
  const isQueueing = props.running || props.isAutopilotRunning === true;
  const busyLine = props.running
    ? props.waitingForPerson
      ? 'Claude is working… and waits for your answer above. What you send now waits in the queue.'
      : 'Claude is working… what you send now waits in the queue and goes once Claude is idle.'
    : props.isAutopilotRunning === true
      ? 'Messages are queued: what you send now goes after them.'
      : undefined;

  // The message went through: clear the box (not before: a refused one keeps its text to send again).
  const lastAccepted = useRef(props.accepted);
  useEffect(() => {
    if (props.accepted !== lastAccepted.current) setText('');
    lastAccepted.current = props.accepted;
  }, [props.accepted]);

  // When a run ends, give the cursor back, unless the person is busy elsewhere (a form, an answer card): only
  // when the focus was lost because the disabled box dropped it, or parked on a card that was answered.
  const wasRunning = useRef(props.running);
  useEffect(() => {
    const active = document.activeElement;
    const focusIsLost =
      active === null || active === document.body || active.hasAttribute(PARKED_FOCUS_ATTRIBUTE);
    if (wasRunning.current && !props.running && focusIsLost) textareaRef.current?.focus();
    wasRunning.current = props.running;
  }, [props.running]);

  const switchMode = (next: RunMode) => {
    setSwitched(next);
    saveModeChoice(props.ideaId, { mode: next, afterSeq: props.newestSeq });
  };

  const chooseMode = (next: RunMode) => {
    if (next === 'build' && !props.hasBuilt && localStorage.getItem(confirmedKey) !== 'yes') {
      setConfirmingBuild(true);
      return;
    }
    switchMode(next);
  };

  const send = () => {
    const message = text.trim();
    if (disabled || message === '' || message.length > MAX_MESSAGE_CHARS) return;
    props.onSend(mode, message);
    textareaRef.current?.focus();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (slash.handleKey(event)) return;
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send();
    }
  };

  return (
    <section className="composer" aria-label="Composer">
      <div className="composer-top">
        <div className="mode-toggle" role="radiogroup" aria-label="Mode">
          {(['chat', 'build'] as const).map((value) => (
            <label key={value} className={mode === value ? 'mode mode-active' : 'mode'}>
              <input
                type="radio"
                name={`mode-${props.ideaId}`}
                value={value}
                checked={mode === value}
                onChange={() => {
                  chooseMode(value);
                }}
              />
              {value === 'chat' ? 'Chat' : 'Build'}
            </label>
          ))}
        </div>
        <p className="hint" id={hintId}>
          {MODE_HINT[mode]}
        </p>
        {openingLine === undefined ? null : <p className="hint">{openingLine}</p>}
        {props.tools}
      </div>
      <SuggestionList slash={slash} />
      <div className="composer-row">
        <label htmlFor={`message-${props.ideaId}`} className="visually-hidden">
          Message
        </label>
        <textarea
          id={`message-${props.ideaId}`}
          ref={textareaRef}
          value={text}
          rows={3}
          maxLength={MAX_MESSAGE_CHARS}
          disabled={disabled}
          placeholder={mode === 'chat' ? 'Ask Claude about this idea…' : 'Tell Claude what to build…'}
          aria-describedby={hintId}
          {...slash.comboboxProps}
          onChange={(event) => {
            setText(event.target.value);
            slash.restart();
          }}
          onKeyDown={onKeyDown}
        />
        <div className="composer-buttons">
          {props.running ? (
            <button type="button" className="danger" disabled={props.stopping} onClick={props.onCancel}>
              {props.stopping ? 'Stopping…' : 'Cancel run'}
            </button>
          ) : null}
          <button type="button" className="primary" disabled={disabled || text.trim() === ''} onClick={send}>
            {isQueueing ? 'Queue' : 'Send'}
          </button>
        </div>
      </div>
      <p className="composer-status" role="status">
        {blockedReason ?? busyLine ?? 'Enter sends, Shift+Enter starts a new line.'}
      </p>
      {confirmingBuild ? (
        <Dialog
          title="Start building?"
          onClose={() => {
            setConfirmingBuild(false);
          }}
        >
          <p>
            In Build mode Claude can create and change files and run commands in this idea’s{' '}
            <code>project/</code> folder{props.hostName === undefined ? '' : ` on ${props.hostName}`}. It
            continues the same conversation, so it knows what you discussed.
          </p>
          <div className="actions">
            <button
              type="button"
              className="primary"
              data-autofocus
              onClick={() => {
                localStorage.setItem(confirmedKey, 'yes');
                switchMode('build');
                setConfirmingBuild(false);
                textareaRef.current?.focus();
              }}
            >
              Start building
            </button>
            <button
              type="button"
              onClick={() => {
                setConfirmingBuild(false);
              }}
            >
              Keep chatting
            </button>
          </div>
        </Dialog>
      ) : null}
    </section>
  );
}
