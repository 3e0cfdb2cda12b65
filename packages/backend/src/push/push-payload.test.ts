import { describe, expect, it } from 'vitest';
import { MAX_PUSH_PAYLOAD_BYTES } from '@catalyst/protocol';
import { encodePushPayload } from './push-payload.ts';

const payload = {
  title: 'Refactor the parser',
  body: 'Claude asks a question.',
  url: '/ideas/idea-0123456789abcdef#question',
  tag: 'idea-0123456789abcdef:attention',
};

describe('encodePushPayload', () => {
  it('takes a title, a sentence, a path, a tag and two actions, and gives their JSON', () => {
    const withActions = {
      ...payload,
      actions: [
        { action: 'answer:0', title: 'Yes' },
        { action: 'answer:1', title: 'No' },
      ],
    };
    expect(JSON.parse(encodePushPayload(withActions))).toEqual(withActions);
    expect(JSON.parse(encodePushPayload(payload))).toEqual(payload);
  });

  it('refuses any other field, at the top or in an action', () => {
    expect(() => encodePushPayload({ ...payload, transcript: 'the whole conversation' })).toThrow(
      /not a push payload: Unrecognized key: "transcript"/,
    );
    expect(() =>
      encodePushPayload({ ...payload, actions: [{ action: 'answer:0', title: 'Yes', answer: 'secret' }] }),
    ).toThrow(/actions\[0\]: Unrecognized key: "answer"/);
  });

  it('refuses a URL of another origin, a third action, and a missing title', () => {
    for (const url of ['https://evil.example/', '//evil.example/x', '/\\evil.example', 'ideas/x', '/a b']) {
      expect(() => encodePushPayload({ ...payload, url }), url).toThrow(/url: must be a path of this origin/);
    }
    const action = { action: 'a', title: 'A' };
    expect(() => encodePushPayload({ ...payload, actions: [action, action, action] })).toThrow(/actions/);
    expect(() => encodePushPayload({ ...payload, title: undefined })).toThrow(/title/);
  });

  it(`refuses a payload of more than ${MAX_PUSH_PAYLOAD_BYTES} bytes of JSON, though each field is in bounds`, () => {
    const big = {
      ...payload,
      title: '\u0001'.repeat(120),
      body: '\u0001'.repeat(300),
      url: `/${'€'.repeat(500)}`,
    };
    expect(() => encodePushPayload(big)).toThrow(/a push payload is \d+ bytes, over the 3072/);
  });
});
