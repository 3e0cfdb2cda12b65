import { parseMarkerLine, type VmMarkerName } from '../../core/vm-markers.ts';
import type { RunHandle, RunOutcome, RunSpec } from '../host.ts';

/**
 * A short command on the VM for preflight, run through the same wrapper as a real run so that nothing it starts
 * outlives it (ssh-field-notes.md §4: "give short commands a short timeout, and also run them through the
 * wrapper"). Past `timeoutMs` it is cancelled; the wrapper's max runtime is the backstop.
 */

export type StartRun = (spec: RunSpec) => Promise<RunHandle>;

export interface ProbeResult {
  stdout: string;
  outcome: RunOutcome;
  isTimedOut: boolean;
}

const PROBE_GRACE_MS = 1_000;
const BACKSTOP_MS = 5_000;

export async function runProbe(
  startRun: StartRun,
  spec: Pick<RunSpec, 'argv' | 'env'>,
  timeoutMs: number,
): Promise<ProbeResult> {
  // The time limit counts from the ask, the wait for a channel included: a host check never hangs past it.
  const deadline = Date.now() + timeoutMs;
  const starting = startRun({
    ...spec,
    cwd: '/',
    limits: { graceMs: PROBE_GRACE_MS, maxRuntimeMs: timeoutMs + BACKSTOP_MS },
  });
  const handle = await startedBy(starting, timeoutMs);
  if (handle === undefined) {
    starting
      .then((late) => {
        late.cancel();
      })
      .catch(() => undefined);
    const message = `the VM did not start the probe within ${String(timeoutMs)} ms`;
    return {
      stdout: '',
      outcome: { kind: 'start_failed', code: 'RUN_START_FAILED', message },
      isTimedOut: true,
    };
  }
  let isTimedOut = false;
  const timer = setTimeout(
    () => {
      isTimedOut = true;
      handle.cancel();
    },
    Math.max(0, deadline - Date.now()),
  );
  try {
    await handle.endInput();
    const [stdout] = await Promise.all([readText(handle.stdout), readText(handle.stderr)]);
    return { stdout, outcome: await handle.outcome, isTimedOut };
  } finally {
    clearTimeout(timer);
  }
}

/** The handle once started, or undefined when `timeoutMs` passed first. */
async function startedBy(starting: Promise<RunHandle>, timeoutMs: number): Promise<RunHandle | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, timeoutMs, undefined);
  });
  try {
    return await Promise.race([starting, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** `@@KEY=value` lines of a probe's stdout (core/vm-markers.ts), by marker, in order. */
export function parseProbeLines(stdout: string): Map<VmMarkerName, string[]> {
  const found = new Map<VmMarkerName, string[]>();
  for (const line of stdout.split('\n')) {
    const marker = parseMarkerLine(line);
    if (marker?.value === undefined) continue;
    found.set(marker.name, [...(found.get(marker.name) ?? []), marker.value]);
  }
  return found;
}

export function describeOutcome(outcome: RunOutcome): string {
  switch (outcome.kind) {
    case 'exited':
      return outcome.signal === null ? `exit code ${String(outcome.code)}` : `signal ${outcome.signal}`;
    case 'start_failed':
    case 'connection_lost':
      return outcome.message;
    case 'cancelled':
    case 'lease_lost':
    case 'max_runtime':
    case 'disk_full':
    case 'vanished':
      return outcome.kind;
  }
}

async function readText(stream: AsyncIterable<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}
