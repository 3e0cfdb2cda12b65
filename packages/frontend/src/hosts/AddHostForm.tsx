import { suggestHostName, type SshAliasesResponse } from '@catalyst/protocol';
import { useEffect, useId, useRef, useState, type SyntheticEvent } from 'react';
import { api } from '../base/api.ts';
import { useFetched } from '../base/use-fetched.ts';
import { describedBy, FieldHintAndError, HostTextField } from './HostTextField.tsx';
import { bodyOfDraft, EMPTY_DRAFT, type Draft } from './add-host-draft.ts';
import { fieldErrorsOfApiError, hasErrors, type FieldErrors } from './host-form-errors.ts';

/**
 * "Add a host": an alias of ~/.ssh/config (or user@host[:port]), a name suggested from it, where ideas go and
 * where claude is when not the usual, and whether new ideas go there. The API's refusals show by their field.
 */
export function AddHostForm({
  takenNames,
  onAdded,
  onCancel,
}: {
  takenNames: readonly string[];
  onAdded: (name: string) => void;
  onCancel: () => void;
}) {
  const aliases = useFetched('aliases', () => api.sshAliases());
  const [draft, setDraft] = useState<Draft>(EMPTY_DRAFT);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [isBusy, setIsBusy] = useState(false);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const headingId = useId();

  useEffect(() => {
    headingRef.current?.focus();
  }, []);
  // Without an alias to choose (none, or the config unreadable), the address is the way in.
  const canUseAlias =
    aliases.kind === 'loading' || (aliases.kind === 'loaded' && aliases.value.aliases.length > 0);
  const shown: Draft = canUseAlias ? draft : { ...draft, targetKind: 'address' };

  const change = (patch: Partial<Draft>) => {
    setDraft((old) => {
      const next = { ...old, ...patch };
      if (next.isNameTyped) return next;
      const target = canUseAlias && next.targetKind === 'alias' ? next.alias : next.address;
      return { ...next, name: suggestHostName(target, takenNames) };
    });
  };

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    const checked = bodyOfDraft(shown);
    if ('errors' in checked) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    setIsBusy(true);
    try {
      const host = await api.addHost(checked.body);
      onAdded(host.name);
    } catch (caught) {
      setErrors(fieldErrorsOfApiError(caught, 'target'));
      setIsBusy(false);
    }
  };

  return (
    <form
      className="panel add-host"
      aria-labelledby={headingId}
      noValidate
      onSubmit={(event) => void submit(event)}
    >
      <h2 id={headingId} ref={headingRef} tabIndex={-1}>
        Add a host
      </h2>
      <TargetChoice
        draft={shown}
        canUseAlias={canUseAlias}
        aliases={aliases.kind === 'loaded' ? aliases.value : undefined}
        aliasesError={aliases.kind === 'failed' ? aliases.message : undefined}
        error={errors.target}
        onChange={change}
      />
      <HostTextField
        label="Name"
        hint="Lower-case letters, digits and dashes; ideas name their host by it."
        value={draft.name}
        error={errors.name}
        onChange={(name) => {
          change({ name, isNameTyped: name !== '' });
        }}
      />
      <HostTextField
        label="Ideas root (optional)"
        hint="Where ideas go on the VM: an absolute path or ~/… Empty: the one Catalyst is set up with."
        placeholder="~/catalyst/ideas"
        value={draft.ideasRoot}
        error={errors.ideasRoot}
        onChange={(ideasRoot) => {
          change({ ideasRoot });
        }}
      />
      <HostTextField
        label="Claude path (optional)"
        hint="Empty: Catalyst finds claude on the host."
        placeholder="/usr/local/bin/claude"
        value={draft.claudePath}
        error={errors.claudePath}
        onChange={(claudePath) => {
          change({ claudePath });
        }}
      />
      <label className="check-label">
        <input
          type="checkbox"
          checked={draft.isDefault}
          onChange={(event) => {
            change({ isDefault: event.target.checked });
          }}
        />
        Make it the default host once it is ready (new ideas go there)
      </label>
      {errors.form === undefined ? null : (
        <p className="form-error" role="alert">
          {errors.form}
        </p>
      )}
      {hasErrors(errors) && errors.form === undefined ? (
        <p className="visually-hidden" role="alert">
          The host was not added: see the fields marked.
        </p>
      ) : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={isBusy}>
          {isBusy ? 'Adding…' : 'Add host'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** An alias of ~/.ssh/config, or user@host[:port] typed; the config's problem, if it has one, in words. */
function TargetChoice({
  draft,
  canUseAlias,
  aliases,
  aliasesError,
  error,
  onChange,
}: {
  draft: Draft;
  canUseAlias: boolean;
  aliases: SshAliasesResponse | undefined;
  aliasesError: string | undefined;
  error: string | undefined;
  onChange: (patch: Partial<Draft>) => void;
}) {
  const id = useId();
  const problem = aliases?.problem ?? aliasesError;
  const aliasHint =
    aliases === undefined && aliasesError === undefined ? 'Reading ~/.ssh/config…' : undefined;
  return (
    <fieldset className="host-target">
      <legend>How Catalyst reaches it</legend>
      <label className="check-label">
        <input
          type="radio"
          name={`${id}-kind`}
          checked={draft.targetKind === 'alias'}
          disabled={!canUseAlias}
          onChange={() => {
            onChange({ targetKind: 'alias' });
          }}
        />
        By an alias of ~/.ssh/config, as <code>ssh devbox</code> does
      </label>
      <label className="check-label">
        <input
          type="radio"
          name={`${id}-kind`}
          checked={draft.targetKind === 'address'}
          onChange={() => {
            onChange({ targetKind: 'address' });
          }}
        />
        By user@host[:port]
      </label>
      {problem === undefined ? null : (
        <p className="form-error">~/.ssh/config could not be read: {problem}</p>
      )}
      {aliases !== undefined && aliases.aliases.length === 0 && problem === undefined ? (
        <p className="hint">~/.ssh/config names no host: type user@host[:port].</p>
      ) : null}
      {draft.targetKind === 'alias' ? (
        <>
          <label htmlFor={`${id}-alias`}>Alias</label>
          <select
            id={`${id}-alias`}
            value={draft.alias}
            aria-invalid={error === undefined ? undefined : true}
            {...describedBy(`${id}-alias`, aliasHint, error)}
            onChange={(event) => {
              onChange({ alias: event.target.value });
            }}
          >
            <option value="">Choose an alias</option>
            {(aliases?.aliases ?? []).map((alias) => (
              <option key={alias} value={alias}>
                {alias}
              </option>
            ))}
          </select>
          <FieldHintAndError id={`${id}-alias`} hint={aliasHint} error={error} />
        </>
      ) : (
        <HostTextField
          label="Address"
          hint="user@host, or user@host:2222 for another port."
          placeholder="me@vm.example.com"
          value={draft.address}
          error={error}
          onChange={(address) => {
            onChange({ address });
          }}
        />
      )}
    </fieldset>
  );
}
