import type { ServiceUnderTest } from './service-harness.ts';

/** One API call with an optional JSON body: its status, and its JSON body (none for a 204). */
export async function callApi(
  catalyst: ServiceUnderTest,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<{ status: number; body: unknown }> {
  const response = await catalyst.api(path, {
    ...(init.method === undefined ? {} : { method: init.method }),
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const body: unknown = response.status === 204 ? undefined : await response.json();
  return { status: response.status, body };
}
