import type { Api } from '@catalyst/protocol';
import type { FilesPort } from '../../service/ports.ts';
import type { ApiHandlers } from '../../server/api-binding.ts';

/**
 * Checkpoints and the project's files (issue 13). A commit in a URL is checked by the service (400 malformed, 404
 * not the idea's checkpoint); a path arrives in the query string and is checked there too (400 INVALID_PATH), then
 * again on the host, resolved.
 */

type FileRoutes =
  'listCheckpoints' | 'checkpointDiff' | 'restoreCheckpoint' | 'listFiles' | 'fileContent' | 'fileHistory';

export function fileHandlers(files: FilesPort): ApiHandlers<Pick<Api, FileRoutes>> {
  return {
    listCheckpoints: async ({ params }) => ({ checkpoints: await files.listCheckpoints(params.id) }),
    checkpointDiff: ({ params }) => files.checkpointDiff(params.id, params.commit),
    restoreCheckpoint: async ({ params }) => ({
      checkpoint: await files.restoreCheckpoint(params.id, params.commit),
    }),
    listFiles: ({ params, query }) => files.listFiles(params.id, query.path),
    fileContent: ({ params, query }) => files.fileContent(params.id, query.path, query.at),
    fileHistory: async ({ params, query }) => ({
      path: query.path,
      checkpoints: await files.fileHistory(params.id, query.path),
    }),
  };
}
