import type { Api } from '@catalyst/protocol';
import type { AsidesPort } from '../../service/ports.ts';
import type { ApiHandlers } from '../../server/api-binding.ts';

/** Question asides (issue 30): asked with a 202 and the aside's view; the answer comes as an `aside:answered` event. */
export function asideHandlers(asides: AsidesPort): ApiHandlers<Pick<Api, 'askAside' | 'listAsides'>> {
  return {
    askAside: async ({ params, body }) => ({ aside: await asides.askAside(params.id, body) }),
    listAsides: async ({ params }) => ({ asides: await asides.listAsides(params.id) }),
  };
}
