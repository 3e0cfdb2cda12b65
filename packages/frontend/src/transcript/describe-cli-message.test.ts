import { parseCliOutput } from '@catalyst/protocol';
import { describe, expect, it } from 'vitest';
import { describeCliMessage } from './describe-cli-message.ts';

// The one-line form of CLI events the transcript has no richer view for: what a person reads.

describe('describeCliMessage', () => {
  it('shows the text the CLI wrote into the conversation', () => {
    const message = parseCliOutput({
      type: 'user',
      message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user]' }] },
      parent_tool_use_id: null,
      session_id: 's',
      uuid: 'u',
    });
    expect(describeCliMessage(message)).toBe('user [Request interrupted by user]');
  });

  it('names an unknown line by its type and why it is unknown', () => {
    const line = describeCliMessage(parseCliOutput({ type: 'brand_new', subtype: 'thing' }));
    expect(line).toMatch(/^unknown brand_new\/thing: /);
  });

  it('keeps one line short', () => {
    const message = parseCliOutput({
      type: 'user',
      message: { role: 'user', content: 'x'.repeat(1000) },
      parent_tool_use_id: null,
      session_id: 's',
      uuid: 'u',
    });
    expect(describeCliMessage(message).length).toBeLessThanOrEqual(240);
  });
});
