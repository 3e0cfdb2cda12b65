import type { IncomingMessage } from 'node:http';
import type { PreviewFrame } from '@catalyst/protocol';
import { findFramingRefusal } from '../../runs/core/framing-refusal.ts';

const PATH_MAX = 2_048;
/** Catalyst's pages, by origin, whose frames are followed: two or three (localhost, 127.0.0.1, a tab of each). */
const MAX_EMBEDDERS = 4;

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
  /** The newest first. */
  #embedders: string[] = [];
  /** What a page at each embedder's origin would see of the pages loaded in its frame. */
  readonly #latest = new Map<string, PreviewFrame>();

  /** A frame ticket was handed to the page of `origin` (Catalyst's, as the browser reached it). */
  embedIn(origin: string): void {
    if (!URL.canParse(origin)) return;
    this.#embedders = [origin, ...this.#embedders.filter((known) => known !== origin)];
    for (const gone of this.#embedders.splice(MAX_EMBEDDERS)) this.#latest.delete(gone);
  }

  /**
   * For Catalyst's page at `origin`: its headers are checked against each page's origin, so a page at localhost and
   * one at 127.0.0.1 may get different verdicts from the same app (a `frame-ancestors` that names one of them).
   */
  latestFor(origin: string | undefined): PreviewFrame | undefined {
    return this.#latest.get(origin ?? this.#embedders[0] ?? '');
  }

  note(request: IncomingMessage, answer: IncomingMessage): void {
    const dest = request.headers['sec-fetch-dest'];
    const isFrameLoad =
      (dest === 'iframe' || dest === 'frame') && request.headers['sec-fetch-mode'] === 'navigate';
    const status = answer.statusCode ?? 0;
    if (!isFrameLoad || (status >= 300 && status < 400 && status !== 304)) return;
    const path = (request.url ?? '/').slice(0, PATH_MAX);
    const headers = {
      xFrameOptions: answer.headersDistinct['x-frame-options'] ?? [],
      contentSecurityPolicy: answer.headersDistinct['content-security-policy'] ?? [],
    };
    // The frame's request does not say which of Catalyst's pages asked for it: each gets its own verdict.
    for (const embedder of this.#embedders) {
      const latest = this.#latest.get(embedder);
      const refusal = status === 304 ? latest?.refusal : findFramingRefusal(headers, embedder);
      this.#latest.set(embedder, {
        path,
        loads: (latest?.loads ?? 0) + 1,
        ...(refusal === undefined ? {} : { refusal }),
      });
    }
  }
}
