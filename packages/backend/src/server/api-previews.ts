import type { Api } from '@catalyst/protocol';
import type { PreviewsPort } from '../service/idea-service.ts';
import type { ApiHandlers } from './api-binding.ts';

/**
 * The idea's preview (issue 14), its log, and the ports its processes listen on. The preview itself is served by a
 * server of its own (preview-proxy.ts), never under /api; its links carry the Host this request was made to.
 */

type PreviewRoutes =
  'preview' | 'startPreview' | 'stopPreview' | 'previewLog' | 'listeningPorts' | 'previewPortLink';

export function previewHandlers(service: PreviewsPort): ApiHandlers<Pick<Api, PreviewRoutes>> {
  return {
    preview: ({ params }, { request }) => service.preview(params.id, request.headers.host),
    startPreview: ({ params }, { request }) => service.startPreview(params.id, request.headers.host),
    stopPreview: ({ params }, { request }) => service.stopPreview(params.id, request.headers.host),
    previewLog: ({ params }) => service.previewLog(params.id),
    listeningPorts: async ({ params }) => ({ ports: await service.listeningPorts(params.id) }),
    previewPortLink: ({ params }, { request }) =>
      service.previewPortLink(params.id, params.port, request.headers.host),
  };
}
