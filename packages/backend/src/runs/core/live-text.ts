import { StreamMessageStartSchema, StreamTextDeltaSchema } from '@catalyst/protocol';
import type { CliMessage, CliStreamEventMessage, LiveFrame, TextDeltaFrame } from '@catalyst/protocol';
import { capText, type RelayContext } from './relay-mapping.ts';

/**
 * The live-only frames of ONE run (protocol `ws-frames.ts`): Claude's text as it streams, from the CLI's
 * `--include-partial-messages` lines (claude-cli-protocol.md §3.9). Pure: a stdout message in, frames out, to be
 * sent before that message's own relay events. Nothing here is stored: the complete `assistant` line, which the
 * CLI prints before the block's `content_block_stop`, still becomes the `claude:text` of the history.
 *
 * Partial text is orphaned when an attempt is abandoned (§3.6): a mid-stream error is retried without streaming,
 * so no assistant line ever carries the deltas already relayed. `claude:text_reset` tells the client to drop them,
 * at the first line that proves it: `system/api_retry`, the next `message_start`, or (measured on CLI 2.1.197: the
 * non-streaming retry prints neither) an assistant line of another message. The end of the run drops them too.
 */
export class LiveText {
  readonly #context: RelayContext;
  /** From the latest `message_start`: the message the next deltas belong to. */
  #messageId: string | undefined;
  /** Deltas of `#messageId` were relayed that no assistant line has carried yet. */
  #hasPartialText = false;

  constructor(context: RelayContext) {
    this.#context = context;
  }

  framesFor(message: CliMessage): LiveFrame[] {
    switch (message.type) {
      case 'stream_event':
        return this.#onStreamEvent(message);
      case 'assistant':
        // Blocks stream one after another, each completed by its line: the partial text is carried or orphaned.
        return message.message.id === this.#messageId ? this.#carried() : this.#reset();
      case 'system':
        return message.subtype === 'api_retry' ? this.#reset() : [];
      case 'user':
      case 'result':
      case 'control_request':
      case 'control_response':
      case 'control_cancel_request':
      case 'tool_progress':
      case 'unknown':
        return [];
    }
  }

  /** When the run ends: partial text that no line completed (a cancel or a stall mid-stream) is dropped. */
  end(): LiveFrame[] {
    return this.#reset();
  }

  #onStreamEvent(message: CliStreamEventMessage): LiveFrame[] {
    const start = StreamMessageStartSchema.safeParse(message.event);
    if (start.success) {
      const frames = this.#reset();
      this.#messageId = start.data.message.id;
      return frames;
    }
    const delta = StreamTextDeltaSchema.safeParse(message.event);
    // A delta before any message_start cannot be attributed; its block's assistant line still brings the text.
    if (!delta.success || this.#messageId === undefined) return [];
    this.#hasPartialText = true;
    const frame: TextDeltaFrame = {
      type: 'claude:text_delta',
      ...this.#context,
      messageId: this.#messageId,
      index: delta.data.index,
      text: capText(delta.data.delta.text),
      parentToolUseId: message.parent_tool_use_id,
    };
    return [frame];
  }

  #carried(): LiveFrame[] {
    this.#hasPartialText = false;
    return [];
  }

  #reset(): LiveFrame[] {
    if (!this.#hasPartialText) return [];
    this.#hasPartialText = false;
    return [{ type: 'claude:text_reset', ...this.#context }];
  }
}
