import type { RunMode } from '@catalyst/protocol';
import { useEffect, useId, useRef, useState } from 'react';
import { createDraft, followComposerMode, type AutopilotDraft } from './autopilot-draft.ts';
import { AutopilotForm } from './AutopilotForm.tsx';
import { AutopilotProgress, queueName } from './AutopilotProgress.tsx';
import type { AutopilotControl } from './use-autopilot.ts';

interface AutopilotPanelProps {
  /** The element id the toggle names in `aria-controls`. */
  id: string;
  isOpen: boolean;
  control: AutopilotControl;
  slashCommands: readonly string[];
  /** The composer's mode: new steps start in it (issue 40). */
  composerMode?: RunMode | undefined;
}

/**
 * The idea's autopilot (issue 12): the running or last one's steps and outcome, and, when none runs, a new one to
 * put together. Kept mounted while closed (`hidden`), so a draft survives closing and opening it again.
 */
export function AutopilotPanel({ id, isOpen, control, slashCommands, composerMode }: AutopilotPanelProps) {
  const [draft, setDraft] = useState<AutopilotDraft>(() => createDraft(composerMode));
  const headingId = useId();
  const ref = useRef<HTMLElement>(null);
  const { view } = control;
  const [followedMode, setFollowedMode] = useState(composerMode);
  if (composerMode !== followedMode) {
    setFollowedMode(composerMode);
    if (composerMode !== undefined) setDraft((current) => followComposerMode(current, composerMode));
  }

  // It opens just above the composer, which sticks to the window's bottom: bring it into sight.
  useEffect(() => {
    if (isOpen) ref.current?.scrollIntoView({ block: 'nearest' });
  }, [isOpen]);

  return (
    <section id={id} ref={ref} className="panel autopilot" aria-labelledby={headingId} hidden={!isOpen}>
      <h2 id={headingId}>Autopilot</h2>
      <p className="hint">
        Runs messages one after the other, each an ordinary chat or build, with nobody needed to watch.
      </p>
      {view === undefined ? null : (
        <AutopilotProgress view={view} isStopping={control.isStopping} onCancel={control.cancel} />
      )}
      {control.error === undefined ? null : (
        <p className="form-error" role="alert">
          {control.error}{' '}
          <button type="button" className="link" onClick={control.dismissError}>
            Dismiss
          </button>
        </p>
      )}
      {view?.state === 'running' ? null : (
        <AutopilotForm
          draft={draft}
          onChange={setDraft}
          slashCommands={slashCommands}
          isBusy={control.isBusy}
          onStart={(body) => void control.start(body)}
        />
      )}
    </section>
  );
}

interface AutopilotToggleProps {
  panelId: string;
  isOpen: boolean;
  control: AutopilotControl;
  onToggle: () => void;
}

/** Opens and closes the panel; says, beside it, which step runs while an autopilot or a queue does (and which). */
export function AutopilotToggle({ panelId, isOpen, control, onToggle }: AutopilotToggleProps) {
  const { view } = control;
  return (
    <span className="ap-toggle">
      <button type="button" aria-expanded={isOpen} aria-controls={panelId} onClick={onToggle}>
        Autopilot
      </button>
      {view?.state === 'running' ? (
        <span className="ap-toggle-status">
          {view.kind === 'queue' ? `${queueName(view)} · ` : ''}step {view.currentStep + 1} of{' '}
          {view.steps.length}
        </span>
      ) : null}
    </span>
  );
}
