import {
  API,
  ApiErrorBodySchema,
  apiPath,
  type Api,
  type ApiRequest as RouteRequest,
  type ApiResponse,
  type ApiRoute,
  type ApiRouteName,
} from '@catalyst/protocol';
import { z } from 'zod';
import { CliError } from './cli-error.ts';

/**
 * Catalyst's REST API, route by route of the contract (protocol api-contract.ts), with the token as a Bearer header.
 * Every answer is parsed with the route's schema before use; an error answer becomes a CliError carrying the API's
 * code and its sentence.
 */
export interface ApiClient {
  readonly url: string;
  call<N extends ApiRouteName>(
    name: N,
    request: RouteRequest<Api[N]>,
    signal?: AbortSignal,
  ): Promise<ApiResponse<Api[N]>>;
}

/**
 * An error body from a server newer than this client may carry a code this client does not know; its sentence
 * is still what a person needs, so it is read without the closed list.
 */
const LenientErrorBodySchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

export function createApiClient(url: string, token: string): ApiClient {
  const send = async (route: ApiRoute, request: ApiRequest): Promise<unknown> => {
    const response = await sendRequest(url, token, request);
    const text = await readBody(response, request);
    if (!response.ok) throw toApiError(response.status, text, request);
    if (route.response === undefined) return undefined;
    const parsed = route.response.safeParse(parseJson(text));
    if (!parsed.success) throw unexpectedAnswer(request, z.prettifyError(parsed.error));
    return parsed.data;
  };
  return {
    url,
    async call(name, input, signal) {
      const route: ApiRoute = API[name];
      const { body } = input as { body?: unknown };
      const request = {
        method: route.method,
        path: apiPath(route, input),
        ...(body === undefined ? {} : { body }),
        ...(signal === undefined ? {} : { signal }),
      };
      return (await send(route, request)) as ApiResponse<Api[typeof name]>;
    },
  };
}

interface ApiRequest {
  method: ApiRoute['method'];
  path: string;
  body?: unknown;
  signal?: AbortSignal;
}

async function sendRequest(url: string, token: string, request: ApiRequest): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  try {
    return await fetch(`${url}${request.path}`, {
      method: request.method,
      headers,
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
  } catch (error) {
    if (request.signal?.aborted === true) throw error;
    throw unreachable(url, error);
  }
}

async function readBody(response: Response, request: ApiRequest): Promise<string> {
  try {
    return await response.text();
  } catch (error) {
    if (request.signal?.aborted === true) throw error;
    throw new CliError('CONNECTION_LOST', `The connection to Catalyst broke during ${describe(request)}.`, {
      cause: error,
    });
  }
}

export function unreachable(url: string, error: unknown): CliError {
  return new CliError(
    'UNREACHABLE',
    `Cannot reach Catalyst at ${url} (${networkReason(error)}): is it running?`,
    {
      cause: error,
    },
  );
}

/** fetch reports a refused connection as "fetch failed" with the system error as its cause. */
function networkReason(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error && 'code' in cause && typeof cause.code === 'string') return cause.code;
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : String(error);
}

function toApiError(status: number, text: string, request: ApiRequest): CliError {
  const json = parseJson(text);
  const known = ApiErrorBodySchema.safeParse(json);
  if (known.success) return new CliError(known.data.error.code, known.data.error.message);
  const lenient = LenientErrorBodySchema.safeParse(json);
  if (lenient.success) return new CliError('UNEXPECTED_RESPONSE', lenient.data.error.message);
  return unexpectedAnswer(request, `HTTP ${status} ${text.slice(0, 200)}`.trim());
}

function unexpectedAnswer(request: ApiRequest, detail: string): CliError {
  return new CliError(
    'UNEXPECTED_RESPONSE',
    `Catalyst's answer to ${describe(request)} is not what this client understands (is it the same version?): ${detail}`,
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describe(request: ApiRequest): string {
  return `${request.method} ${request.path.split('?')[0] ?? request.path}`;
}
