import { useMemo, type ReactNode } from 'react';
import type { RelayEvent } from '@catalyst/protocol';
import { useProjectLinks } from '../files/project-context.ts';
import { DiffView } from './DiffView.tsx';
import { isRefusalNote, stoppedWords, useRunOutcome } from './stopped-words.ts';
import {
  displayKeyInput,
  projectRelativePath,
  readEditedPath,
  readFileChange,
  readKeyInput,
} from './tool-input.ts';

type ToolUse = Extract<RelayEvent, { type: 'claude:tool_use' }>;
type ToolResult = Extract<RelayEvent, { type: 'claude:tool_result' }>;

/** Results longer than this collapse into a "Result" disclosure (ui-contract.md). */
export const LONG_RESULT_LINES = 20;
export const LONG_RESULT_CHARS = 2000;

interface ToolCardProps {
  use: ToolUse | undefined;
  result: ToolResult | undefined;
  isRunEnded: boolean;
  /**
   * The question or permission card this call waited for, shown between its input and its result. The key input
   * is then shown whole: a person deciding must see the exact path.
   */
  prompt?: ReactNode;
  /** The prompt shows the input itself (a question card lists the questions): no Input disclosure then. */
  inputShownByPrompt?: boolean;
}

/** A tool call with its result: the key input on top, a diff for file changes, then the result. */
export function ToolCard({ use, result, isRunEnded, prompt, inputShownByPrompt = false }: ToolCardProps) {
  const name = use?.name ?? 'unknown';
  const change = useMemo(() => (use === undefined ? undefined : readFileChange(use.name, use.input)), [use]);
  const key = use === undefined ? undefined : readKeyInput(use.input);
  const hasOtherInput = use !== undefined && Object.keys(use.input).some((field) => field !== key?.field);
  const className = result?.isError === true ? 't-tool t-tool--error' : 't-tool';
  return (
    <article className={className} aria-label={`Tool: ${name}`}>
      <p className="t-tool__head">
        <span className="t-tool__name">{name}</span>
        {key === undefined ? null : (
          <code className="t-tool__key" title={key.value}>
            {prompt === undefined || prompt === null ? displayKeyInput(key) : key.value}
          </code>
        )}
        {use === undefined ? null : <ViewFileButton use={use} />}
      </p>
      {change !== undefined ? (
        <DiffView change={change} />
      ) : hasOtherInput && !inputShownByPrompt ? (
        <ToolInput input={use.input} />
      ) : null}
      {prompt}
      <ToolOutput result={result} isRunEnded={isRunEnded} />
    </article>
  );
}

/** A file the call wrote inside the project, opened in the Files view (issue 13). */
function ViewFileButton({ use }: { use: ToolUse }) {
  const { root, openFile } = useProjectLinks();
  const filePath = readEditedPath(use.name, use.input);
  const path = filePath === undefined || root === undefined ? undefined : projectRelativePath(filePath, root);
  if (path === undefined || openFile === undefined) return null;
  return (
    <button
      type="button"
      className="link t-tool__open"
      title={`Open ${path} in the Files view`}
      onClick={() => {
        openFile(path);
      }}
    >
      View file
    </button>
  );
}

function ToolInput({ input }: { input: Record<string, unknown> }) {
  const json = useMemo(() => JSON.stringify(input, null, 2), [input]);
  return (
    <details className="t-tool__input">
      <summary>Input</summary>
      <pre className="t-pre">{json}</pre>
    </details>
  );
}

function ToolOutput({ result, isRunEnded }: { result: ToolResult | undefined; isRunEnded: boolean }) {
  const outcome = useRunOutcome(result?.runId);
  if (result === undefined) {
    return <p className="t-tool__status">{isRunEnded ? 'No result' : 'Running…'}</p>;
  }
  // The CLI's note to Claude when a call was refused or cut short is no error of the tool (issue 31).
  if (result.isError && isRefusalNote(result.content)) {
    return (
      <details className="t-tool__result t-tool__stopped">
        <summary>
          {outcome === undefined || outcome === 'completed' ? 'Not run: refused.' : stoppedWords(outcome)}
        </summary>
        <pre className="t-pre t-tool__output">{result.content}</pre>
      </details>
    );
  }
  const content = result.content === '' ? '(no output)' : result.content;
  const output = <pre className="t-pre t-tool__output">{content}</pre>;
  return (
    <>
      {result.isError ? <p className="t-tool__error">Error</p> : null}
      {isLong(content) ? (
        <details className="t-tool__result">
          <summary>Result</summary>
          {output}
        </details>
      ) : (
        output
      )}
    </>
  );
}

function isLong(text: string): boolean {
  if (text.length > LONG_RESULT_CHARS) return true;
  let lines = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) {
    if (++lines > LONG_RESULT_LINES) return true;
  }
  return false;
}
