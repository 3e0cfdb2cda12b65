import { MAX_MESSAGE_CHARS, type RunMode } from '@catalyst/protocol';
import { SuggestionList } from '../base/SuggestionList.tsx';
import { useSlashSuggestions } from '../base/use-slash-suggestions.ts';
import type { DraftStep } from './autopilot-draft.ts';

export type StepControl = 'up' | 'down' | 'remove' | 'message';

/** The element id of one of a step's controls, so the form can put the focus back on it after a change. */
export function stepControlId(formId: string, stepId: number, control: StepControl): string {
  return `${formId}-step-${stepId}-${control}`;
}

interface StepEditorProps {
  formId: string;
  step: DraftStep;
  /** Its place in the list, from 0. */
  index: number;
  count: number;
  slashCommands: readonly string[];
  onChange: (change: Partial<Pick<DraftStep, 'mode' | 'message'>>) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
}

/** One step of a new autopilot: chat or build, its message (with the session's slash commands), and its place. */
export function StepEditor(props: StepEditorProps) {
  const { formId, step, index } = props;
  const number = index + 1;
  const idOf = (control: StepControl) => stepControlId(formId, step.id, control);
  const slash = useSlashSuggestions(step.message, props.slashCommands, (message) => {
    props.onChange({ message });
    document.getElementById(idOf('message'))?.focus();
  });
  return (
    <li className="ap-draft-step">
      <div className="ap-draft-head">
        <span className="ap-draft-number" aria-hidden="true">
          {number}.
        </span>
        <select
          aria-label={`Step ${number} mode`}
          value={step.mode}
          onChange={(event) => {
            const mode: RunMode = event.target.value === 'build' ? 'build' : 'chat';
            props.onChange({ mode });
          }}
        >
          <option value="chat">Chat</option>
          <option value="build">Build</option>
        </select>
        <span className="ap-draft-buttons">
          <button
            type="button"
            id={idOf('up')}
            aria-label={`Move step ${number} up`}
            disabled={index === 0}
            onClick={() => {
              props.onMove(-1);
            }}
          >
            Up
          </button>
          <button
            type="button"
            id={idOf('down')}
            aria-label={`Move step ${number} down`}
            disabled={index === props.count - 1}
            onClick={() => {
              props.onMove(1);
            }}
          >
            Down
          </button>
          <button
            type="button"
            id={idOf('remove')}
            aria-label={`Remove step ${number}`}
            onClick={props.onRemove}
          >
            Remove
          </button>
        </span>
      </div>
      <label htmlFor={idOf('message')} className="visually-hidden">
        Step {number} message
      </label>
      <textarea
        id={idOf('message')}
        value={step.message}
        rows={2}
        maxLength={MAX_MESSAGE_CHARS}
        placeholder={step.mode === 'chat' ? 'What to ask or discuss…' : 'What to build…'}
        {...slash.comboboxProps}
        onChange={(event) => {
          props.onChange({ message: event.target.value });
          slash.restart();
        }}
        onKeyDown={(event) => {
          slash.handleKey(event);
        }}
      />
      <SuggestionList slash={slash} />
    </li>
  );
}
