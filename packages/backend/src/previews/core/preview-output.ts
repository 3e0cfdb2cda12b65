import { PREVIEW_LAST_LINES } from '@catalyst/protocol';

/**
 * A preview command's output (stdout and stderr, as they come), kept up to its newest `maxBytes` for the Preview
 * log, with terminal escapes removed (dev servers print in colour) and carriage-return redraws kept as their last
 * state. `lastLines` is what the API shows of a crash.
 */

// CSI sequences (colours, cursor moves), OSC sequences (titles, links), and lone two-byte escapes. ESC and BEL are
// the very characters to match.
// eslint-disable-next-line no-control-regex
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

export interface PreviewOutput {
  push(chunk: Uint8Array): void;
  /** Everything kept, and whether older output was dropped. */
  text(): { text: string; isCut: boolean };
  lastLines(count?: number): string[];
}

export function createPreviewOutput(maxBytes: number): PreviewOutput {
  const decoder = new TextDecoder();
  let kept = '';
  let isCut = false;
  return {
    push(chunk) {
      kept += decoder.decode(chunk, { stream: true }).replace(ESCAPES, '');
      if (kept.length > maxBytes) {
        const start = kept.indexOf('\n', kept.length - maxBytes);
        kept = kept.slice(start === -1 ? kept.length - maxBytes : start + 1);
        isCut = true;
      }
    },
    text: () => ({ text: kept, isCut }),
    lastLines(count = PREVIEW_LAST_LINES) {
      return kept
        .split('\n')
        .map((line) => line.slice(line.lastIndexOf('\r', line.length - 2) + 1).replace(/\r$/, ''))
        .filter((line) => line.trim() !== '')
        .slice(-count);
    },
  };
}
