import { ApiErrorBodySchema } from '@catalyst/protocol';
import { z } from 'zod';
import { CliError } from './cli-error.ts';

/**
 * Catalyst's REST API (docs/protocol.md, "REST"), with the token as a Bearer header. Every answer is parsed with
 * the protocol's schema before use; an error answer becomes a CliError carrying the API's code and its sentence.
 */
export interface ApiClient {
  readonly url: string;
  get<T>(path: string, schema: z.ZodType<T>, signal?: AbortSignal): Promise<T>;
  post<T>(path: string, schema: z.ZodType<T>, body?: unknown): Promise<T>;
}

/**
 * An error body from a server newer than this client may carry a code this client does not know; its sentence
 * is still what a person needs, so it is read without the closed list.
 */
const LenientErrorBodySchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

export function createApiClient(url: string, token: string): ApiClient {
  const call = async <T>(request: ApiRequest, schema: z.ZodType<T>): Promise<T> => {
    const response = await send(url, token, request);
    const text = await readBody(response, request);
    if (!response.ok) throw toApiError(response.status, text, request);
    const parsed = schema.safeParse(parseJson(text));
    if (!parsed.success) throw unexpectedAnswer(request, z.prettifyError(parsed.error));
    return parsed.data;
  };
  return {
    url,
    get: (path, schema, signal) => call({ method: 'GET', path, ...(signal ? { signal } : {}) }, schema),
    post: (path, schema, body) => call({ method: 'POST', path, body }, schema),
  };
}

interface ApiRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  signal?: AbortSignal;
}

async function send(url: string, token: string, request: ApiRequest): Promise<Response> {
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
