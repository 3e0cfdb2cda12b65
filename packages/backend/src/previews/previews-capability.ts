import type { ListeningPort, PreviewLinkResponse, PreviewLogResponse, PreviewView } from '@catalyst/protocol';
import type { IdeaMeta } from '@catalyst/protocol';
import type { PreviewsPort } from '../service/ports.ts';
import type { Previews } from './previews.ts';

/** Previews (PreviewsPort, issue 14) over the previews' engine (previews.ts), each call on an idea that exists. */
export class PreviewsCapability implements PreviewsPort {
  readonly #previews: Previews;
  readonly #locate: (id: string) => Promise<{ host: string; meta: IdeaMeta }>;

  constructor(previews: Previews, locate: (id: string) => Promise<{ host: string; meta: IdeaMeta }>) {
    this.#previews = previews;
    this.#locate = locate;
  }

  preview(id: string, requestHost?: string): Promise<PreviewView> {
    return this.#previews.view(id, requestHost);
  }

  startPreview(id: string, requestHost?: string): Promise<PreviewView> {
    return this.#previews.start(id, requestHost);
  }

  async stopPreview(id: string, requestHost?: string): Promise<PreviewView> {
    await this.#locate(id);
    await this.#previews.stop(id);
    return this.#previews.view(id, requestHost);
  }

  async previewLog(id: string): Promise<PreviewLogResponse> {
    await this.#locate(id);
    return this.#previews.log(id);
  }

  listeningPorts(id: string): Promise<ListeningPort[]> {
    return this.#previews.ports(id);
  }

  previewPortLink(id: string, port: number, requestHost?: string): Promise<PreviewLinkResponse> {
    return this.#previews.portLink(id, port, requestHost);
  }
}
