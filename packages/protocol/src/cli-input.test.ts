import { describe, it, expect } from 'vitest';
import {
  HostControlRequestSchema,
  HostControlResponseSchema,
  HostUserMessageSchema,
  createAllowResponse,
  createDenyResponse,
  createErrorResponse,
  createInitializeRequest,
  createInterruptRequest,
  createSetPermissionModeRequest,
  createUserMessage,
} from './cli-input.ts';

// Expected lines are the ones claude-cli-protocol.md shows the SDK or the experiments writing (§7.1, §8).
describe('createUserMessage (§7.1)', () => {
  it('writes exactly the SDK line', () => {
    expect(JSON.stringify(createUserMessage('first message'))).toBe(
      '{"type":"user","session_id":"","message":{"role":"user","content":[{"type":"text","text":"first message"}]},"parent_tool_use_id":null}',
    );
  });

  it('adds a uuid only when given one', () => {
    expect(createUserMessage('hi', { uuid: 'u-1' }).uuid).toBe('u-1');
    expect(createUserMessage('hi')).not.toHaveProperty('uuid');
  });

  it('is strict: unknown fields and empty content are rejected', () => {
    expect(HostUserMessageSchema.safeParse(createUserMessage('x')).success).toBe(true);
    expect(HostUserMessageSchema.safeParse({ ...createUserMessage('x'), extra: 1 }).success).toBe(false);
    const empty = { ...createUserMessage('x'), message: { role: 'user', content: [] } };
    expect(HostUserMessageSchema.safeParse(empty).success).toBe(false);
  });
});

describe('control responses to can_use_tool (§8.2)', () => {
  const input = {
    command: 'echo rewritten-by-host > /home/dev/work/bash-ran.txt',
    description: 'Write via bash',
  };

  it('writes allow with updatedInput', () => {
    expect(createAllowResponse('2bbcbfae', input)).toEqual({
      type: 'control_response',
      response: {
        subtype: 'success',
        request_id: '2bbcbfae',
        response: { behavior: 'allow', updatedInput: input },
      },
    });
  });

  it('passes permission suggestions back as updatedPermissions', () => {
    const setMode = { type: 'setMode', mode: 'acceptEdits', destination: 'session' };
    const response = createAllowResponse('r', input, { updatedPermissions: [setMode] });
    expect(HostControlResponseSchema.parse(response).response).toMatchObject({
      response: { updatedPermissions: [setMode] },
    });
  });

  it('rejects allow without updatedInput, which the CLI refuses [21a]', () => {
    const bare = {
      type: 'control_response',
      response: { subtype: 'success', request_id: 'r', response: { behavior: 'allow' } },
    };
    expect(HostControlResponseSchema.safeParse(bare).success).toBe(false);
  });

  it('writes deny, with interrupt only when asked', () => {
    expect(JSON.stringify(createDenyResponse('2fb772a5', 'Host says no writes today'))).toBe(
      '{"type":"control_response","response":{"subtype":"success","request_id":"2fb772a5","response":{"behavior":"deny","message":"Host says no writes today"}}}',
    );
    expect(createDenyResponse('r', 'stop', { interrupt: true }).response).toMatchObject({
      response: { behavior: 'deny', message: 'stop', interrupt: true },
    });
  });

  it('writes the error envelope', () => {
    expect(createErrorResponse('r', 'host blew up')).toEqual({
      type: 'control_response',
      response: { subtype: 'error', request_id: 'r', error: 'host blew up' },
    });
  });

  it('validates every constructed response with the strict schema', () => {
    for (const response of [
      createAllowResponse('a', input),
      createDenyResponse('b', 'no', { interrupt: false }),
      createErrorResponse('c', 'e'),
    ]) {
      expect(HostControlResponseSchema.parse(response)).toEqual(response);
    }
  });
});

describe('control requests from the host (§8.1, §8.4, §8.5)', () => {
  it('writes interrupt, initialize and set_permission_mode as measured', () => {
    expect(JSON.stringify(createInterruptRequest('int-1'))).toBe(
      '{"type":"control_request","request_id":"int-1","request":{"subtype":"interrupt"}}',
    );
    expect(JSON.stringify(createInitializeRequest('init-1'))).toBe(
      '{"type":"control_request","request_id":"init-1","request":{"subtype":"initialize","hooks":null}}',
    );
    expect(createSetPermissionModeRequest('m-1', 'acceptEdits').request).toEqual({
      subtype: 'set_permission_mode',
      mode: 'acceptEdits',
    });
  });

  it('rejects an unknown permission mode, an empty request_id and extra fields', () => {
    const request = createSetPermissionModeRequest('m-1', 'plan');
    expect(HostControlRequestSchema.safeParse(request).success).toBe(true);
    expect(
      HostControlRequestSchema.safeParse({ ...request, request: { ...request.request, mode: 'yolo' } })
        .success,
    ).toBe(false);
    expect(HostControlRequestSchema.safeParse({ ...request, request_id: '' }).success).toBe(false);
    expect(HostControlRequestSchema.safeParse({ ...createInterruptRequest('i'), extra: true }).success).toBe(
      false,
    );
  });
});
