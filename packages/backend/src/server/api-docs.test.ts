import { readFileSync } from 'node:fs';
import { API, ClientFrameSchema } from '@catalyst/protocol';
import { describe, expect, it } from 'vitest';

// docs/protocol.md's REST table lists exactly the routes of the contract (protocol api-contract.ts), and its
// WebSocket table exactly the frames a client may send (ws-frames.ts): one added or removed in one and not the other
// fails here.

const protocolDoc = readFileSync(new URL('../../../../docs/protocol.md', import.meta.url), 'utf8');

describe('docs/protocol.md', () => {
  it('lists exactly the contract’s routes in its REST table', () => {
    const documented = [...protocolDoc.matchAll(/^\| `(GET|POST|PATCH|DELETE) (\/[^`?\s]+)/gm)].map(
      (match) => `${match[1] ?? ''} ${match[2] ?? ''}`,
    );
    const declared = Object.values(API).map((route) => `${route.method} ${route.path}`);
    expect([...documented].sort()).toEqual([...declared].sort());
  });

  it('lists exactly the client frames in its WebSocket table', () => {
    const documented = [...protocolDoc.matchAll(/^\| `\{ type: "([a-z_]+)"/gm)].map((match) => match[1]);
    const declared = ClientFrameSchema.options.map((option) => option.shape.type.value);
    expect([...documented].sort()).toEqual([...declared].sort());
  });
});
