import { describe, expect, it } from 'vitest';
import type { CliResultMessage } from '@catalyst/protocol';
import {
  SESSION_ID,
  interruptedResultLine,
  lineOf,
  lostSessionResultLine,
  successResultLine,
} from '../../../test/support/cli-line-fixtures.ts';
import {
  RECAP_MESSAGE_CHARS,
  RECAP_MESSAGES,
  RECAP_TOTAL_CHARS,
  buildSessionRecap,
  isLostSession,
  withRecap,
} from './lost-session.ts';

function resultOf(raw: Record<string, unknown>): CliResultMessage {
  const message = lineOf(raw);
  if (message.type !== 'result') throw new Error(`not a result: ${message.type}`);
  return message;
}

describe('isLostSession', () => {
  it('is the CLI saying it has no conversation with that id', () => {
    expect(isLostSession(resultOf(lostSessionResultLine()), SESSION_ID)).toBe(true);
  });

  it('is not another session, another error, or a success', () => {
    expect(isLostSession(resultOf(lostSessionResultLine()), '00000000-1111-2222-3333-444444444444')).toBe(
      false,
    );
    expect(isLostSession(resultOf(interruptedResultLine()), SESSION_ID)).toBe(false);
    expect(isLostSession(resultOf(successResultLine()), SESSION_ID)).toBe(false);
  });
});

describe('buildSessionRecap', () => {
  const idea = { title: 'Tide clock', description: 'Shows high and low tide.' };

  it('names the idea and the conversation, oldest first, and says what follows', () => {
    const recap = buildSessionRecap({
      idea,
      conversation: [
        { role: 'person', text: 'A clock for the tide.' },
        { role: 'claude', text: 'Which coast?' },
      ],
    });
    expect(recap).toContain('The idea: Tide clock\nShows high and low tide.');
    expect(recap).toContain('Person: A clock for the tide.\nClaude: Which coast?');
    expect(recap.indexOf('Person:')).toBeLessThan(recap.indexOf('Claude:'));
    expect(recap).toMatch(/new message follows\.$/);
  });

  it('says earlier messages were left out when only the newest were read, without a count it does not know', () => {
    const conversation = [{ role: 'person' as const, text: 'The newest message read.' }];
    const recap = buildSessionRecap({ idea, conversation, hasEarlier: true });
    expect(recap).toContain('(the last 1 messages; earlier ones left out), oldest first:');
    expect(buildSessionRecap({ idea, conversation })).toContain('The conversation so far, oldest first:');
  });

  it('says so when there were no messages', () => {
    expect(buildSessionRecap({ idea, conversation: [] })).toContain('There were no messages yet.');
  });

  it('is bounded: the newest messages, each cut, and a total limit', () => {
    const conversation = Array.from({ length: 100 }, (_, index) => ({
      role: index % 2 === 0 ? ('person' as const) : ('claude' as const),
      text: `message ${String(index)} ${'x'.repeat(index === 99 ? 10_000 : 10)}`,
    }));
    const recap = buildSessionRecap({ idea, conversation });
    expect(recap).toContain('message 99');
    expect(recap).not.toContain('message 79 ');
    expect(recap).toContain(`the last ${String(RECAP_MESSAGES)} messages; 80 earlier ones left out`);
    expect(recap).toContain(`${'x'.repeat(RECAP_MESSAGE_CHARS - 'message 99 '.length)}…`);
    const huge = Array.from({ length: 30 }, () => ({ role: 'person' as const, text: 'y'.repeat(5_000) }));
    expect(buildSessionRecap({ idea, conversation: huge }).length).toBeLessThan(RECAP_TOTAL_CHARS + 2_000);
  });
});

describe('withRecap', () => {
  it('puts the person`s words, unchanged, after the recap', () => {
    expect(withRecap('RECAP', 'Which data source?')).toBe('RECAP\n\n---\n\nWhich data source?');
  });
});
