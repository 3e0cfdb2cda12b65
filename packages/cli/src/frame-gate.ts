import type { ServerFrame } from '@catalyst/protocol';
import type { IdeaSocket } from './idea-socket.ts';
import type { Terminal } from './terminal.ts';

/**
 * The frames of what a command starts can arrive before the server's answer names it (the subscription is live
 * before the start, so nothing is missed). The gate keeps them until `release` gets a handler that knows the id,
 * then passes everything on in order. A frame this client cannot read is said so on stderr.
 */
export interface FrameGate {
  release: (handler: (frame: ServerFrame) => void) => void;
}

export function openFrameGate(socket: IdeaSocket, terminal: Terminal): FrameGate {
  const early: ServerFrame[] = [];
  let handle: ((frame: ServerFrame) => void) | undefined;
  socket.listen((frame) => {
    if (handle === undefined) early.push(frame);
    else handle(frame);
  });
  socket.onUnreadable((sample) => {
    terminal.err(terminal.paint.dim(`Ignored a frame this client does not understand: ${sample}\n`));
  });
  return {
    release: (handler) => {
      handle = handler;
      for (const frame of early.splice(0)) handler(frame);
    },
  };
}

/** The end event `watch` reports, or undefined when the connection to Catalyst closes first. */
export function untilEnded<T>(
  socket: IdeaSocket,
  watch: (settle: (ended: T) => void) => void,
): Promise<T | undefined> {
  return new Promise((resolve) => {
    void socket.closed.then(() => {
      resolve(undefined);
    });
    watch(resolve);
  });
}
