import type { IncomingMessage } from 'node:http';
import type { PreviewFrame } from '@catalyst/protocol';
import { findFramingRefusal } from '../core/framing-refusal.ts';

const PATH_MAX = 2_048;

/**
 * What a preview's server saw of its pages loaded in a frame (issue 31): the Preview tab shows the app in a frame
 * "when its headers allow". A frame's page is of another origin, so Catalyst's page cannot tell a page the browser
 * refused to frame from one it shows: the server that passed the answer on can. Each navigation in a frame
 * (`Sec-Fetch-Dest: iframe`, `Sec-Fetch-Mode: navigate`) has its path noted and its headers read against the origin
 * of Catalyst's page that asked for the frame's ticket (framing-refusal.ts), before the answer goes on: by the time
 * the frame's `load` fires in the page, the preview's view says so. Nothing of the answer is changed.
 *
 * A redirect is not shown, so it tells nothing; a `304` keeps the verdict the cached page had. A frame the app
 * itself nests is noted too: the browser checks its headers against Catalyst's page as well.
 */
export class PreviewFrames {
  #embedder: string | undefined;
  #latest: PreviewFrame | undefined;

  /** A frame ticket was handed to the page of `origin` (Catalyst's, as the browser reached it). */
  embedIn(origin: string): void {
    if (URL.canParse(origin)) this.#embedder = origin;
  }

  get latest(): PreviewFrame | undefined {
    return this.#latest;
  }

  note(request: IncomingMessage, answer: IncomingMessage): void {
    const embedder = this.#embedder;
    const dest = request.headers['sec-fetch-dest'];
    const isFrameLoad =
      (dest === 'iframe' || dest === 'frame') && request.headers['sec-fetch-mode'] === 'navigate';
    const status = answer.statusCode ?? 0;
    if (embedder === undefined || !isFrameLoad || (status >= 300 && status < 400 && status !== 304)) return;
    const refusal =
      status === 304
        ? this.#latest?.refusal
        : findFramingRefusal(
            {
              xFrameOptions: answer.headersDistinct['x-frame-options'] ?? [],
              contentSecurityPolicy: answer.headersDistinct['content-security-policy'] ?? [],
            },
            embedder,
          );
    this.#latest = {
      path: (request.url ?? '/').slice(0, PATH_MAX),
      loads: (this.#latest?.loads ?? 0) + 1,
      ...(refusal === undefined ? {} : { refusal }),
    };
  }
}
