import type { IncomingMessage } from 'node:http';
import { pairingLink, type Api } from '@catalyst/protocol';
import type { ApiHandlers } from '../server/api-binding.ts';
import type { PairingCodes } from './pairing-codes.ts';

/**
 * `POST /api/pairing` (issue 29), under /api behind the token check: a one-time link `<origin>/pair#code=…` for
 * another device, which `POST /pair` redeems (routes-login.ts). The code appears in this answer only: never in a
 * log line, never in a URL a server sees.
 */

export interface PairingLinks {
  readonly codes: PairingCodes;
  /** The origin the other device opens (pairing-origin.ts), for the request that asks. */
  originFor(request: IncomingMessage): string;
}

export function pairingHandlers(links: PairingLinks): ApiHandlers<Pick<Api, 'createPairing'>> {
  return {
    createPairing: (_input, { request }) => {
      const { code, expiresAt } = links.codes.create();
      return {
        url: pairingLink(links.originFor(request), code),
        expiresAt: new Date(expiresAt).toISOString(),
      };
    },
  };
}
