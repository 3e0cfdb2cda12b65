import { join } from 'node:path';
import { expect } from 'vitest';
import { PreviewViewSchema, type PreviewState, type PreviewView } from '@catalyst/protocol';
import { waitUntil } from '@catalyst/testkit';
import { previewFetch } from './preview-client.ts';
import type { ServiceUnderTest } from './service-harness.ts';

// What the preview tests of both tiers share (previews.test.ts, fast/previews.test.ts).

/** The small app the tests start as a preview (and as a build's own server). */
export const APP = join(import.meta.dirname, 'fixtures', 'preview-server.cjs');

export async function previewOf(service: ServiceUnderTest, ideaId: string): Promise<PreviewView> {
  const response = await service.api(`/api/ideas/${ideaId}/preview`);
  expect(response.status).toBe(200);
  return PreviewViewSchema.parse(await response.json());
}

/** Waits for `state`; fails at once, with what the command printed, when the preview ends in another. */
export async function untilState(
  service: ServiceUnderTest,
  ideaId: string,
  state: PreviewState,
): Promise<PreviewView> {
  let view: PreviewView | undefined;
  await waitUntil(
    async () => {
      view = await previewOf(service, ideaId);
      if (view.state !== state && (view.state === 'crashed' || view.state === 'stopped')) {
        throw new Error(`the preview is ${view.state}, not ${state}: ${(view.lastOutput ?? []).join('\n')}`);
      }
      return view.state === state;
    },
    { timeoutMs: 20_000, intervalMs: 100, what: () => `the preview to be ${state} (last: ${view?.state})` },
  );
  if (view === undefined) throw new Error('unreachable');
  return view;
}

export async function post(service: ServiceUnderTest, path: string, body?: unknown): Promise<Response> {
  return service.api(path, {
    method: body === undefined ? 'POST' : 'PATCH',
    ...(body === undefined
      ? {}
      : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
  });
}

/** Opens a one-time link as a browser would: its answer sets the preview's cookie and sends it to `/`. */
export async function enter(url: string): Promise<string> {
  const response = await previewFetch(url);
  expect(response.status).toBe(303);
  expect(response.headers.get('location')).toBe('/');
  const cookie = response.headers.get('set-cookie') ?? '';
  expect(cookie).toMatch(/^catalyst_preview_\d+=[\w-]+; Path=\/; HttpOnly; SameSite=Lax$/);
  return cookie.split(';')[0] ?? '';
}
