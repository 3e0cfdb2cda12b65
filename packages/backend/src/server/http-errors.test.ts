import { describe, expect, it } from 'vitest';
import { CatalystError } from '../core/catalyst-error.ts';
import { statusForCode } from '@catalyst/protocol';
import { INTERNAL_MESSAGE, toHttpError } from './http-errors.ts';

describe('statusForCode', () => {
  it('maps the codes the edges meet', () => {
    expect(statusForCode('INVALID_ARGUMENT')).toBe(400);
    expect(statusForCode('UNAUTHORIZED')).toBe(401);
    expect(statusForCode('FORBIDDEN_ORIGIN')).toBe(403);
    expect(statusForCode('IDEA_NOT_FOUND')).toBe(404);
    expect(statusForCode('HOST_NOT_FOUND')).toBe(404);
    expect(statusForCode('RUN_IN_PROGRESS')).toBe(409);
    expect(statusForCode('HOST_UNAVAILABLE')).toBe(503);
    // Every way a host fails is 503 with its own code, never a 500 (issue 15).
    for (const code of [
      'SSH_CONNECT_FAILED',
      'SSH_AUTH_FAILED',
      'SSH_HOST_KEY_MISMATCH',
      'SSH_HOST_KEY_MISSING',
    ] as const)
      expect(statusForCode(code)).toBe(503);
    expect(statusForCode('HISTORY_CORRUPT')).toBe(500);
  });
});

describe('toHttpError', () => {
  it('passes a CatalystError’s code and sentence through', () => {
    expect(toHttpError(new CatalystError('IDEA_NOT_FOUND', 'There is no such idea.'))).toEqual({
      code: 'IDEA_NOT_FOUND',
      message: 'There is no such idea.',
      isBug: false,
    });
  });

  it('turns body-parser failures into 4xx INVALID_ARGUMENT with our own sentence', () => {
    const parseFailure = Object.assign(new SyntaxError('Unexpected token } in JSON at position 9'), {
      status: 400,
      type: 'entity.parse.failed',
    });
    expect(toHttpError(parseFailure)).toEqual({
      code: 'INVALID_ARGUMENT',
      message: 'The request body is not valid JSON.',
      status: 400,
      isBug: false,
    });
    const tooLarge = Object.assign(new Error('request entity too large'), {
      status: 413,
      type: 'entity.too.large',
    });
    expect(toHttpError(tooLarge)).toMatchObject({
      status: 413,
      message: 'The request body is larger than 256 KiB.',
    });
    const overLoginLimit = Object.assign(new Error('request entity too large'), {
      status: 413,
      type: 'entity.too.large',
      limit: 4096,
    });
    expect(toHttpError(overLoginLimit)).toMatchObject({
      status: 413,
      message: 'The request body is larger than 4 KiB.',
    });
  });

  it('a host failure is not a bug: its sentence goes out as is', () => {
    expect(toHttpError(new CatalystError('SSH_AUTH_FAILED', 'vm refused the key (…)'))).toEqual({
      code: 'SSH_AUTH_FAILED',
      message: 'vm refused the key (…)',
      isBug: false,
    });
  });

  it('answers anything else with INTERNAL and a generic sentence, marked as a bug', () => {
    expect(toHttpError(new TypeError('cannot read x of undefined at /srv/secret/path.ts'))).toEqual({
      code: 'INTERNAL',
      message: INTERNAL_MESSAGE,
      isBug: true,
    });
    expect(toHttpError(new CatalystError('HISTORY_CORRUPT', 'The history of idea x is damaged.')).isBug).toBe(
      true,
    );
  });
});
