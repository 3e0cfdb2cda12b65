import { ApiError, describeError } from '../base/api.ts';

/**
 * Where a host form shows what is wrong: next to the field it concerns (the name taken, an alias the config does
 * not have, an ideas root that is not absolute), or under the whole form when it concerns none of them.
 */

export type HostField = 'name' | 'target' | 'ideasRoot' | 'claudePath';
export type FieldErrors = Partial<Record<HostField | 'form', string>>;

const FIELDS: readonly string[] = ['name', 'target', 'ideasRoot', 'claudePath'] satisfies HostField[];
const BODY_INVALID = 'The request body is not valid: ';

function isHostField(text: string): text is HostField {
  return FIELDS.includes(text);
}

/** A schema's issues (the protocol's own, checked before sending), each under its field. */
export function fieldErrorsOfIssues(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const [first] = issue.path;
    const field = typeof first === 'string' && isHostField(first) ? first : 'form';
    errors[field] ??= sentenceOf(issue.message);
  }
  return errors;
}

/**
 * An answer of the API placed by its code: HOST_EXISTS on the name; an SSH config the target leads to on the
 * target; a refused body on the fields it names; any other INVALID_ARGUMENT on `otherwise` (the add form's target:
 * an alias the config does not have, a malformed user@host). Everything else under the form.
 */
export function fieldErrorsOfApiError(error: unknown, otherwise: HostField | 'form'): FieldErrors {
  if (!(error instanceof ApiError)) return { form: describeError(error) };
  const { code, message } = error;
  if (code === 'HOST_EXISTS') return { name: message };
  if (code === 'SSH_CONFIG_INVALID' || code === 'SSH_CONFIG_UNSUPPORTED')
    return otherwise === 'target' ? { target: message } : { form: message };
  if (code !== 'INVALID_ARGUMENT') return { form: message };
  return message.startsWith(BODY_INVALID)
    ? fieldErrorsOfSummary(message.slice(BODY_INVALID.length))
    : { [otherwise]: message };
}

/** The server's summary of a refused body, `name: must be …; ideasRoot: must be …` (backend issue-summary.ts). */
function fieldErrorsOfSummary(summary: string): FieldErrors {
  const errors: FieldErrors = {};
  for (const part of summary.replace(/\.$/, '').split('; ')) {
    const colon = part.indexOf(': ');
    const path = colon === -1 ? '' : part.slice(0, colon);
    if (isHostField(path)) errors[path] ??= sentenceOf(part.slice(colon + 2));
    else errors.form = errors.form === undefined ? sentenceOf(part) : `${errors.form} ${sentenceOf(part)}`;
  }
  return errors;
}

/** `must be absolute` → `Must be absolute.` */
function sentenceOf(text: string): string {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

export function hasErrors(errors: FieldErrors): boolean {
  return Object.keys(errors).length > 0;
}
