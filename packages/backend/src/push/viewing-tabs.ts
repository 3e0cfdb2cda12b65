/**
 * Which browser sessions show which idea in a visible tab right now (issue 29): each WebSocket says so with its
 * `viewing` frame, and is forgotten when it closes. A device that sees an idea gets no push about it.
 */
export class ViewingTabs {
  readonly #tabs = new Map<object, { sessionId: string; ideaId: string }>();

  /** `tab` is the connection (its identity only); an API client's token has no session and is not counted. */
  set(tab: object, sessionId: string | undefined, ideaId: string | null): void {
    if (sessionId === undefined || ideaId === null) this.#tabs.delete(tab);
    else this.#tabs.set(tab, { sessionId, ideaId });
  }

  forget(tab: object): void {
    this.#tabs.delete(tab);
  }

  sessionsViewing(ideaId: string): Set<string> {
    const sessions = new Set<string>();
    for (const tab of this.#tabs.values()) if (tab.ideaId === ideaId) sessions.add(tab.sessionId);
    return sessions;
  }
}
