import { AutopilotStepInputSchema, type RunMode } from '@catalyst/protocol';
import { usageError } from './cli-error.ts';

export interface StepSpec {
  mode: RunMode;
  message: string;
}

/**
 * `--step build:"/gsd:plan-phase 1"`: the mode, a colon, the message. The shell has usually removed the quotes
 * already; a pair that reached us (quoted twice, or from a script) is removed too. Only the first colon separates,
 * so a message may hold colons of its own (`/gsd:plan-phase`).
 */
export function parseStepSpec(spec: string): StepSpec {
  const colon = spec.indexOf(':');
  const mode = colon === -1 ? spec : spec.slice(0, colon);
  if (colon === -1 || (mode !== 'chat' && mode !== 'build')) {
    throw usageError(`--step ${spec}: a step is chat:"message" or build:"message"`);
  }
  const message = unquote(spec.slice(colon + 1).trim());
  const parsed = AutopilotStepInputSchema.safeParse({ mode, message });
  if (!parsed.success) throw usageError(`--step ${spec}: the step's message is empty or too long`);
  return parsed.data;
}

function unquote(text: string): string {
  for (const quote of ['"', "'"]) {
    if (text.length >= 2 && text.startsWith(quote) && text.endsWith(quote)) return text.slice(1, -1);
  }
  return text;
}
