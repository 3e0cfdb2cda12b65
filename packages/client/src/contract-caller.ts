import {
  API,
  ErrorCodeSchema,
  apiPath,
  type Api,
  type ApiRequest,
  type ApiResponse,
  type ApiRoute,
  type ApiRouteName,
  type ErrorCode,
} from '@catalyst/protocol';
import { z } from 'zod';
import { parseJson, parseServerData } from './lenient-parse.ts';

/**
 * Catalyst's REST API, route by route of the contract (protocol api-contract.ts), for every client of it (the web
 * app, the `catalyst` command): a route's path built from the request's values, its body sent as JSON, its answer
 * parsed with the route's schema (a newer server's extra fields let through, lenient-parse.ts). What went wrong is
 * a `CallFailure`, which each client turns into its own error (`toError`): a sentence for a person, never a stack.
 */
export interface ContractCaller<E extends Error> {
  /** The server's base URL ('' for the page's own origin). */
  readonly url: string;
  call<N extends ApiRouteName>(
    name: N,
    request: ApiRequest<Api[N]>,
    signal?: AbortSignal,
  ): Promise<ApiResponse<Api[N]>>;
  /** The error a failure becomes: what `call` rejects with (an aborted call rejects with the abort's reason). */
  readonly toError: (failure: CallFailure) => E;
}

/** Why a call failed. */
export type CallFailure =
  /** No answer: fetch could not reach the server (`reason`: the system's code, ECONNREFUSED, or its message). */
  | { kind: 'unreachable'; method: string; path: string; reason: string; cause: unknown }
  /** An answer began, and its body broke off. */
  | { kind: 'broken'; method: string; path: string; status: number; cause: unknown }
  /**
   * The server refused (an HTTP error with the API's error body): `code` is one this client knows, or undefined
   * for a code a newer server added (its `message` is still what a person needs).
   */
  | {
      kind: 'refused';
      method: string;
      path: string;
      status: number;
      code: ErrorCode | undefined;
      message: string;
    }
  /** An answer this client cannot read: an error without the API's body, or a success its schema refuses. */
  | { kind: 'unexpected'; method: string; path: string; status: number; detail: string };

export interface ContractCallerOptions<E extends Error> {
  /** The server's base URL, without a trailing slash; '' for the page's own origin. */
  url: string;
  /** Headers of every request: the command's Bearer token, the page's login key. */
  headers?: () => Record<string, string>;
  /** What every fetch is given besides (the page: `credentials: 'same-origin'`). */
  init?: Omit<RequestInit, 'method' | 'headers' | 'body' | 'signal'>;
  /** Every answer, before it is read: the page notes the server's build and a lapsed login (401). */
  onResponse?: (response: Response) => void;
  toError: (failure: CallFailure) => E;
}

/** The API's error body, read with any code: a newer server's code still carries its sentence. */
const ErrorBodySchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

export function createContractCaller<E extends Error>(options: ContractCallerOptions<E>): ContractCaller<E> {
  const { url, toError } = options;
  return {
    url,
    toError,
    async call(name, input, signal) {
      const route: ApiRoute = API[name];
      const { body } = input as { body?: unknown };
      const request: Request = {
        method: route.method,
        path: apiPath(route, input),
        ...(body === undefined ? {} : { body }),
        ...(signal === undefined ? {} : { signal }),
      };
      return (await send(options, route, request)) as ApiResponse<Api[typeof name]>;
    },
  };
}

interface Request {
  method: ApiRoute['method'];
  path: string;
  body?: unknown;
  signal?: AbortSignal;
}

async function send<E extends Error>(
  options: ContractCallerOptions<E>,
  route: ApiRoute,
  request: Request,
): Promise<unknown> {
  const { method, path, signal } = request;
  const where = { method, path: path.split('?')[0] ?? path };
  const headers: Record<string, string> = { ...options.headers?.() };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`${options.url}${path}`, {
      ...options.init,
      method,
      headers,
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (error) {
    if (signal?.aborted === true) throw error;
    throw options.toError({ kind: 'unreachable', ...where, reason: networkReason(error), cause: error });
  }
  options.onResponse?.(response);
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    if (signal?.aborted === true) throw error;
    throw options.toError({ kind: 'broken', ...where, status: response.status, cause: error });
  }
  const { status } = response;
  if (!response.ok) {
    const refusal = ErrorBodySchema.safeParse(parseJson(text));
    if (!refusal.success) {
      throw options.toError({
        kind: 'unexpected',
        ...where,
        status,
        detail: `HTTP ${status} ${text.slice(0, 200)}`.trim(),
      });
    }
    const { code, message } = refusal.data.error;
    const known = ErrorCodeSchema.safeParse(code);
    throw options.toError({
      kind: 'refused',
      ...where,
      status,
      code: known.success ? known.data : undefined,
      message,
    });
  }
  if (route.response === undefined) return undefined;
  const parsed = parseServerData(route.response, parseJson(text));
  if (!parsed.success) {
    throw options.toError({ kind: 'unexpected', ...where, status, detail: z.prettifyError(parsed.error) });
  }
  return parsed.data;
}

/** fetch reports a refused connection as "fetch failed" with the system's error as its cause. */
export function networkReason(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error && 'code' in cause && typeof cause.code === 'string') return cause.code;
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : String(error);
}
