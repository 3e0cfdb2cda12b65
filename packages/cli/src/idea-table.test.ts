import type { IdeaView } from '@catalyst/protocol';
import { describe, expect, it } from 'vitest';
import { pickIdeaByTitle } from './idea-ref.ts';
import { formatIdeaTable } from './idea-table.ts';

function idea(id: string, title: string, extra: Partial<IdeaView> = {}): IdeaView {
  const at = '2026-01-01T00:00:00.000Z';
  return {
    id,
    host: 'local',
    available: true,
    running: false,
    meta: {
      schemaVersion: 1,
      id,
      title,
      description: '',
      status: 'captured',
      createdAt: at,
      updatedAt: at,
      totals: {
        costUsd: 0,
        turns: 0,
        runs: 0,
        questionsAsked: 0,
        questionsAnsweredByPerson: 0,
        questionsAnsweredAutomatically: 0,
        autoAnswerRetries: 0,
        auxiliaryCostUsd: 0,
      },
      questionPolicy: 'human',
      autoAnswerDelayMs: 120_000,
      permissionPolicy: 'auto',
    },
    ...extra,
  };
}

const first = idea('idea-aaaaaaaaaaaaaaaa', 'Garden planner');
const second = idea('idea-bbbbbbbbbbbbbbbb', 'Recipe\nbook', { running: true });
const away = {
  id: 'idea-cccccccccccccccc',
  host: 'vm',
  available: false,
  running: false,
  error: 'Host vm is down',
};

describe('formatIdeaTable', () => {
  it('aligns id, status and a one-line title; says when an idea runs or its host is away', () => {
    expect(formatIdeaTable([first, second, away])).toBe(
      [
        'ID                     STATUS             TITLE',
        'idea-aaaaaaaaaaaaaaaa  captured           Garden planner',
        'idea-bbbbbbbbbbbbbbbb  captured, running  Recipe book',
        'idea-cccccccccccccccc  unavailable        (Host vm is down)',
        '',
      ].join('\n'),
    );
  });

  it('says which ideas another Catalyst made on the same ideas folder', () => {
    const theirs = idea('idea-eeeeeeeeeeeeeeee', 'Theirs', { madeElsewhere: true });
    expect(formatIdeaTable([first, theirs])).toContain(
      'idea-eeeeeeeeeeeeeeee  captured, another Catalyst’s  Theirs',
    );
  });

  it('says how to start when there are no ideas', () => {
    expect(formatIdeaTable([])).toContain('catalyst new');
  });
});

describe('pickIdeaByTitle', () => {
  it('finds the one idea with that title, exactly or else ignoring case', () => {
    expect(pickIdeaByTitle([first, second], 'Garden planner')).toBe(first);
    expect(pickIdeaByTitle([first, second], ' garden PLANNER ')).toBe(first);
  });

  it('refuses a title no idea has, and one that several share, naming their ids', () => {
    expect(() => pickIdeaByTitle([first], 'Nope')).toThrow(
      expect.objectContaining({ code: 'IDEA_NOT_FOUND' }),
    );
    const twin = idea('idea-dddddddddddddddd', 'Garden planner');
    expect(() => pickIdeaByTitle([first, twin], 'Garden planner')).toThrow(
      /2 ideas are titled “Garden planner”: give its id \(idea-aaaaaaaaaaaaaaaa, idea-dddddddddddddddd\)/,
    );
  });
});
