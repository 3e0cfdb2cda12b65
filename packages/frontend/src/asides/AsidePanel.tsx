import { MAX_ASIDES_PER_IDEA, MAX_ASIDE_QUESTION_CHARS } from '@catalyst/protocol';
import { useEffect, useId, useRef, useState, type KeyboardEvent, type SyntheticEvent } from 'react';
import { AsideThread } from './AsideThread.tsx';
import type { AsidesControl } from './use-asides.ts';
import './asides.css';

interface AsidePanelProps {
  /** The element id the toggle names in `aria-controls`. */
  id: string;
  isOpen: boolean;
  control: AsidesControl;
  /** The idea has a Claude session to fork (it ran once). */
  hasSession: boolean;
  onClose: () => void;
}

/**
 * Question asides (issue 30): a question to a read-only fork of the idea's session, answered from the conversation
 * so far while a build goes on, untouched. The thread of asides stays in sight once there is one; the form only while
 * the panel is open. As in the message box, Enter asks and Shift+Enter starts a new line (Ctrl+Enter, ⌘+Enter ask
 * too); Escape closes. Opened, it comes into sight with the focus in its box (issue 40: it opened off-screen).
 */
export function AsidePanel({ id, isOpen, control, hasSession, onClose }: AsidePanelProps) {
  const headingId = useId();
  const questionId = useId();
  const modelId = useId();
  const hintId = useId();
  const [question, setQuestion] = useState('');
  const [model, setModel] = useState('');
  const textareaRef = useRef<HTMLTextAreaElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const isFull = control.goingCount >= MAX_ASIDES_PER_IDEA;
  const canAsk = hasSession && !isFull && !control.isAsking && question.trim() !== '';

  useEffect(() => {
    if (!isOpen) return;
    bringIntoSight(formRef.current);
    textareaRef.current?.focus({ preventScroll: true });
  }, [isOpen]);

  const submit = async (event?: SyntheticEvent) => {
    event?.preventDefault();
    if (!canAsk) return;
    const trimmed = model.trim();
    if (await control.ask({ question, ...(trimmed === '' ? {} : { model: trimmed }) })) setQuestion('');
  };
  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    if (event.key === 'Escape') onClose();
    if (event.key !== 'Enter' || event.nativeEvent.isComposing) return;
    const isInBox = event.target === textareaRef.current;
    if (event.ctrlKey || event.metaKey || (isInBox && !event.shiftKey)) void submit(event);
  };

  return (
    <section
      id={id}
      className="panel asides"
      aria-labelledby={headingId}
      hidden={!isOpen && control.views.length === 0}
    >
      <h2 id={headingId}>Asides</h2>
      <AsideThread views={control.views} />
      {control.error === undefined ? null : (
        <p className="form-error" role="alert">
          {control.error}{' '}
          <button type="button" className="link" onClick={control.dismissError}>
            Dismiss
          </button>
        </p>
      )}
      <form
        className="aside-form"
        ref={formRef}
        hidden={!isOpen}
        onSubmit={(event) => void submit(event)}
        onKeyDown={onKeyDown}
      >
        <p className="hint" id={hintId}>
          {hasSession
            ? 'Asked of a read-only copy of the conversation: the build goes on, untouched, and it is not told.'
            : 'Asides ask the conversation so far: send a first message before asking one.'}
          {isFull ? ` ${String(MAX_ASIDES_PER_IDEA)} asides wait for an answer already.` : ''}
        </p>
        <label htmlFor={questionId}>Question aside</label>
        <textarea
          id={questionId}
          ref={textareaRef}
          rows={2}
          value={question}
          maxLength={MAX_ASIDE_QUESTION_CHARS}
          aria-describedby={hintId}
          onChange={(event) => {
            setQuestion(event.target.value);
          }}
        />
        <div className="aside-form-row">
          <label htmlFor={modelId}>Model</label>
          <input
            id={modelId}
            value={model}
            placeholder="the idea’s small model"
            autoComplete="off"
            spellCheck={false}
            onChange={(event) => {
              setModel(event.target.value);
            }}
          />
          <button type="submit" disabled={!canAsk}>
            {control.isAsking ? 'Asking…' : 'Ask aside'}
          </button>
        </div>
      </form>
    </section>
  );
}

/**
 * The form sits under the transcript, which may be long, and the composer sticks to the bottom of the window (most
 * of a phone's): the whole form (its Ask button too) comes into sight above the composer, not under it.
 */
function bringIntoSight(form: HTMLFormElement | null): void {
  if (form === null) return;
  const composer = document.querySelector('.composer');
  const covered = composer === null ? 0 : composer.getBoundingClientRect().height;
  form.style.scrollMarginBottom = `${String(Math.ceil(covered) + 8)}px`;
  form.scrollIntoView({ block: 'nearest' });
}

interface AsideToggleProps {
  panelId: string;
  isOpen: boolean;
  goingCount: number;
  onToggle: () => void;
}

/** Opens and closes the aside form, in the composer: available while a run goes too. */
export function AsideToggle({ panelId, isOpen, goingCount, onToggle }: AsideToggleProps) {
  return (
    <span className="aside-toggle">
      <button type="button" aria-expanded={isOpen} aria-controls={panelId} onClick={onToggle}>
        Ask aside
      </button>
      {goingCount === 0 ? null : <span className="hint">{goingCount} answering</span>}
    </span>
  );
}
