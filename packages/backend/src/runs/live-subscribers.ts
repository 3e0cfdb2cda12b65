import type { LiveFrame } from '@catalyst/protocol';

/**
 * Who receives each idea's live-only frames (streaming text, protocol `ws-frames.ts`): the path parallel to the
 * history's appends, for frames that have no seq and are never stored or replayed. A frame is handed out
 * synchronously, like a history append tells its listeners, so the two keep the order of the CLI's stdout.
 */
export class LiveSubscribers {
  readonly #byIdea = new Map<string, Set<(frame: LiveFrame) => void>>();

  /** Returns the way to stop receiving. */
  add(ideaId: string, listener: (frame: LiveFrame) => void): () => void {
    const listeners = this.#byIdea.get(ideaId) ?? new Set();
    this.#byIdea.set(ideaId, listeners);
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.#byIdea.get(ideaId) === listeners) this.#byIdea.delete(ideaId);
    };
  }

  send(ideaId: string, frame: LiveFrame): void {
    for (const listener of this.#byIdea.get(ideaId) ?? []) listener(frame);
  }

  /** The idea is gone (deleted): its subscribers receive nothing more, as its history tells them nothing more. */
  drop(ideaId: string): void {
    this.#byIdea.delete(ideaId);
  }
}
