import { AddHostBodySchema } from '@catalyst/protocol';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../base/api.ts';
import { fieldErrorsOfApiError, fieldErrorsOfIssues } from './host-form-errors.ts';

// Where a host form shows what the API or the protocol's schema found wrong: by the field it concerns.

describe('fieldErrorsOfApiError', () => {
  it('puts HOST_EXISTS on the name', () => {
    const error = new ApiError('HOST_EXISTS', 'There is a host named devbox already.', 409);
    expect(fieldErrorsOfApiError(error, 'target')).toEqual({ name: 'There is a host named devbox already.' });
  });

  it('puts an alias the config does not have, and a config ssh would refuse, on the target', () => {
    const unknown = new ApiError(
      'INVALID_ARGUMENT',
      'devbx is not a Host of ~/.ssh/config (it has devbox): type user@host[:port] for a host that is not there.',
      400,
    );
    expect(fieldErrorsOfApiError(unknown, 'target')).toEqual({ target: unknown.message });
    const invalid = new ApiError('SSH_CONFIG_INVALID', '~/.ssh/config line 3: Port must be a number.', 503);
    expect(fieldErrorsOfApiError(invalid, 'target')).toEqual({ target: invalid.message });
    expect(fieldErrorsOfApiError(invalid, 'form')).toEqual({ form: invalid.message });
  });

  it('splits a refused body by the fields its summary names', () => {
    const error = new ApiError(
      'INVALID_ARGUMENT',
      'The request body is not valid: name: must be 1–63 lower-case letters, digits and dashes, starting with a letter or digit; ideasRoot: must not contain .. segments.',
      400,
    );
    expect(fieldErrorsOfApiError(error, 'target')).toEqual({
      name: 'Must be 1–63 lower-case letters, digits and dashes, starting with a letter or digit.',
      ideasRoot: 'Must not contain .. segments.',
    });
  });

  it('leaves what concerns no field under the form', () => {
    const busy = new ApiError('RUN_IN_PROGRESS', 'A run is going on devbox: wait for it to end.', 409);
    expect(fieldErrorsOfApiError(busy, 'target')).toEqual({ form: busy.message });
    const stray = new ApiError(
      'INVALID_ARGUMENT',
      'The request body is not valid: Unrecognized key: "x".',
      400,
    );
    expect(fieldErrorsOfApiError(stray, 'target')).toEqual({ form: 'Unrecognized key: "x".' });
    expect(fieldErrorsOfApiError(new Error('boom'), 'target')).toEqual({
      form: 'Something went wrong. Try again.',
    });
  });
});

describe('fieldErrorsOfIssues', () => {
  it('puts each issue of the protocol’s schema under its field, the first one per field', () => {
    const parsed = AddHostBodySchema.safeParse({
      name: 'Dev Box',
      target: 'me@vm; rm -rf',
      ideasRoot: 'ideas',
      claudePath: 'claude',
    });
    expect(parsed.success).toBe(false);
    expect(fieldErrorsOfIssues(parsed.error?.issues ?? [])).toEqual({
      name: 'Must be 1–63 lower-case letters, digits and dashes, starting with a letter or digit.',
      target: 'Must be an alias from ~/.ssh/config or user@host[:port], without spaces or quotes.',
      ideasRoot: 'Must be absolute or start with ~/ (the host user’s home).',
      claudePath: 'Must be an absolute path.',
    });
  });
});
