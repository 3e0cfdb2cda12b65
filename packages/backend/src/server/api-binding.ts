import type {
  ApiAnswer,
  ApiParsedBody,
  ApiParsedParams,
  ApiParsedQuery,
  ApiRoute,
  HttpMethod,
} from '@catalyst/protocol';
import type { Request, Response, Router } from 'express';
import { parseBody, parsePathValue, parseQuery } from './request-parsing.ts';

/**
 * Binds the handlers of the API contract (protocol api-contract.ts) to an express router: each route's path values,
 * query and body are parsed with the contract's schemas (request-parsing.ts) before its handler runs (a failure is INVALID_ARGUMENT in a
 * sentence), and its answer goes out with the contract's status. The handlers object must have one handler per
 * route, each returning that route's response shape: a missing or wrong one does not type-check.
 */

export interface ApiInput<R> {
  readonly params: ApiParsedParams<R>;
  readonly query: ApiParsedQuery<R>;
  readonly body: ApiParsedBody<R>;
}

/** The request and response, for the few handlers that need more than the parsed input (cookies, the Host). */
export interface HttpExchange {
  readonly request: Request;
  readonly response: Response;
}

/** A route's handler: it returns the route's answer, and nothing for a 204 route (only there). */
export type ApiHandler<R> = (
  input: ApiInput<R>,
  http: HttpExchange,
) => R extends { status: 204 } ? Promise<unknown> | undefined : Promise<ApiAnswer<R>> | ApiAnswer<R>;
export type ApiHandlers<C> = { readonly [K in keyof C]: ApiHandler<C[K]> };

const METHODS: Readonly<Record<HttpMethod, 'get' | 'post' | 'patch' | 'delete'>> = {
  GET: 'get',
  POST: 'post',
  PATCH: 'patch',
  DELETE: 'delete',
};

/** `mountedAt`: where the router is mounted (`/api`), taken off the contract's absolute paths. */
export function bindApi<C extends Readonly<Record<string, ApiRoute>>>(
  router: Router,
  contract: C,
  handlers: ApiHandlers<C>,
  mountedAt: string,
): void {
  for (const name of Object.keys(contract)) {
    const route: ApiRoute | undefined = contract[name];
    // Any route's handler, from here on: what it answers goes out as JSON (nothing for 204).
    const handler = handlers[name] as
      ((input: ApiInput<ApiRoute>, http: HttpExchange) => unknown) | undefined;
    if (route === undefined || handler === undefined) throw new Error(`the API route ${name} has no handler`);
    if (!route.path.startsWith(`${mountedAt}/`)) throw new Error(`${route.path} is not under ${mountedAt}`);
    router[METHODS[route.method]](route.path.slice(mountedAt.length), async (request, response) => {
      const input = {
        params: parseParams(route, request.params as Record<string, string>),
        query: route.query === undefined ? undefined : parseQuery(route.query, request.query),
        body: route.body === undefined ? undefined : parseBody(route.body, request.body),
      } as ApiInput<ApiRoute>;
      const answer: unknown = await handler(input, { request, response });
      // A handler that answered by itself (an error with a status of its own) has said everything.
      if (response.headersSent) return;
      if (route.status === 204) {
        response.status(204).end();
        return;
      }
      response.status(route.status).json(answer);
    });
  }
}

function parseParams(route: ApiRoute, values: Record<string, string>): Record<string, unknown> {
  const parsed: Record<string, unknown> = {};
  for (const [name, param] of Object.entries(route.params ?? {})) {
    parsed[name] = parsePathValue(param, values[name] ?? '');
  }
  return parsed;
}
