import type { ScriptedBlock } from './scripted-replies.ts';

/** Builds the Anthropic Messages API's wire forms (SSE events, or one JSON body) for a scripted message. */

export interface MessageIdentity {
  id: string;
  model: string;
}

/** `deltas` is how the stream splits a text; it is never a field on the wire. */
type WireBlock =
  | { type: 'text'; text: string; deltas?: readonly string[] }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

const usageAtStart = {
  input_tokens: 100,
  output_tokens: 1,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

function toWireBlock(block: ScriptedBlock, identity: MessageIdentity, index: number): WireBlock {
  switch (block.type) {
    case 'text':
      return block;
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: `sig-${identity.id}-${index}` };
    case 'tool_use':
      return {
        type: 'tool_use',
        id: block.id ?? `toolu_${identity.id}_${index}`,
        name: block.name,
        input: block.input,
      };
  }
}

export function toWireBlocks(blocks: ScriptedBlock[], identity: MessageIdentity): WireBlock[] {
  return blocks.map((block, index) => toWireBlock(block, identity, index));
}

export function stopReasonOf(blocks: WireBlock[]): 'tool_use' | 'end_turn' {
  return blocks.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
}

export function sseEvent(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function messageStartEvent(identity: MessageIdentity): string {
  return sseEvent('message_start', {
    type: 'message_start',
    message: {
      id: identity.id,
      type: 'message',
      role: 'assistant',
      model: identity.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usageAtStart,
    },
  });
}

function blockStart(block: WireBlock): Record<string, unknown> {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: '' };
    case 'thinking':
      return { type: 'thinking', thinking: '', signature: '' };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: {} };
  }
}

function blockDeltas(block: WireBlock): Record<string, unknown>[] {
  switch (block.type) {
    case 'text':
      return (block.deltas ?? [block.text]).map((text) => ({ type: 'text_delta', text }));
    case 'thinking':
      return [
        { type: 'thinking_delta', thinking: block.thinking },
        { type: 'signature_delta', signature: block.signature },
      ];
    case 'tool_use':
      return [{ type: 'input_json_delta', partial_json: JSON.stringify(block.input) }];
  }
}

export function contentBlockEvents(block: WireBlock, index: number): string[] {
  return [
    sseEvent('content_block_start', { type: 'content_block_start', index, content_block: blockStart(block) }),
    ...blockDeltas(block).map((delta) =>
      sseEvent('content_block_delta', { type: 'content_block_delta', index, delta }),
    ),
    sseEvent('content_block_stop', { type: 'content_block_stop', index }),
  ];
}

export function messageEndEvents(stopReason: string, outputTokens: number): string[] {
  return [
    sseEvent('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: outputTokens },
    }),
    sseEvent('message_stop', { type: 'message_stop' }),
  ];
}

/** The whole reply as SSE, in the order the real API sends it. */
export function streamedMessage(blocks: WireBlock[], identity: MessageIdentity, stopReason: string): string {
  const events = [messageStartEvent(identity)];
  blocks.forEach((block, index) => events.push(...contentBlockEvents(block, index)));
  events.push(...messageEndEvents(stopReason, 20 + blocks.length));
  return events.join('');
}

/** The non-streaming form, for requests with `stream: false` (the CLI's fallback, protocol §3.6 and §11). */
export function jsonMessage(blocks: WireBlock[], identity: MessageIdentity, stopReason: string): unknown {
  return {
    id: identity.id,
    type: 'message',
    role: 'assistant',
    model: identity.model,
    content: blocks.map((block) => (block.type === 'text' ? { type: 'text', text: block.text } : block)),
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { ...usageAtStart, output_tokens: 20 + blocks.length },
  };
}

/** The SSE `error` event the API sends when a stream fails after it started (e.g. overloaded mid-response). */
export function streamErrorEvent(message: string): string {
  return sseEvent('error', { type: 'error', error: { type: 'overloaded_error', message } });
}
