import { lazy, Suspense, useCallback, useId, useState } from 'react';
import { forgetTerminal, keptTerminals, keepTerminal } from './kept-terminals.ts';
import './terminal.css';

interface OpenTerminal {
  /** This page's key for the view, stable from before the server names the shell. */
  key: number;
  number: number;
  terminalId: string | undefined;
}

let nextKey = 1;

// xterm.js is about a quarter of the web app's JavaScript (337 KB of 1.2 MB) and only a terminal needs it: loaded
// when the first terminal is shown, not with every page (a phone's first load).
const TerminalView = lazy(() =>
  import('./TerminalView.tsx').then((module) => ({ default: module.TerminalView })),
);

/**
 * The idea's terminals (issue 31): shells on its host in its `project/`, one shown at a time, each with its own
 * socket. Their ids are kept for this tab (sessionStorage), so a reload attaches to the same shells while the server
 * keeps them (a minute without a client).
 */
export function TerminalPanel({ ideaId }: { ideaId: string }) {
  const [terminals, setTerminals] = useState<OpenTerminal[]>(() => {
    // Only shells this tab opened before (a reload) are attached to at once: showing the tab starts nothing.
    return keptTerminals(ideaId).map((terminalId, index) => ({
      key: nextKey++,
      number: index + 1,
      terminalId,
    }));
  });
  const [shownKey, setShownKey] = useState<number | undefined>(terminals[0]?.key);
  const headingId = useId();

  const openNew = useCallback(() => {
    const key = nextKey++;
    setTerminals((current) => [
      ...current,
      { key, number: Math.max(0, ...current.map((terminal) => terminal.number)) + 1, terminalId: undefined },
    ]);
    setShownKey(key);
  }, []);

  const remove = (key: number) => {
    const removed = terminals.find((terminal) => terminal.key === key);
    if (removed?.terminalId !== undefined) forgetTerminal(ideaId, removed.terminalId);
    const rest = terminals.filter((terminal) => terminal.key !== key);
    setTerminals(rest);
    if (shownKey === key) setShownKey(rest.at(-1)?.key);
  };

  return (
    <section className="panel terminal-panel" aria-labelledby={headingId}>
      <div className="terminal-head">
        <h2 id={headingId}>Terminal</h2>
        <div className="terminal-tabs" role="group" aria-label="Terminals">
          {terminals.map((terminal) => (
            <button
              key={terminal.key}
              type="button"
              aria-pressed={terminal.key === shownKey}
              onClick={() => {
                setShownKey(terminal.key);
              }}
            >
              {`Terminal ${String(terminal.number)}`}
            </button>
          ))}
        </div>
        <button type="button" onClick={openNew}>
          New terminal
        </button>
      </div>
      {terminals.length === 0 ? (
        <p className="muted">
          No terminal is open. <strong>New terminal</strong> opens a shell on the idea’s host, in its project
          folder.
        </p>
      ) : null}
      <Suspense fallback={<p className="muted">Loading the terminal…</p>}>
        {terminals.map((terminal) => (
          <TerminalView
            key={terminal.key}
            ideaId={ideaId}
            terminalId={terminal.terminalId}
            label={`Terminal ${String(terminal.number)}`}
            isShown={terminal.key === shownKey}
            onReady={(terminalId) => {
              keepTerminal(ideaId, terminalId);
            }}
            onEnded={(terminalId) => {
              forgetTerminal(ideaId, terminalId);
            }}
            onClose={() => {
              remove(terminal.key);
            }}
          />
        ))}
      </Suspense>
    </section>
  );
}
