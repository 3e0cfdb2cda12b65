import { RunModeSchema, type RelayEvent, type RunMode } from '@catalyst/protocol';
import { z } from 'zod';

/**
 * The mode the composer opens in (issue 25, finding 15): the person's own switch for this idea, unless a run in
 * either mode started after it; else the mode of the idea's last run; else Chat. A built idea so opens in Build,
 * and the next instruction does not go out as a read-only chat by surprise. The switch is kept per idea in
 * localStorage, so a reload or a later visit keeps it.
 */

/** A person's switch, and the newest seq the page held when they made it: a run with a higher seq is newer. */
export interface ModeChoice {
  readonly mode: RunMode;
  readonly afterSeq: number;
}

/** The idea's newest run, by its `run:started` (seq 0 when only meta.json's `lastMode` is known). */
export interface LastRun {
  readonly mode: RunMode;
  readonly seq: number;
}

/** Where the opening mode came from: the person's remembered switch, the idea's last run, or nothing (Chat). */
export type ModeOrigin = 'chosen' | 'last-run' | 'default';

const ModeChoiceSchema = z.strictObject({ mode: RunModeSchema, afterSeq: z.number().int().nonnegative() });

function modeChoiceKey(ideaId: string): string {
  return `catalyst.mode.${ideaId}`;
}

/** The remembered switch; none when there is none or it is not one (written by another version, or by hand). */
export function readModeChoice(ideaId: string): ModeChoice | undefined {
  const stored = localStorage.getItem(modeChoiceKey(ideaId));
  if (stored === null) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(stored);
  } catch {
    return undefined;
  }
  const parsed = ModeChoiceSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

export function saveModeChoice(ideaId: string, choice: ModeChoice): void {
  localStorage.setItem(modeChoiceKey(ideaId), JSON.stringify(choice));
}

/** The newest `run:started` of the history; else meta.json's `lastMode` (a history that holds no run). */
export function findLastRun(
  events: readonly RelayEvent[],
  lastMode: RunMode | undefined,
): LastRun | undefined {
  const started = events.findLast((event) => event.type === 'run:started');
  if (started?.type === 'run:started') return { mode: started.mode, seq: started.seq };
  return lastMode === undefined ? undefined : { mode: lastMode, seq: 0 };
}

export function openingMode(
  choice: ModeChoice | undefined,
  lastRun: LastRun | undefined,
): { mode: RunMode; origin: ModeOrigin } {
  if (choice !== undefined && (lastRun === undefined || lastRun.seq <= choice.afterSeq)) {
    return { mode: choice.mode, origin: 'chosen' };
  }
  if (lastRun !== undefined) return { mode: lastRun.mode, origin: 'last-run' };
  return { mode: 'chat', origin: 'default' };
}

/** The line that says why the composer opened in this mode (none for a new idea's Chat). */
export function describeOpeningMode(opening: { mode: RunMode; origin: ModeOrigin }): string | undefined {
  const name = opening.mode === 'build' ? 'Build' : 'Chat';
  if (opening.origin === 'chosen') return `Opened in ${name}, as you left it for this idea.`;
  if (opening.origin === 'last-run') return `Opened in ${name}: this idea’s last run was a ${opening.mode}.`;
  return undefined;
}
