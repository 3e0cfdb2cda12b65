import { createLocalFiles } from '../src/host/local-files.ts';
import type { RelayEventDraft } from '@catalyst/protocol';
import type { HistoryFiles } from '../src/ideas/event-history.ts';

/** Local files that count the bytes read from the history at `historyPath` and refuse to read it whole. */
export function countingFiles(historyPath: string): { files: HistoryFiles; read: { bytes: number } } {
  const local = createLocalFiles();
  const read = { bytes: 0 };
  return {
    read,
    files: {
      ...local,
      readFile: (p) => (p === historyPath ? Promise.reject(new Error('read whole')) : local.readFile(p)),
      readRange: async (p, offset, length) => {
        const chunk = await local.readRange(p, offset, length);
        if (p === historyPath) read.bytes += chunk.length;
        return chunk;
      },
    },
  };
}

/** A `claude:text` event of run `run-1` saying `line <n>`: the history tests' filler. */
export function lineDraft(ideaId: string, n: number, messageId: string): RelayEventDraft {
  return {
    type: 'claude:text',
    ideaId,
    runId: 'run-1',
    text: `line ${n}`,
    messageId,
    parentToolUseId: null,
  };
}
