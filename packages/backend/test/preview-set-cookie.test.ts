import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPreviewProxy, type PreviewProxy } from '../src/previews/edge/preview-proxy.ts';
import { previewFetch } from './preview-client.ts';

/**
 * Issue 39: a preview reached by a name Catalyst shares (a LAN name) sets cookies the browser sends to Catalyst
 * too, a cookie belonging to a host name and not a port. The preview's server passes the app's cookies on, so the
 * app keeps working, but under a shared name none wider than the host (no `Domain`) and none that would grow the
 * cookies past half of what Catalyst accepts. Under the preview's own name (`p-<id>.localhost`) they pass as they
 * are. A real app on a loopback port behind the real preview server.
 */

let app: Server;
let proxy: PreviewProxy;

beforeAll(async () => {
  // The app sets the cookies its query lists: `?set=<JSON array of Set-Cookie values>`.
  app = createServer({ maxHeaderSize: 1024 * 1024 }, (request, response) => {
    const listed: unknown = JSON.parse(
      new URL(request.url ?? '/', 'http://app').searchParams.get('set') ?? '[]',
    );
    response.writeHead(200, { 'Set-Cookie': Array.isArray(listed) ? listed.map(String) : [] });
    response.end('ok');
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  const appPort = (app.address() as AddressInfo).port;
  proxy = await startPreviewProxy({
    bind: '127.0.0.1',
    port: appPort,
    openUpstream: () =>
      new Promise((resolve, reject) => {
        const socket = connect(appPort, '127.0.0.1', () => {
          resolve(socket);
        });
        socket.once('error', reject);
      }),
    isCatalystToken: () => false,
    onActivity: () => undefined,
    logger: pino({ level: 'silent' }),
  });
});

afterAll(async () => {
  await proxy.close();
  await new Promise((resolve) => app.close(resolve));
});

/** Enters the preview under `host` (its link's answer sets its cookie), then asks the app to set `setCookies`. */
async function setCookiesUnder(
  host: string,
  setCookies: string[],
  carried: string[] = [],
): Promise<string[]> {
  const origin = `http://${host}:${String(proxy.listenPort)}`;
  const entered = await previewFetch(`${origin}${proxy.mintEntry(origin)}`);
  const own = (entered.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const path = `/?set=${encodeURIComponent(JSON.stringify(setCookies))}`;
  const answer = await previewFetch(`${origin}${path}`, {
    headers: { cookie: [...carried, own].join('; ') },
  });
  expect(answer.status).toBe(200);
  return answer.headers.getSetCookie();
}

/** `count` cookies of about 1 KiB, as the browser would send them back. */
function carriedCookies(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `app_${String(index)}=${'v'.repeat(1020)}`);
}

describe('the app’s Set-Cookie through the preview server (issue 39)', () => {
  it('under a name shared with Catalyst: kept to the host (no Domain), Catalyst’s names dropped', async () => {
    const set = await setCookiesUnder('127.0.0.1', [
      'app=1; Path=/',
      'wide=1; Path=/; Domain=example.test; HttpOnly',
      'catalyst_session=stolen; Path=/',
      'scoped=1; Path=/api; Secure',
    ]);
    expect(set).toEqual(['app=1; Path=/', 'wide=1; HttpOnly; Path=/', 'scoped=1; Secure; Path=/']);
  });

  it('under a shared name: none that would grow the cookies past the budget; a replacement or removal passes', async () => {
    const set = await setCookiesUnder(
      '127.0.0.1',
      [`more=${'m'.repeat(4000)}; Path=/`, 'app_1=short; Path=/', 'app_2=; Max-Age=0; Path=/'],
      carriedCookies(62),
    );
    expect(set).toEqual(['app_1=short; Path=/', 'app_2=; Max-Age=0; Path=/']);
  });

  it('under its own name: the app’s cookies pass as they are, Catalyst’s names still dropped', async () => {
    const big = `more=${'m'.repeat(4000)}; Path=/; Domain=example.test`;
    const set = await setCookiesUnder(proxy.hostName, [big, 'catalyst_x=1'], carriedCookies(62));
    expect(set).toEqual([big]);
  });
});
