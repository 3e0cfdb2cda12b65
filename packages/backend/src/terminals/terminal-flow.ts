/**
 * Backpressure for one terminal's output (issue 31): the output is read only as fast as someone takes it. With no
 * client attached, reading stops once the scrollback has had its fill since the detach (more would only replace
 * it); with a client, it stops while the client's socket is behind (past a high-water mark), until it has caught up.
 * A reader that stops leaves the host's stream full (the SSH channel's window is not renewed, the local pipe fills),
 * so the shell's own writes block on the host, as they would on a terminal nobody scrolls.
 */

/** What the flow needs of the attached client. */
export interface FlowClient {
  /** True while the client has more output on its way than it should. */
  isBehind(): boolean;
  /** Settles once the client has caught up, or is gone. */
  caughtUp(): Promise<void>;
}

/** What the service reports for tests and logs: how much was read, and whether the reader waits now. */
export interface TerminalFlowStats {
  bytesRead: number;
  isHoldingBack: boolean;
  /** How often input waited for the way to the pty to drain. */
  inputWaits: number;
}

export class TerminalFlow {
  readonly #detachedBytes: number;
  #bytesRead = 0;
  #readSinceDetach = 0;
  #isHoldingBack = false;
  #inputWaits = 0;
  #wake: (() => void) | undefined;

  /** `detachedBytes`: how much is read with no client before the reader stops (the scrollback's size). */
  constructor(detachedBytes: number) {
    this.#detachedBytes = detachedBytes;
  }

  stats(): TerminalFlowStats {
    return { bytesRead: this.#bytesRead, isHoldingBack: this.#isHoldingBack, inputWaits: this.#inputWaits };
  }

  /** A chunk was read, for the client (when one is attached) or for the scrollback alone. */
  countRead(bytes: number, isAttached: boolean): void {
    this.#bytesRead += bytes;
    if (!isAttached) this.#readSinceDetach += bytes;
  }

  countInputWait(): void {
    this.#inputWaits++;
  }

  /** A client attached, or the terminal is closing: a waiting reader looks again. */
  wake(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** The client went: the scrollback's fill is counted from now. */
  detached(): void {
    this.#readSinceDetach = 0;
    this.wake();
  }

  /**
   * Resolves when the next chunk may be read: at once, or once the client has caught up, a client has attached or
   * the terminal is closing (`isEnding`: its output is then read to its end, so its transport can close).
   */
  async readyToRead(current: () => { client: FlowClient | undefined; isEnding: boolean }): Promise<void> {
    for (;;) {
      const { client, isEnding } = current();
      if (isEnding) return;
      const isFull = client === undefined ? this.#readSinceDetach >= this.#detachedBytes : client.isBehind();
      if (!isFull) return;
      const woken = new Promise<void>((resolve) => (this.#wake = resolve));
      this.#isHoldingBack = true;
      await Promise.race(client === undefined ? [woken] : [woken, client.caughtUp()]);
      this.#wake = undefined;
      this.#isHoldingBack = false;
    }
  }
}
