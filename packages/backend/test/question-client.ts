import type { IdeaView, RelayEvent, ServerFrame } from '@catalyst/protocol';
import { collectToolResults, type ScriptedModel } from '@catalyst/testkit';
import { expect } from 'vitest';
import type { IdeaClient, ServiceUnderTest } from './service-harness.ts';

/**
 * Helpers for the question and permission tests of both tiers: open an idea with its policies, await a prompt's
 * frame, read what the model was sent.
 */

/** A new idea on `service`, with `settings` PATCHed onto it when given, and a client subscribed to it. */
export async function openIdeaWith(
  service: ServiceUnderTest,
  title: string,
  settings?: Record<string, unknown>,
): Promise<{ idea: IdeaView; client: IdeaClient; patched?: unknown }> {
  const idea = await service.createIdea(title);
  let patched: unknown;
  if (settings !== undefined) {
    const response = await service.api(`/api/ideas/${idea.id}`, {
      method: 'PATCH',
      body: JSON.stringify(settings),
    });
    expect(response.status).toBe(200);
    patched = await response.json();
  }
  const client = await service.connect();
  await client.subscribe(idea.id);
  return { idea, client, patched };
}

export type QuestionEvent = Extract<RelayEvent, { type: 'claude:question' }>;
export type PermissionEvent = Extract<RelayEvent, { type: 'claude:permission_request' }>;

export async function waitForQuestion(client: IdeaClient, fromIndex: number): Promise<QuestionEvent> {
  const frame = await client.waitFor((f) => f.type === 'claude:question', fromIndex);
  if (frame.type !== 'claude:question') throw new Error('unreachable: not a question');
  return frame;
}

export async function waitForPermission(client: IdeaClient, fromIndex: number): Promise<PermissionEvent> {
  const frame = await client.waitFor((f) => f.type === 'claude:permission_request', fromIndex);
  if (frame.type !== 'claude:permission_request') throw new Error('unreachable: not a permission request');
  return frame;
}

export function waitForError(client: IdeaClient, requestId: string): Promise<ServerFrame> {
  return client.waitFor((f) => f.type === 'error' && f.requestId === requestId);
}

/** Starts a run without waiting for its end; resolves with its `run:started`. */
export async function startRun(
  client: IdeaClient,
  run: { ideaId: string; mode: 'chat' | 'build'; message: string },
): Promise<ServerFrame> {
  const from = client.frames.length;
  client.send({ type: run.mode, ideaId: run.ideaId, message: run.message });
  return client.waitFor((f) => f.type === 'run:started' && f.ideaId === run.ideaId, from);
}

/** The tool results in the model's request number `index` (0-based over the model's whole life). */
export async function toolResultsOf(
  model: ScriptedModel,
  index: number,
): Promise<{ content: string; isError: boolean }[]> {
  const request = await model.waitForRequest(index);
  return collectToolResults(request).map((block) => ({
    content: typeof block.content === 'string' ? block.content : JSON.stringify(block.content),
    isError: block.is_error === true,
  }));
}
