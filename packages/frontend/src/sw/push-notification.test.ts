import { describe, expect, it } from 'vitest';
import { NOTIFICATION_ICON, notificationOfPush } from './push-notification.ts';

// A push becomes one notification only when it is exactly Catalyst's payload; anything else shows nothing of it,
// and never throws in the worker.

const payload = {
  title: 'Refactor the parser',
  body: 'Claude asks: Which approach?',
  url: '/ideas/idea-0123456789abcdef#waiting',
  tag: 'idea-0123456789abcdef',
  actions: [
    { action: 'choose:q1:0', title: 'Streaming' },
    { action: 'choose:q1:1', title: 'Batch' },
  ],
};

function pushData(json: unknown) {
  return { json: () => json };
}

describe('notificationOfPush', () => {
  it('shows the title, the sentence, the tag, the actions and keeps the idea`s page for the click', () => {
    expect(notificationOfPush(pushData(payload))).toEqual({
      title: 'Refactor the parser',
      options: {
        body: 'Claude asks: Which approach?',
        tag: 'idea-0123456789abcdef',
        icon: NOTIFICATION_ICON,
        data: { url: '/ideas/idea-0123456789abcdef#waiting' },
        actions: [
          { action: 'choose:q1:0', title: 'Streaming' },
          { action: 'choose:q1:1', title: 'Batch' },
        ],
      },
    });
  });

  it('shows a payload without actions with none', () => {
    const { actions: _actions, ...plain } = payload;
    expect(notificationOfPush(pushData(plain))?.options.actions).toEqual([]);
  });

  it('shows nothing for a push without data, data that is not JSON, or another shape', () => {
    expect(notificationOfPush(null)).toBeUndefined();
    expect(
      notificationOfPush({
        json: () => {
          throw new SyntaxError('Unexpected token');
        },
      }),
    ).toBeUndefined();
    expect(notificationOfPush(pushData('Refactor the parser'))).toBeUndefined();
    expect(notificationOfPush(pushData({ ...payload, transcript: 'secret' }))).toBeUndefined();
    expect(notificationOfPush(pushData({ ...payload, url: 'https://evil.example/' }))).toBeUndefined();
    expect(notificationOfPush(pushData({ ...payload, url: '//evil.example/' }))).toBeUndefined();
    const three = [...payload.actions, { action: 'choose:q1:1', title: 'Third' }];
    expect(notificationOfPush(pushData({ ...payload, actions: three }))).toBeUndefined();
  });
});
