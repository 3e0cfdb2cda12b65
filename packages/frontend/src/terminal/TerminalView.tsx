import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, useState } from 'react';
import { OutputFlow } from './output-flow.ts';
import { TerminalSocket, type TerminalState } from './terminal-socket.ts';

export interface TerminalViewProps {
  ideaId: string;
  /** A shell to attach to again (kept across a reload); a new one is opened without it. */
  terminalId: string | undefined;
  label: string;
  isShown: boolean;
  onReady: (terminalId: string) => void;
  /** The shell has ended: its id opens nothing any more. */
  onEnded: (terminalId: string) => void;
  onClose: () => void;
}

const SCROLLBACK_LINES = 5_000;

/**
 * One terminal (issue 31): xterm.js on its socket. The terminal fits its element (a ResizeObserver, then the pty's
 * window follows); copy and paste are xterm's (select to copy with the browser's copy, paste with the browser's
 * paste); a dropped socket attaches again to the same shell and redraws from its recent output.
 */
export function TerminalView({
  ideaId,
  terminalId,
  label,
  isShown,
  onReady,
  onEnded,
  onClose,
}: TerminalViewProps) {
  const element = useRef<HTMLDivElement>(null);
  const socketRef = useRef<TerminalSocket>(undefined);
  const [state, setState] = useState<TerminalState>({ kind: 'connecting' });
  const callbacks = useRef({ onReady, onEnded });
  callbacks.current = { onReady, onEnded };

  useEffect(() => {
    const host = element.current;
    if (host === null) return;
    const terminal = new Terminal({
      scrollback: SCROLLBACK_LINES,
      cursorBlink: true,
      fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
      fontSize: 13,
    });
    const fit = new FitAddon();
    terminal.loadAddon(fit);
    terminal.open(host);
    const fitNow = () => {
      if (host.clientWidth > 0 && host.clientHeight > 0) fit.fit();
    };
    fitNow();
    /** Replays given to xterm.js and not yet drawn. */
    let replaysDrawing = 0;
    let isDisposed = false;
    const flow = new OutputFlow((isHeld) => {
      socketRef.current?.holdOutput(isHeld);
    });
    const onVisibility = () => {
      flow.setHidden(document.visibilityState === 'hidden');
    };
    onVisibility();
    document.addEventListener('visibilitychange', onVisibility);
    const draw = (bytes: Uint8Array | string, then?: () => void) => {
      flow.given(bytes.length);
      try {
        terminal.write(bytes, () => {
          flow.drawn(bytes.length);
          then?.();
        });
      } catch (error) {
        // Thrown away by xterm.js (past its 50 MB): never drawn, no longer waited for.
        flow.drawn(bytes.length);
        throw error;
      }
    };
    const socket = new TerminalSocket({
      ideaId,
      ...(terminalId === undefined ? {} : { terminalId }),
      size: () => ({ cols: terminal.cols, rows: terminal.rows }),
      onOutput: (bytes, isReplay) => {
        if (!isReplay) {
          draw(bytes);
          return;
        }
        // A replay is the shell's recent output from the server: it replaces what this page showed, once what the
        // page was given before is drawn (xterm's reset is not in the stream). Terminal queries in it (cursor position,
        // device attributes) must not be answered into the live shell as keys.
        replaysDrawing += 1;
        draw('', () => {
          if (!isDisposed) terminal.reset();
        });
        draw(bytes, () => {
          replaysDrawing -= 1;
        });
      },
      onState: (next) => {
        setState(next);
        const id = socketRef.current?.terminalId;
        if (next.kind === 'ended' && id !== undefined) callbacks.current.onEnded(id);
      },
      onReady: (id) => {
        callbacks.current.onReady(id);
      },
    });
    socketRef.current = socket;
    const typed = terminal.onData((data) => {
      if (replaysDrawing === 0) socket.write(data);
    });
    const resized = terminal.onResize(({ cols, rows }) => {
      socket.resize(cols, rows);
    });
    const observer = new ResizeObserver(fitNow);
    observer.observe(host);
    return () => {
      isDisposed = true;
      document.removeEventListener('visibilitychange', onVisibility);
      observer.disconnect();
      typed.dispose();
      resized.dispose();
      socket.dispose();
      terminal.dispose();
    };
    // The socket is this terminal's for the component's life: the panel keys each view by its own key, so the id it
    // learns later (onReady) changes nothing here.
  }, [ideaId]);

  return (
    <div className="terminal-view" hidden={!isShown}>
      <div className="terminal-bar">
        <p className="terminal-state" role="status">
          {describeState(state)}
        </p>
        <button
          type="button"
          onClick={() => {
            if (state.kind === 'ended') onClose();
            else socketRef.current?.close();
          }}
        >
          {state.kind === 'ended' ? `Remove ${label}` : `Close ${label}`}
        </button>
      </div>
      <div className="terminal-screen" ref={element} role="region" aria-label={label} />
    </div>
  );
}

function describeState(state: TerminalState): string {
  switch (state.kind) {
    case 'connecting':
      return 'Opening a shell on the idea’s host…';
    case 'live':
      return 'Connected: a shell in the project folder.';
    case 'reconnecting':
      return 'Reconnecting to the same shell…';
    case 'ended':
      return state.message;
  }
}
