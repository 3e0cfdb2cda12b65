import { memo, useMemo, useState, type ReactNode } from 'react';
import { highlightLines, languageOf, type Token } from './highlight-lines.ts';

/** Past this many lines, the rest waits for "Show all": tens of thousands of rows are slow to lay out. */
export const MAX_SHOWN_LINES = 2000;

/** A file's text, line by line with numbers, highlighted by its extension. */
export const CodeLines = memo(function CodeLines({ path, text }: { path: string; text: string }) {
  const lines = useMemo(() => highlightLines(text, languageOf(path)), [path, text]);
  const [isAllShown, setIsAllShown] = useState(false);
  if (text === '') return <p className="files-note muted">The file is empty.</p>;
  const shown = isAllShown ? lines : lines.slice(0, MAX_SHOWN_LINES);
  return (
    <div className="files-code">
      <table className="files-code__table" aria-label={`Contents of ${path}`}>
        <tbody>
          {shown.map((line, index) => (
            <tr key={index}>
              <td className="files-code__number">{index + 1}</td>
              <td className="files-code__line">
                {line.map((token, at) => (
                  <TokenView key={at} token={token} />
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown.length < lines.length ? (
        <button
          type="button"
          className="files-code__more"
          onClick={() => {
            setIsAllShown(true);
          }}
        >
          Show all {lines.length} lines
        </button>
      ) : null}
    </div>
  );
});

/** A token inside each span it was in, so rules like `.hljs-meta .hljs-string` still apply. */
function TokenView({ token }: { token: Token }) {
  return token.classNames.reduceRight<ReactNode>(
    (inner, className) => <span className={className}>{inner}</span>,
    token.text,
  );
}
