import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { API, apiPath, statusForCode, type Api, type ApiRequest, type ApiRoute } from './api-contract.ts';
import { openApiDocument, openApiPath } from './openapi.ts';
import { ClientFrameSchema } from './ws-frames.ts';

const routes: [string, ApiRoute][] = Object.entries(API);

describe('the API contract', () => {
  it('names each :segment of a path in its params, and nothing else', () => {
    for (const [name, route] of routes) {
      const segments = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((match) => match[1]);
      expect(segments, name).toEqual(Object.keys(route.params ?? {}));
    }
  });

  it('has one route per method and path, and a body only where a request carries one', () => {
    const keys = routes.map(([, route]) => `${route.method} ${route.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const [name, route] of routes) {
      if (route.body !== undefined) expect(['POST', 'PATCH'], name).toContain(route.method);
      expect(route.status === 204, name).toBe(route.response === undefined);
    }
  });

  it('declares only error codes that are errors of a request (4xx or 5xx)', () => {
    for (const [, route] of routes) {
      for (const code of route.errors) expect(statusForCode(code)).toBeGreaterThanOrEqual(400);
    }
  });
});

describe('apiPath', () => {
  it('encodes each path value, so a slash or a dot-dot stays inside its segment', () => {
    expect(apiPath(API.checkpointDiff, { params: { id: 'idea-0123456789abcdef', commit: '../a/b' } })).toBe(
      '/api/ideas/idea-0123456789abcdef/checkpoints/..%2Fa%2Fb/diff',
    );
    expect(apiPath(API.previewPortLink, { params: { id: 'idea-0123456789abcdef', port: 5173 } })).toBe(
      '/api/ideas/idea-0123456789abcdef/preview/ports/5173/link',
    );
  });

  it('appends the query’s defined values, encoded, and leaves the rest out', () => {
    const path = apiPath(API.fileContent, {
      params: { id: 'idea-0123456789abcdef' },
      query: { path: 'src/a b&c.ts', at: undefined },
    });
    expect(path).toBe('/api/ideas/idea-0123456789abcdef/files/content?path=src%2Fa+b%26c.ts');
    expect(apiPath(API.events, { params: { id: 'idea-0123456789abcdef' }, query: { sinceSeq: 5 } })).toBe(
      '/api/ideas/idea-0123456789abcdef/events?sinceSeq=5',
    );
    expect(apiPath(API.listIdeas)).toBe('/api/ideas');
  });

  it('refuses a path value left out, and one that a URL would resolve away (. or ..)', () => {
    expect(() => apiPath(API.getIdea, { params: {} })).toThrow(/no value for :id/);
    const idea = 'idea-0123456789abcdef';
    expect(() => apiPath(API.getQuestion, { params: { id: idea, questionId: '..' } })).toThrow(/is \.\./);
    expect(() => apiPath(API.getQuestion, { params: { id: idea, questionId: '.' } })).toThrow(/is \./);
  });

  it('types a client’s request: a required query value cannot be left out (checked by tsc -b)', () => {
    const params = { id: 'idea-0123456789abcdef' };
    // @ts-expect-error a file's content needs its path
    const withoutPath: ApiRequest<Api['fileContent']> = { params };
    const withPath: ApiRequest<Api['fileContent']> = { params, query: { path: 'a.txt' } };
    const optional: ApiRequest<Api['events']> = { params };
    expect([withoutPath, withPath, optional].map((request) => request.params)).toEqual([
      params,
      params,
      params,
    ]);
  });
});

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(openApiDocument()));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    // The validator does refuse a broken one: a parameter that is nowhere.
    const broken = structuredClone(openApiDocument()) as { paths: Record<string, Record<string, object>> };
    broken.paths['/api/ideas'] = { get: { parameters: [{ name: 'x', in: 'nowhere' }], responses: {} } };
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('has every route of the contract, with its parameters and its answers', () => {
    const document = openApiDocument() as {
      paths: Record<
        string,
        Record<string, { operationId: string; parameters: { name: string; in: string }[] }>
      >;
    };
    for (const [name, route] of routes) {
      const operation = document.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
      expect(operation?.operationId, name).toBe(name);
      const pathNames = operation?.parameters.filter((p) => p.in === 'path').map((p) => p.name);
      expect(pathNames, name).toEqual(Object.keys(route.params ?? {}));
    }
    const events = document.paths['/api/ideas/{id}/events']?.['get'];
    expect(events?.parameters.filter((p) => p.in === 'query').map((p) => p.name)).toEqual([
      'sinceSeq',
      'limit',
    ]);
    const operations = Object.values(document.paths).flatMap((methods) => Object.keys(methods));
    expect(operations).toHaveLength(routes.length);
  });

  it('describes the WebSocket’s frames, each client frame type among them', () => {
    const document = openApiDocument() as { components: { schemas: Record<string, unknown> } };
    const clientTypes = JSON.stringify(document.components.schemas['ClientFrame']);
    for (const option of ClientFrameSchema.options)
      expect(clientTypes).toContain(`"${option.shape.type.value}"`);
    expect(JSON.stringify(document.components.schemas['ServerFrame'])).toContain('"subscribed"');
  });

  it('describes each error answer by the codes it may carry', () => {
    const document = openApiDocument() as {
      paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
    };
    const responses = document.paths['/api/ideas/{id}/runs']?.['post']?.responses ?? {};
    expect(Object.keys(responses)).toEqual(
      expect.arrayContaining(['202', '400', '401', '404', '409', '500']),
    );
    expect(responses['409']?.description).toContain('RUN_IN_PROGRESS');
    expect(responses['409']?.description).toContain('BUDGET_EXCEEDED');
  });
});
