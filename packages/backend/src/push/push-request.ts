import { request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { lookupPublicAddress, refuseNonPublicLiteral } from './push-address-lookup.ts';

/**
 * One POST to a push service, with a deadline for the whole exchange (not an idle timeout, which a service that
 * trickles bytes would never trip) and an abort. `web-push` builds the request (encryption, VAPID) but sends it
 * over https only; this sends it over what the endpoint says, which the subscription store has already limited
 * to https: (and http://127.0.0.1 for tests). The connection goes to public addresses only (push-address-lookup.ts),
 * unless `allowPrivateAddresses` (tests: the test kit's push service is on loopback). The answer's body is read and
 * thrown away.
 */

export interface PushHttpRequest {
  endpoint: string;
  headers: OutgoingHttpHeaders;
  body: Buffer | null;
}

export interface PushHttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
}

export interface PostPushOptions {
  timeoutMs: number;
  signal: AbortSignal;
  allowPrivateAddresses?: boolean;
}

/**
 * Rejects with an Error on no answer within `timeoutMs`, a network failure, or the signal; with a
 * NonPublicAddressError for an endpoint at an address a push never goes to.
 */
export function postPushRequest(details: PushHttpRequest, options: PostPushOptions): Promise<PushHttpAnswer> {
  const url = new URL(details.endpoint);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const isGuarded = options.allowPrivateAddresses !== true;
  const refusal = isGuarded ? refuseNonPublicLiteral(url.hostname) : undefined;
  if (refusal !== undefined) return Promise.reject(refusal);
  return new Promise((resolve, reject) => {
    const request = send(url, {
      method: 'POST',
      headers: details.headers,
      signal: options.signal,
      ...(isGuarded ? { lookup: lookupPublicAddress } : {}),
    });
    const timer = setTimeout(() => {
      request.destroy(new Error(`the push service did not answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, headers: response.headers });
      });
      response.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      // After 'end' this is a no-op; before it, the answer was cut off.
      response.on('close', () => {
        clearTimeout(timer);
        reject(new Error('the push service closed the connection before the end of its answer'));
      });
    });
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end(details.body ?? undefined);
  });
}
