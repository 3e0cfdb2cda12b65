import { MarkdownText } from './Markdown.tsx';

interface ClaudeTextProps {
  text: string;
  isStreaming: boolean;
  isSubagent: boolean;
}

/**
 * Claude's text. A draft and the complete text that replaces it share a key (transcript-items.ts), so this is one
 * element from the first delta to the end; aria-busy keeps screen readers from reading every delta of the log.
 */
export function ClaudeText({ text, isStreaming, isSubagent }: ClaudeTextProps) {
  const className = isSubagent ? 't-msg t-msg--claude t-msg--subagent' : 't-msg t-msg--claude';
  return (
    <article
      className={className}
      aria-label="Claude"
      data-streaming={isStreaming ? 'true' : undefined}
      aria-busy={isStreaming ? true : undefined}
    >
      {isSubagent ? <p className="t-msg__meta">Subagent</p> : null}
      <MarkdownText text={text} />
    </article>
  );
}
