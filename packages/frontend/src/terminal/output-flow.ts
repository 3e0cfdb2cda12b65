/** Bytes given to xterm.js and not yet drawn above which the server is asked to hold the shell's output. */
export const HOLD_ABOVE_BYTES = 256 * 1024;
/** Bytes not yet drawn below which the server is asked to send it again. */
export const GO_ON_BELOW_BYTES = 32 * 1024;

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
    if (!this.#isHeld && this.#pending > HOLD_ABOVE_BYTES) {
      this.#isHeld = true;
      this.#onHold(true);
    }
  }

  /** xterm.js has drawn `bytes` of what it was given (its write callback). */
  drawn(bytes: number): void {
    this.#pending -= bytes;
    if (this.#isHeld && this.#pending < GO_ON_BELOW_BYTES) {
      this.#isHeld = false;
      this.#onHold(false);
    }
  }
}
