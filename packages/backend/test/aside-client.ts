import { API, apiPath, type AsideView } from '@catalyst/protocol';
import type { ServiceUnderTest } from './service-harness.ts';

/** Asks an aside of the idea through the API (both tiers' aside tests); the answer as it came. */
export function askAside(
  service: ServiceUnderTest,
  ideaId: string,
  body: Record<string, unknown>,
): Promise<Response> {
  return service.api(apiPath(API.askAside, { params: { id: ideaId } }), {
    method: 'POST',
    body: JSON.stringify(body),
  });
}

/** The idea's asides, as the API lists them. */
export async function listAsides(service: ServiceUnderTest, ideaId: string): Promise<AsideView[]> {
  const response = await service.api(apiPath(API.listAsides, { params: { id: ideaId } }));
  return API.listAsides.response.parse(await response.json()).asides;
}
