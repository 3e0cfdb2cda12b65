import { describe, it, expect } from 'vitest';
import { ControlRequestEnvelopeSchema } from './cli-control.ts';
import { CliMessageSchema, parseCliOutput, type CliMessage, type UnknownCliMessage } from './cli-output.ts';

const IDS =
  '"session_id":"aeb165df-4889-431c-92f5-d781e8dd8402","uuid":"c7f6190e-6758-4dfc-b04a-134546388620"';
const assistantWith = (block: string) =>
  `{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-opus-4-8","content":[${block}],"stop_reason":null},"parent_tool_use_id":null,${IDS}}`;
const userWith = (block: string) =>
  `{"type":"user","message":{"role":"user","content":[${block}]},"parent_tool_use_id":null,${IDS}}`;

function parseLine(line: string): CliMessage {
  return parseCliOutput(JSON.parse(line));
}

function expectUnknown(message: CliMessage): UnknownCliMessage {
  if (message.type !== 'unknown') throw new Error(`expected unknown, got ${message.type}`);
  return message;
}

describe('parseCliOutput: values that are not messages', () => {
  it.each([
    ['null', null, 'null'],
    ['a number', 42, 'number'],
    ['a string', 'x', 'string'],
    ['an array', [], 'an array'],
    ['a boolean', true, 'boolean'],
  ])('turns %s into unknown, raw kept', (_name, value, described) => {
    const message = expectUnknown(parseCliOutput(value));
    expect(message.raw).toBe(value);
    expect(message.reason).toBe(`expected a JSON object, got ${described}`);
    expect(message).not.toHaveProperty('originalType');
  });

  it.each(['{}', '{"type":42}', '{"type":null,"subtype":"init"}'])('needs a string type: %s', (line) => {
    const value: unknown = JSON.parse(line);
    const message = expectUnknown(parseCliOutput(value));
    expect(message.reason).toBe('missing a string "type"');
    expect(message.raw).toBe(value);
  });
});

describe('parseCliOutput: unknown types and subtypes (§3: parsers must ignore them)', () => {
  it('keeps an unknown type, e.g. rate_limit_event', () => {
    const value: unknown = JSON.parse('{"type":"rate_limit_event","rate_limit_info":{"status":"allowed"}}');
    const message = expectUnknown(parseCliOutput(value));
    expect(message).toMatchObject({
      originalType: 'rate_limit_event',
      reason: 'unknown type "rate_limit_event"',
    });
    expect(message.raw).toBe(value);
  });

  it('does not mistake Object.prototype names for types or subtypes', () => {
    expect(expectUnknown(parseLine('{"type":"toString"}')).reason).toBe('unknown type "toString"');
    expect(expectUnknown(parseLine('{"type":"__proto__"}')).originalType).toBe('__proto__');
    const message = expectUnknown(parseLine('{"type":"system","subtype":"constructor"}'));
    expect(message.reason).toBe('unknown system subtype "constructor"');
  });

  it('keeps an unknown system subtype with both names', () => {
    const message = expectUnknown(parseLine(`{"type":"system","subtype":"hook_progress",${IDS}}`));
    expect(message).toMatchObject({ originalType: 'system', originalSubtype: 'hook_progress' });
  });

  it('turns a result with an unknown subtype into unknown: downstream treats it as a failed turn end', () => {
    const line = `{"type":"result","subtype":"error_new_kind","is_error":true,"errors":["boom"],${IDS}}`;
    const message = expectUnknown(parseLine(line));
    expect(message).toMatchObject({ originalType: 'result', originalSubtype: 'error_new_kind' });
    expect(message.reason).toBe('unknown result subtype "error_new_kind"');
  });

  it('explains a system or result line without a subtype', () => {
    expect(expectUnknown(parseLine('{"type":"result","is_error":false}')).reason).toBe(
      'result line without a string "subtype"',
    );
  });
});

describe('parseCliOutput: known lines that fail validation', () => {
  it.each([
    ['an assistant text block without text', assistantWith('{"type":"text"}'), 'message.content.0.text'],
    [
      'a tool_use block without a name',
      assistantWith('{"type":"tool_use","id":"t","input":{}}'),
      'message.content.0.name',
    ],
    [
      'a tool_result without tool_use_id',
      userWith('{"type":"tool_result","content":"x"}'),
      'message.content.0.tool_use_id',
    ],
    [
      'a success result without result',
      `{"type":"result","subtype":"success","is_error":false,"duration_ms":1,"duration_api_ms":1,"num_turns":1,"stop_reason":null,"total_cost_usd":0,"permission_denials":[],"api_error_status":null,${IDS}}`,
      'result',
    ],
    [
      'an init whose tools is not a list',
      `{"type":"system","subtype":"init","cwd":"/","model":"m","permissionMode":"default","tools":"Bash",${IDS}}`,
      'tools',
    ],
  ])('turns %s into unknown with the path in the reason', (_name, line, path) => {
    const value: unknown = JSON.parse(line);
    const message = expectUnknown(parseCliOutput(value));
    expect(message.reason.startsWith(`${path}: `)).toBe(true);
    expect(message.raw).toBe(value);
  });

  it('keeps the request subtype of a can_use_tool that fails, and its request_id can still be read', () => {
    const value: unknown = JSON.parse(
      '{"type":"control_request","request_id":"r-9","request":{"subtype":"can_use_tool","input":{}}}',
    );
    const message = expectUnknown(parseCliOutput(value));
    expect(message).toMatchObject({ originalType: 'control_request', originalSubtype: 'can_use_tool' });
    expect(message.reason).toContain('tool_name');
    expect(ControlRequestEnvelopeSchema.parse(message.raw).request_id).toBe('r-9');
  });

  it('turns a control_request without request into unknown', () => {
    expect(expectUnknown(parseLine('{"type":"control_request","request_id":"r-1"}')).reason).toContain(
      'request',
    );
  });
});

describe('parseCliOutput: content blocks of unknown type', () => {
  it('turns an unknown assistant block into a typed unknown block and keeps the message', () => {
    const line = assistantWith(
      '{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}}',
    );
    const message = parseLine(line);
    if (message.type !== 'assistant') throw new Error(message.type);
    expect(message.message.content).toEqual([
      {
        type: 'unknown',
        originalType: 'server_tool_use',
        raw: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } },
      },
    ]);
    expect(CliMessageSchema.parse(message)).toEqual(message);
  });

  it('turns an image inside a tool_result into an unknown block', () => {
    const image =
      '{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}';
    const message = parseLine(userWith(`{"type":"tool_result","tool_use_id":"t1","content":[${image}]}`));
    if (message.type !== 'user' || typeof message.message.content === 'string') throw new Error(message.type);
    const block = message.message.content[0];
    if (block?.type !== 'tool_result' || typeof block.content === 'string')
      throw new Error('no tool_result array');
    expect(block.content[0]).toMatchObject({ type: 'unknown', originalType: 'image' });
  });
});

describe('parseCliOutput: leniency', () => {
  it('keeps unknown top-level fields on every kind of line, without copying the line', () => {
    const value: unknown = JSON.parse(
      `{"type":"control_cancel_request","request_id":"r-1","new_field":{"a":[1]}}`,
    );
    const message = parseCliOutput(value);
    expect(message).toBe(value);
    expect(message).toHaveProperty('new_field', { a: [1] });
  });

  it('never throws on odd JSON values', () => {
    const odd = [
      '{"type":"assistant","message":null}',
      '{"type":"user","message":{"content":[[[]]]}}',
      '[[{"type":"system"}]]',
      '{"type":"control_request","request":"x"}',
      '{"type":"stream_event","event":[]}',
      '{"type":"result","subtype":{}}',
      '"\\u0000"',
      '-0',
    ];
    for (const line of odd) expect(parseLine(line).type).toBe('unknown');
  });
});
