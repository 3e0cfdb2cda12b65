import { PREVIEW_COMMAND_MAX, type PreviewSuggestion, type PreviewView } from '@catalyst/protocol';
import { useId, useState, type ReactNode, type SyntheticEvent } from 'react';
import { parsePreviewForm, type PreviewFormProblems, type PreviewSettingsBody } from './preview-text.ts';

interface PreviewSettingsProps {
  view: PreviewView;
  isBusy: boolean;
  onSave: (body: PreviewSettingsBody) => Promise<boolean>;
}

/**
 * The preview's command and port. The form starts again from the saved values whenever they change (a save, or
 * another tab's), and otherwise keeps what is being typed across the polls.
 */
export function PreviewSettings({ view, isBusy, onSave }: PreviewSettingsProps) {
  const saved = `${view.command ?? ''}\n${view.port === null ? '' : String(view.port)}`;
  return (
    <>
      {view.command === null && view.suggestion !== undefined ? (
        <SuggestionOffer suggestion={view.suggestion} isBusy={isBusy} onSave={onSave} />
      ) : null}
      <PreviewForm key={saved} view={view} isBusy={isBusy} onSave={onSave} />
    </>
  );
}

function SuggestionOffer({
  suggestion,
  isBusy,
  onSave,
}: {
  suggestion: PreviewSuggestion;
  isBusy: boolean;
  onSave: PreviewSettingsProps['onSave'];
}) {
  return (
    <div className="preview-suggestion" data-testid="preview-suggestion">
      <p>
        Use <code>{suggestion.command}</code> on port {suggestion.port} as the preview?{' '}
        <span className="hint">Found in {suggestion.source}.</span>
      </p>
      <button
        type="button"
        disabled={isBusy}
        onClick={() => void onSave({ previewCommand: suggestion.command, previewPort: suggestion.port })}
      >
        Use it
      </button>
    </div>
  );
}

function PreviewForm({ view, isBusy, onSave }: PreviewSettingsProps) {
  const [command, setCommand] = useState(view.command ?? '');
  const [port, setPort] = useState(view.port === null ? '' : String(view.port));
  const [problems, setProblems] = useState<PreviewFormProblems>({});
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    const parsed = parsePreviewForm(command, port);
    setProblems(parsed.ok ? {} : parsed.problems);
    if (parsed.ok) void onSave(parsed.body);
  };
  return (
    <form className="preview-form" aria-label="Preview settings" noValidate onSubmit={submit}>
      <Field
        label="Command"
        hint="Run with /bin/sh in the project’s folder, on the idea’s host. It must keep running."
        problem={problems.command}
      >
        {(ids) => (
          <input
            {...ids}
            value={command}
            maxLength={PREVIEW_COMMAND_MAX}
            placeholder="npm run dev"
            spellCheck={false}
            autoComplete="off"
            data-testid="preview-command"
            onChange={(event) => {
              setCommand(event.target.value);
            }}
          />
        )}
      </Field>
      <Field label="Port" hint="The port it listens on, on the host." problem={problems.port}>
        {(ids) => (
          <input
            {...ids}
            type="number"
            inputMode="numeric"
            min={1}
            max={65_535}
            value={port}
            placeholder="5173"
            data-testid="preview-port"
            onChange={(event) => {
              setPort(event.target.value);
            }}
          />
        )}
      </Field>
      {view.state === 'running' || view.state === 'starting' ? (
        <p className="hint">A change applies when the preview starts again.</p>
      ) : null}
      <div className="actions">
        <button type="submit" disabled={isBusy} data-testid="preview-save">
          Save
        </button>
      </div>
    </form>
  );
}

interface FieldIds {
  id: string;
  'aria-describedby': string;
  'aria-invalid': boolean;
}

/** A labelled input with its hint, and the problem with what was typed, both tied to it for screen readers. */
function Field({
  label,
  hint,
  problem,
  children,
}: {
  label: string;
  hint: string;
  problem: string | undefined;
  children: (ids: FieldIds) => ReactNode;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const problemId = `${id}-problem`;
  return (
    <div className="preview-field">
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        'aria-describedby': problem === undefined ? hintId : `${problemId} ${hintId}`,
        'aria-invalid': problem !== undefined,
      })}
      {problem === undefined ? null : (
        <p className="form-error" id={problemId} role="alert">
          {problem}
        </p>
      )}
      <p className="hint" id={hintId}>
        {hint}
      </p>
    </div>
  );
}
