import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';

/**
 * The port through which the previews (previews.ts) get an HTTP server of their own for a preview: the composition
 * root (app.ts) provides it, the server layer implements it (server/preview-proxy.ts). The service layer starts no
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

export interface PreviewServer {
  /** The port this server listens on (Catalyst's machine). */
  readonly listenPort: number;
  /** Its own name, `p-<random>.localhost`: a site of its own in the browser. */
  readonly hostName: string;
  /**
   * A fresh one-time path+query (`/.catalyst-preview/enter?ticket=…`), valid for a minute, under `origin` alone
   * (the link's `http://host:port`).
   */
  mintEntry(origin: string): string;
  /**
   * WebSockets (dev servers' hot reload) and responses still streaming through it now: someone has the preview
   * open.
   */
  inUse(): number;
  close(): Promise<void>;
}

export type StartPreviewServer = (options: PreviewServerOptions) => Promise<PreviewServer>;
