import type { Api } from '@catalyst/protocol';
import type { PreviewsPort } from '../../service/ports.ts';
import type { ApiHandlers } from '../../server/api-binding.ts';

/**
 * The idea's preview (issue 14), its log, and the ports its processes listen on. The preview itself is served by a
 * server of its own (preview-proxy.ts), never under /api; its links carry the Host this request was made to.
 */

type PreviewRoutes =
  'preview' | 'startPreview' | 'stopPreview' | 'previewLog' | 'listeningPorts' | 'previewPortLink';

export function previewHandlers(previews: PreviewsPort): ApiHandlers<Pick<Api, PreviewRoutes>> {
  return {
    preview: ({ params }, { request }) => previews.preview(params.id, request.headers.host),
    startPreview: ({ params }, { request }) => previews.startPreview(params.id, request.headers.host),
    stopPreview: ({ params }, { request }) => previews.stopPreview(params.id, request.headers.host),
    previewLog: ({ params }) => previews.previewLog(params.id),
    listeningPorts: async ({ params }) => ({ ports: await previews.listeningPorts(params.id) }),
    previewPortLink: ({ params }, { request }) =>
      previews.previewPortLink(params.id, params.port, request.headers.host),
  };
}
