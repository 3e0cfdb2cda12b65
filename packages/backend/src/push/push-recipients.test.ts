import { describe, expect, it } from 'vitest';
import { pickPushRecipients } from './push-recipients.ts';

const IDEA = 'idea-0123456789abcdef';
const OTHER_IDEA = 'idea-fedcba9876543210';

describe('pickPushRecipients', () => {
  const phone = { sessionId: 'session-0000000000000001', mutedIdeas: [], name: 'phone' };
  const laptop = { sessionId: 'session-0000000000000002', mutedIdeas: [], name: 'laptop' };
  const laptopFirefox = { sessionId: 'session-0000000000000003', mutedIdeas: [IDEA], name: 'firefox' };
  const all = [phone, laptop, laptopFirefox];

  it('sends to every device that has not muted the idea, when nobody is viewing it', () => {
    expect(pickPushRecipients(all, IDEA, new Set())).toEqual([phone, laptop]);
    expect(pickPushRecipients(all, OTHER_IDEA, new Set())).toEqual(all);
  });

  it('leaves out every device of a session that shows the idea in a visible tab', () => {
    const secondPhoneTab = { ...phone, name: 'phone, second subscription' };
    expect(pickPushRecipients([...all, secondPhoneTab], IDEA, new Set([phone.sessionId]))).toEqual([laptop]);
    expect(pickPushRecipients(all, IDEA, new Set([phone.sessionId, laptop.sessionId]))).toEqual([]);
  });
});
