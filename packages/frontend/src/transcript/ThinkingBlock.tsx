/** The model's reasoning: collapsed, since it is long and rarely read. */
export function ThinkingBlock({ thinking }: { thinking: string }) {
  return (
    <details className="t-thinking">
      <summary>Thinking</summary>
      <p className="t-thinking__text">{thinking}</p>
    </details>
  );
}
