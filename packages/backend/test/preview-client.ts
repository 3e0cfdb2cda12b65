import { request, type IncomingHttpHeaders } from 'node:http';
import type { LookupFunction } from 'node:net';

/**
 * A preview's links name `p-<random>.localhost` (issue 25, finding 7), which browsers resolve to loopback by
 * themselves and this machine's resolver does not: Node clients of the preview use this lookup (net, http, ws), and
 * `previewFetch`, a fetch over node:http with it, for the answers the tests read.
 */
export const loopbackLookup: LookupFunction = (hostname, options, callback) => {
  if (!hostname.endsWith('.localhost')) throw new Error(`${hostname} is no preview name`);
  if (options.all === true) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};

export interface PreviewFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  signal?: AbortSignal;
}

/** As fetch with `redirect: 'manual'`; rejects when nothing listens there. */
export function previewFetch(url: string, init: PreviewFetchInit = {}): Promise<Response> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: init.method ?? 'GET',
        headers: init.headers ?? {},
        lookup: loopbackLookup,
        ...(init.signal === undefined ? {} : { signal: init.signal }),
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('error', reject);
        answer.on('end', () => {
          const status = answer.statusCode ?? 0;
          const isBodiless = status === 204 || status === 304;
          resolve(
            new Response(isBodiless ? null : Buffer.concat(chunks), {
              status,
              headers: headersOf(answer.headers),
            }),
          );
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(init.body);
  });
}

function headersOf(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    for (const one of Array.isArray(value) ? value : [value ?? '']) headers.append(name, one);
  }
  return headers;
}
