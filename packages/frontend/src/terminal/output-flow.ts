/** Bytes given to xterm.js and not yet drawn above which the server is asked to hold the shell's output. */
export const HOLD_ABOVE_BYTES = 256 * 1024;
/** Bytes not yet drawn below which the server is asked to send it again. */
export const GO_ON_BELOW_BYTES = 32 * 1024;
/**
 * The same while the page is hidden: the browser then runs xterm.js's drawing (timers) about once a second, or once
 * a minute after a while, and a shell held by a tab nobody looks at (a dev server's log) would stop on the host. The
 * output piles up instead, well under the 50 MB xterm.js keeps, and is drawn when the tab is shown again.
 */
export const HIDDEN_HOLD_ABOVE_BYTES = 16 * 1024 * 1024;
export const HIDDEN_GO_ON_BELOW_BYTES = 8 * 1024 * 1024;

/**
 * The page's side of the terminal's flow control (docs/protocol.md, the `flow` frame). xterm.js draws what it is
 * given later, in slices; a shell that prints faster than the page draws (`yes`, a `cat` of a big log, a slow phone)
 * piles up in its write buffer, which throws away what comes past 50 MB ("write data discarded"). So the bytes given
 * and not yet drawn are counted: past the high mark the server is asked to hold the output (the shell then waits on
 * the VM), under the low mark to send it again.
 */
export class OutputFlow {
  readonly #onHold: (isHeld: boolean) => void;
  #pending = 0;
  #isHeld = false;
  #isHidden = false;

  /** `onHold`: ask the server to hold the output (true) or send it again (false). */
  constructor(onHold: (isHeld: boolean) => void) {
    this.#onHold = onHold;
  }

  get isHeld(): boolean {
    return this.#isHeld;
  }

  /** `bytes` were given to xterm.js. */
  given(bytes: number): void {
    this.#pending += bytes;
    this.#check();
  }

  /** xterm.js has drawn `bytes` of what it was given (its write callback), or threw them away. */
  drawn(bytes: number): void {
    this.#pending -= bytes;
    this.#check();
  }

  /** The page was hidden (another tab, a locked phone) or shown again. */
  setHidden(isHidden: boolean): void {
    this.#isHidden = isHidden;
    this.#check();
  }

  #check(): void {
    const holdAbove = this.#isHidden ? HIDDEN_HOLD_ABOVE_BYTES : HOLD_ABOVE_BYTES;
    const goOnBelow = this.#isHidden ? HIDDEN_GO_ON_BELOW_BYTES : GO_ON_BELOW_BYTES;
    if (!this.#isHeld && this.#pending > holdAbove) {
      this.#isHeld = true;
      this.#onHold(true);
    } else if (this.#isHeld && this.#pending < goOnBelow) {
      this.#isHeld = false;
      this.#onHold(false);
    }
  }
}
