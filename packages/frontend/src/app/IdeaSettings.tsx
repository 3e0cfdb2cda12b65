import {
  ModelNameSchema,
  type IdeaView,
  type PermissionPolicy,
  type QuestionPolicy,
  type UpdateIdeaBody,
} from '@catalyst/protocol';
import { useState } from 'react';
import { api, describeError } from '../base/api.ts';

/** The idea's settings: who answers questions (and with which model), what a build may do, its budget. */

const QUESTION_POLICIES: { value: QuestionPolicy; label: string }[] = [
  { value: 'human', label: 'A person answers' },
  { value: 'auto', label: 'A small model answers' },
  { value: 'human_then_auto', label: 'A person, then the model after a wait' },
];
const PERMISSION_POLICIES: { value: PermissionPolicy; label: string }[] = [
  { value: 'auto', label: 'Build may use every tool' },
  { value: 'ask', label: 'Ask me before each tool call' },
];

type SaveState = { kind: 'idle' | 'saving' | 'saved' } | { kind: 'error'; message: string };

export function SettingsPanel({ idea, onChanged }: { idea: IdeaView; onChanged: (idea: IdeaView) => void }) {
  const [state, setState] = useState<SaveState>({ kind: 'idle' });
  const save = async (body: UpdateIdeaBody) => {
    setState({ kind: 'saving' });
    try {
      onChanged(await api.updateIdea(idea.id, body));
      setState({ kind: 'saved' });
    } catch (caught) {
      setState({ kind: 'error', message: describeError(caught) });
    }
  };
  const onInvalid = (message: string) => {
    setState({ kind: 'error', message });
  };
  const meta = idea.meta;
  if (meta === undefined) return null;
  return (
    <section className="panel settings" aria-label="Settings">
      <PolicySelect
        id="question-policy"
        label="Question policy"
        value={meta.questionPolicy}
        choices={QUESTION_POLICIES}
        onChoose={(questionPolicy) => void save({ questionPolicy })}
      />
      <p className="hint">Who answers when Claude asks a question during a run.</p>
      <SavedField
        id="qa-model"
        label="Answering model"
        formName="Answering model"
        saveLabel="Save model"
        initial={meta.qaModel ?? ''}
        parse={parseModel}
        onSave={(qaModel) => void save({ qaModel })}
        onInvalid={onInvalid}
      />
      <p className="hint">
        The small model that answers for you when the policy lets it. Empty: the one Catalyst is set up with.
      </p>
      <PolicySelect
        id="permission-policy"
        label="Permission policy"
        value={meta.permissionPolicy}
        choices={PERMISSION_POLICIES}
        onChoose={(permissionPolicy) => void save({ permissionPolicy })}
      />
      <p className="hint">
        Whether a build asks you before it writes files or runs commands. Applies from the next run.
      </p>
      <SavedField
        id="budget-usd"
        label="Budget (USD)"
        formName="Budget"
        saveLabel="Save budget"
        initial={meta.budgetUsd === undefined ? '' : String(meta.budgetUsd)}
        parse={parseBudget}
        onSave={(budgetUsd) => void save({ budgetUsd })}
        onInvalid={onInvalid}
        isNumber
      />
      <p className="hint">
        What this idea may spend in all, Claude and the answering model. No run starts once it is spent, and
        Claude stops itself when it gets there. Empty: no limit.
      </p>
      <p className="muted" role="status">
        {state.kind === 'saving' ? 'Saving…' : state.kind === 'saved' ? 'Saved.' : ''}
      </p>
      {state.kind === 'error' ? (
        <p className="form-error" role="alert">
          {state.message}
        </p>
      ) : null}
    </section>
  );
}

interface PolicySelectProps<T extends string> {
  id: string;
  label: string;
  value: T;
  choices: readonly { value: T; label: string }[];
  onChoose: (value: T) => void;
}

/** A labelled select of one policy; only a value it offers is ever chosen. */
function PolicySelect<T extends string>({ id, label, value, choices, onChoose }: PolicySelectProps<T>) {
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value}
        onChange={(event) => {
          const chosen = choices.find((choice) => choice.value === event.target.value)?.value;
          if (chosen) onChoose(chosen);
        }}
      >
        {choices.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
    </>
  );
}

type Parsed<T> = { ok: true; value: T | null } | { ok: false; message: string };

/** Empty: no budget. */
function parseBudget(text: string): Parsed<number> {
  if (text === '') return { ok: true, value: null };
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0)
    return { ok: false, message: 'The budget must be an amount in USD above 0, or empty for none.' };
  return { ok: true, value };
}

/** Empty: the service's CATALYST_QA_MODEL. */
function parseModel(text: string): Parsed<string> {
  if (text === '') return { ok: true, value: null };
  const parsed = ModelNameSchema.safeParse(text);
  if (!parsed.success)
    return {
      ok: false,
      message: 'A model name is letters, digits and . _ : - [ ] only, e.g. claude-haiku-4-5.',
    };
  return { ok: true, value: parsed.data };
}

interface SavedFieldProps<T> {
  id: string;
  label: string;
  /** The form's accessible name and its button's text. */
  formName: string;
  saveLabel: string;
  initial: string;
  /** The trimmed text as a value, `null` (removes the setting) or what is wrong with it. */
  parse: (text: string) => Parsed<T>;
  onSave: (value: T | null) => void;
  onInvalid: (message: string) => void;
  isNumber?: boolean;
}

/** One setting typed into a box and saved with its own button; empty removes it. */
function SavedField<T>(props: SavedFieldProps<T>) {
  const [text, setText] = useState(props.initial);
  return (
    <form
      className="budget"
      aria-label={props.formName}
      onSubmit={(event) => {
        event.preventDefault();
        const parsed = props.parse(text.trim());
        if (parsed.ok) props.onSave(parsed.value);
        else props.onInvalid(parsed.message);
      }}
    >
      <label htmlFor={props.id}>{props.label}</label>
      <input
        id={props.id}
        {...(props.isNumber === true
          ? { type: 'number', inputMode: 'decimal', min: '0', step: 'any' }
          : { type: 'text', spellCheck: false, autoComplete: 'off' })}
        value={text}
        onChange={(event) => {
          setText(event.target.value);
        }}
      />
      <button type="submit">{props.saveLabel}</button>
    </form>
  );
}
