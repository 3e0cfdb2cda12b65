import { z } from 'zod';
import { CatalystError } from '../core/catalyst-error.ts';
import type { HostFiles } from '../host/host.ts';
import { readOptional } from './history-index.ts';
import { PRIVATE_FILE } from './private-modes.ts';

/**
 * The durable high-water mark of an idea's `seq` (issue 16 item 7). Events reach browsers before their batch
 * reaches `events.ndjson`, so after a crash the file alone under-counts what was shown. Before a number is shown,
 * `reservedUpTo` at or above it is on the host; a history opened later numbers from above the reservation, so no
 * number a browser has seen is ever handed out again. Reserving in blocks makes that one small write per block.
 */

// Large enough that a run streaming thousands of events never waits for the next block while its write is under
// way (under load a write took 0.5–1.5 s, and a 1,000 block held events back in bursts); a crash costs at most this
// many unused numbers, and a clean close gives the rest back.
export const RESERVE_BLOCK = 10_000;

const ReservationSchema = z.strictObject({ reservedUpTo: z.number().int().nonnegative() });

export type ReservationFiles = Pick<HostFiles, 'readFile' | 'writeFileAtomic'>;

/** The reservation on the host: 0 when none was made; undefined when the file is unreadable (reported). */
export async function readReservation(
  files: ReservationFiles,
  path: string,
  onError: (error: CatalystError) => void,
): Promise<number | undefined> {
  const text = await readOptional(files, path);
  if (text === '') return 0;
  try {
    return ReservationSchema.parse(JSON.parse(text)).reservedUpTo;
  } catch (error) {
    onError(new CatalystError('HISTORY_CORRUPT', `Unreadable seq reservation ${path}.`, { cause: error }));
    return undefined;
  }
}

export async function writeReservation(files: ReservationFiles, path: string, upTo: number): Promise<void> {
  await files.writeFileAtomic(path, `${JSON.stringify({ reservedUpTo: upTo })}\n`, PRIVATE_FILE);
}
