import { MAX_TERMINALS_PER_IDEA } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';

/**
 * How many terminals may be open (issue 31): MAX_TERMINALS_PER_IDEA per idea, and per host its Host.maxTerminals (a
 * quarter of its run slots over all its ideas, so terminals cannot starve its runs). Shells on their way count:
 * opens at once never pass a limit together.
 */

export interface TerminalRequest {
  ideaId: string;
  hostName: string;
  hostLimit: number;
  /** The terminals open now, of the idea and on its host. */
  openOfIdea: number;
  openOnHost: number;
}

export class TerminalLimits {
  readonly #openingOfIdea = new Map<string, number>();
  readonly #openingOnHost = new Map<string, number>();

  /** TOO_MANY_TERMINALS past a limit; otherwise holds a place for the shell on its way, until the returned call. */
  reserve(request: TerminalRequest): () => void {
    const { ideaId, hostName, hostLimit } = request;
    if (request.openOfIdea + (this.#openingOfIdea.get(ideaId) ?? 0) >= MAX_TERMINALS_PER_IDEA) {
      throw new CatalystError(
        'TOO_MANY_TERMINALS',
        `This idea has ${String(MAX_TERMINALS_PER_IDEA)} terminals open already; close one first.`,
      );
    }
    if (request.openOnHost + (this.#openingOnHost.get(hostName) ?? 0) >= hostLimit) {
      throw new CatalystError(
        'TOO_MANY_TERMINALS',
        `The host ${hostName} has ${String(hostLimit)} terminals open already (its ideas' together, so that runs keep their slots); close one first.`,
        { details: { host: hostName, limit: hostLimit } },
      );
    }
    addCount(this.#openingOfIdea, ideaId, 1);
    addCount(this.#openingOnHost, hostName, 1);
    return () => {
      addCount(this.#openingOfIdea, ideaId, -1);
      addCount(this.#openingOnHost, hostName, -1);
    };
  }
}

function addCount(counts: Map<string, number>, key: string, delta: number): void {
  const count = (counts.get(key) ?? 0) + delta;
  if (count <= 0) counts.delete(key);
  else counts.set(key, count);
}
