import { z } from 'zod';
import { API, statusForCode, type ApiRoute } from './api-contract.ts';
import type { ErrorCode } from './error-codes.ts';
import { ApiErrorBodySchema } from './rest.ts';
import { ClientFrameSchema, ServerFrameSchema } from './ws-frames.ts';

/**
 * The API contract (api-contract.ts) as an OpenAPI 3.1 document, served at `GET /api/openapi.json`: every route with
 * its path and query parameters, its body, its answer and the error codes it may answer, each schema as zod's JSON
 * Schema (draft 2020-12, OpenAPI 3.1's own). Request parts are described as they are sent (text in a query), answers
 * as they are read. Public routes (`POST /login`, `POST /pair`) need no token. The WebSocket `/ws` is not a REST route: its frames are in the components (`ClientFrame`, what a
 * client sends; `ServerFrame`, what it receives), named by `x-websocket`.
 */

type JsonSchema = Record<string, unknown>;

/** What every route may answer besides its own errors; under /api, UNAUTHORIZED too (public routes declare it). */
const EVERY_ROUTE: readonly ErrorCode[] = ['FORBIDDEN_ORIGIN', 'INTERNAL'];
const EVERY_GUARDED_ROUTE: readonly ErrorCode[] = ['UNAUTHORIZED', ...EVERY_ROUTE];

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  return rest;
}

function parametersOf(route: ApiRoute): JsonSchema[] {
  const path = Object.entries(route.params ?? {}).map(([name, param]) => ({
    name,
    in: 'path',
    required: true,
    description: param.description,
    schema: { type: 'string' },
  }));
  if (route.query === undefined) return path;
  // Which values may be left out, from the side a client sends; what each means (an integer in bounds, its
  // default), from the side the server reads: the text's pattern alone would say neither.
  const sent = jsonSchema(route.query, 'input');
  const read = jsonSchema(route.query, 'output');
  const properties = (read['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = new Set((sent['required'] ?? []) as string[]);
  return [
    ...path,
    ...Object.entries(properties).map(([name, schema]) => ({
      name,
      in: 'query',
      required: required.has(name),
      schema,
    })),
  ];
}

function responsesOf(route: ApiRoute): Record<string, JsonSchema> {
  const responses: Record<string, JsonSchema> = {};
  responses[String(route.status)] =
    route.response === undefined
      ? { description: 'Done; no body.' }
      : {
          description: route.summary,
          content: { 'application/json': { schema: jsonSchema(route.response, 'output') } },
        };
  const byStatus = new Map<number, string[]>();
  const add = (status: number, what: string) => byStatus.set(status, [...(byStatus.get(status) ?? []), what]);
  const everyRoute = route.isPublic === true ? EVERY_ROUTE : EVERY_GUARDED_ROUTE;
  for (const code of [...route.errors, ...everyRoute]) add(statusForCode(code), code);
  for (const other of route.otherStatuses ?? []) add(other.status, `${other.code} (${other.when})`);
  // A body over the limit (256 KiB under /api) is refused before any route sees it; a public route says its own.
  if (route.body !== undefined && route.isPublic !== true) add(413, 'INVALID_ARGUMENT (a body over 256 KiB)');
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: `error.code: ${[...new Set(codes)].join(', ')}`,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ApiError' } } },
    };
  }
  return responses;
}

/** `/api/ideas/:id` → `/api/ideas/{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z]+)/g, '{$1}');
}

export function openApiDocument(routes: Readonly<Record<string, ApiRoute>> = API): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const [name, route] of Object.entries(routes)) {
    const operation: JsonSchema = {
      operationId: name,
      summary: route.summary,
      parameters: parametersOf(route),
      responses: responsesOf(route),
      // A public route is how a browser gets in: it needs no Bearer token.
      ...(route.isPublic === true ? { security: [] } : {}),
    };
    if (route.body !== undefined) {
      operation['requestBody'] = {
        required: true,
        content: { 'application/json': { schema: jsonSchema(route.body, 'input') } },
      };
    }
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Catalyst',
      version: '1',
      description:
        'Ideas, chats and builds with Claude on your own VM. Authenticate with `Authorization: Bearer <token>`; only `POST /login` and `POST /pair` (how a browser gets a session) need none.',
    },
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        ApiError: jsonSchema(ApiErrorBodySchema, 'output'),
        ClientFrame: jsonSchema(ClientFrameSchema, 'input'),
        ServerFrame: jsonSchema(ServerFrameSchema, 'output'),
      },
    },
    'x-websocket': {
      path: '/ws',
      description:
        'JSON text frames, same authentication; the client sends ClientFrame, the server sends ServerFrame (docs/protocol.md).',
      clientFrame: { $ref: '#/components/schemas/ClientFrame' },
      serverFrame: { $ref: '#/components/schemas/ServerFrame' },
    },
  };
}
