import { AddHostBodySchema, type AddHostBody } from '@catalyst/protocol';
import { fieldErrorsOfIssues, type FieldErrors } from './host-form-errors.ts';

/** What the "Add a host" form holds, and the body it asks for. */

export type TargetKind = 'alias' | 'address';

export interface Draft {
  targetKind: TargetKind;
  alias: string;
  address: string;
  name: string;
  /** Once the person types a name, choosing another target no longer replaces it. */
  isNameTyped: boolean;
  ideasRoot: string;
  claudePath: string;
  isDefault: boolean;
}

export const EMPTY_DRAFT: Draft = {
  targetKind: 'alias',
  alias: '',
  address: '',
  name: '',
  isNameTyped: false,
  ideasRoot: '',
  claudePath: '',
  isDefault: false,
};

/** The body the draft asks for, or what is wrong with it, each under its field (the protocol's own checks). */
export function bodyOfDraft(draft: Draft): { body: AddHostBody } | { errors: FieldErrors } {
  const target = draft.targetKind === 'alias' ? draft.alias : draft.address.trim();
  if (target === '') {
    const missing =
      draft.targetKind === 'alias'
        ? 'Choose an alias.'
        : 'Type user@host, or user@host:port for another port.';
    return {
      errors: { target: missing, ...(draft.name.trim() === '' ? { name: 'Give the host a name.' } : {}) },
    };
  }
  if (draft.name.trim() === '') return { errors: { name: 'Give the host a name.' } };
  const parsed = AddHostBodySchema.safeParse({
    name: draft.name.trim(),
    target,
    ...(draft.ideasRoot.trim() === '' ? {} : { ideasRoot: draft.ideasRoot.trim() }),
    ...(draft.claudePath.trim() === '' ? {} : { claudePath: draft.claudePath.trim() }),
    ...(draft.isDefault ? { isDefault: true } : {}),
  });
  return parsed.success ? { body: parsed.data } : { errors: fieldErrorsOfIssues(parsed.error.issues) };
}
