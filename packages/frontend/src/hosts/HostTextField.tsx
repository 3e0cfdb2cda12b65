import { useId } from 'react';

/** A labelled text box of a host form, its hint and its error below it, both read with it. */
export function HostTextField({
  label,
  hint,
  value,
  error,
  placeholder,
  onChange,
}: {
  label: string;
  hint?: string;
  value: string;
  error: string | undefined;
  placeholder?: string;
  onChange: (value: string) => void;
}) {
  const id = useId();
  return (
    <div className="host-field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        value={value}
        spellCheck={false}
        autoComplete="off"
        autoCapitalize="none"
        {...(placeholder === undefined ? {} : { placeholder })}
        {...describedBy(id, hint, error)}
        aria-invalid={error === undefined ? undefined : true}
        onChange={(event) => {
          onChange(event.target.value);
        }}
      />
      <FieldHintAndError id={id} hint={hint} error={error} />
    </div>
  );
}

/** The hint and error of the control `id` (ids `<id>-hint` and `<id>-error` for its aria-describedby). */
export function FieldHintAndError({
  id,
  hint,
  error,
}: {
  id: string;
  hint: string | undefined;
  error: string | undefined;
}) {
  return (
    <>
      {hint === undefined ? null : (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      )}
      {error === undefined ? null : (
        <p id={`${id}-error`} className="form-error">
          {error}
        </p>
      )}
    </>
  );
}

/** The aria-describedby of a control with this hint and error, or nothing. */
export function describedBy(id: string, hint: string | undefined, error: string | undefined) {
  const ids = [hint === undefined ? '' : `${id}-hint`, error === undefined ? '' : `${id}-error`].filter(
    (part) => part !== '',
  );
  return ids.length === 0 ? {} : { 'aria-describedby': ids.join(' ') };
}
