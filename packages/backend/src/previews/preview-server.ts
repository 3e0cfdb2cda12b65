import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { PreviewFrame } from '@catalyst/protocol';

/**
 * The port through which the previews (previews.ts) get an HTTP server of their own for a preview: the composition
 * root (app.ts) provides it, the server layer implements it (previews/edge/preview-proxy.ts). The service layer starts no
 * HTTP server itself.
 */

export interface PreviewServerOptions {
  /** The address to listen on: Catalyst's bind address. */
  bind: string;
  /** The target on the idea's host. */
  port: number;
  openUpstream: () => Promise<Duplex>;
  /** Whether an `Authorization: Bearer` value is Catalyst's token (never passed on). */
  isCatalystToken: (candidate: string) => boolean;
  /** Every request and upgrade that holds the cookie: the preview is being viewed. */
  onActivity: () => void;
  logger: Logger;
}

export interface EntryOptions {
  /**
   * A ticket for a frame in Catalyst's page, whose origin this is (issue 31): the cookie it sets is Partitioned, the
   * only kind Chromium keeps for a frame of another site, and the pages loaded in a frame are checked against it.
   */
  embedder?: string;
}

export interface PreviewServer {
  /** The port this server listens on (Catalyst's machine). */
  readonly listenPort: number;
  /** Its own name, `p-<random>.localhost`: a site of its own in the browser. */
  readonly hostName: string;
  /**
   * A fresh one-time path+query (`/.catalyst-preview/enter?ticket=…`), valid for a minute, under `origin` alone
   * (the link's `http://host:port`).
   */
  mintEntry(origin: string, options?: EntryOptions): string;
  /**
   * The pages loaded in a frame of Catalyst's page at `embedder` (an origin; the newest to ask for a frame ticket when
   * absent) so far (issue 31), once one was.
   */
  frame(embedder?: string): PreviewFrame | undefined;
  /**
   * WebSockets (dev servers' hot reload) and responses still streaming through it now: someone has the preview
   * open.
   */
  inUse(): number;
  close(): Promise<void>;
}

export type StartPreviewServer = (options: PreviewServerOptions) => Promise<PreviewServer>;
