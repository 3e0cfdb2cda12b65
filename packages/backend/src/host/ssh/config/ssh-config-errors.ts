import { CatalystError } from '../../../core/catalyst-error.ts';

/** Where a config line came from, for sentences in OpenSSH's own shape: "/home/a/.ssh/config line 12: …". */
export interface ConfigPosition {
  readonly file: string;
  readonly line: number;
}

export function describePosition(at: ConfigPosition): string {
  return `${at.file} line ${at.line}`;
}

/** A line OpenSSH would refuse (it exits with "terminating, N bad configuration options"); so do we. */
export function invalidConfigError(at: ConfigPosition | undefined, sentence: string): CatalystError {
  const where = at === undefined ? '' : `${describePosition(at)}: `;
  const details = at === undefined ? {} : { file: at.file, line: at.line };
  return new CatalystError('SSH_CONFIG_INVALID', `${where}${sentence}`, { details });
}

/** A line OpenSSH would act on but Catalyst will not (running a command, another user's home). */
export function unsupportedConfigError(at: ConfigPosition | undefined, sentence: string): CatalystError {
  const where = at === undefined ? '' : `${describePosition(at)}: `;
  const details = at === undefined ? {} : { file: at.file, line: at.line };
  return new CatalystError('SSH_CONFIG_UNSUPPORTED', `${where}${sentence}`, { details });
}
