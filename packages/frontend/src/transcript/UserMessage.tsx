import type { RelayEvent } from '@catalyst/protocol';

type RunStarted = Extract<RelayEvent, { type: 'run:started' }>;

const modeNames = { chat: 'Chat', build: 'Build' } as const;

/** What the person sent, which started a run. Plain text: it is theirs, not Markdown from the model. */
export function UserMessage({ event }: { event: RunStarted }) {
  return (
    <article className={`t-msg t-msg--user t-msg--${event.mode}`} aria-label="You">
      <p className="t-msg__meta">
        <span className="t-mode">{modeNames[event.mode]}</span>
      </p>
      <p className="t-msg__text">{event.message}</p>
    </article>
  );
}
