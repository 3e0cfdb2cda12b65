import { UpdateHostBodySchema, type HostHealthView, type UpdateHostBody } from '@catalyst/protocol';
import { useId, useState, type SyntheticEvent } from 'react';
import { api } from '../base/api.ts';
import { HostTextField } from './HostTextField.tsx';
import { fieldErrorsOfApiError, fieldErrorsOfIssues, type FieldErrors } from './host-form-errors.ts';

/**
 * A host added in the app, changed: how it is reached (an alias or user@host[:port]; checked again once saved), where its ideas go, where claude is (or found on the host again), and making it
 * the default. The fields start at what is set (`GET /api/hosts`); only what changed is sent.
 */
export function EditHostForm({
  host,
  onSaved,
  onCancel,
}: {
  host: HostHealthView;
  onSaved: () => void;
  onCancel: () => void;
}) {
  const headingId = useId();
  const initialClaudePath = host.claudePath ?? '';
  const initialIdeasRoot = host.ideasRoot ?? '';
  const initialTarget = host.target ?? '';
  const [target, setTarget] = useState(initialTarget);
  const [ideasRoot, setIdeasRoot] = useState(initialIdeasRoot);
  const [claudePath, setClaudePath] = useState(initialClaudePath);
  const [isClaudeFound, setIsClaudeFound] = useState(false);
  const [isDefault, setIsDefault] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [isBusy, setIsBusy] = useState(false);

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    const draft: UpdateHostBody = {
      ...(target.trim() === '' || target.trim() === initialTarget ? {} : { target: target.trim() }),
      ...(ideasRoot.trim() === '' || ideasRoot.trim() === initialIdeasRoot
        ? {}
        : { ideasRoot: ideasRoot.trim() }),
      ...(isClaudeFound
        ? { claudePath: null }
        : claudePath.trim() === '' || claudePath.trim() === initialClaudePath
          ? {}
          : { claudePath: claudePath.trim() }),
      ...(isDefault ? { isDefault: true } : {}),
    };
    if (Object.keys(draft).length === 0) {
      setErrors({ form: 'Nothing is changed: fill in a field or tick a box first.' });
      return;
    }
    const parsed = UpdateHostBodySchema.safeParse(draft);
    if (!parsed.success) {
      setErrors(fieldErrorsOfIssues(parsed.error.issues));
      return;
    }
    setErrors({});
    setIsBusy(true);
    try {
      await api.updateHost(host.name, parsed.data);
      onSaved();
    } catch (caught) {
      setErrors(fieldErrorsOfApiError(caught, 'form'));
      setIsBusy(false);
    }
  };

  return (
    <form
      className="edit-host"
      aria-labelledby={headingId}
      noValidate
      onSubmit={(event) => void submit(event)}
    >
      <h3 id={headingId}>Change {host.name}</h3>
      <HostTextField
        label="Reached as"
        hint="An alias of your ssh config, or user@host[:port]. The host is checked again once saved."
        value={target}
        error={errors.target}
        onChange={setTarget}
      />
      <HostTextField
        label="Ideas root"
        hint="Where new ideas go on the VM: an absolute path or ~/…"
        value={ideasRoot}
        error={errors.ideasRoot}
        onChange={setIdeasRoot}
      />
      {isClaudeFound ? null : (
        <HostTextField
          label="Claude path"
          hint="An absolute path on the VM."
          value={claudePath}
          error={errors.claudePath}
          onChange={setClaudePath}
        />
      )}
      <label className="check-label">
        <input
          type="checkbox"
          checked={isClaudeFound}
          onChange={(event) => {
            setIsClaudeFound(event.target.checked);
          }}
        />
        Let Catalyst find claude on the host
      </label>
      {host.isDefault ? (
        <p className="hint">This is the default host: new ideas go here.</p>
      ) : (
        <label className="check-label">
          <input
            type="checkbox"
            checked={isDefault}
            onChange={(event) => {
              setIsDefault(event.target.checked);
            }}
          />
          Make it the default host (new ideas go there)
        </label>
      )}
      {errors.form === undefined ? null : (
        <p className="form-error" role="alert">
          {errors.form}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={isBusy}>
          Save
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
