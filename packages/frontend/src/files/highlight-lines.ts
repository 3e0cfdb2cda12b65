import { common, createLowlight } from 'lowlight';

/**
 * A file's text as highlighted lines for the Files view: highlight.js (through lowlight, the same grammars as the
 * transcript's code blocks) gives a tree of spans, whose spans may run over several lines (a block comment); it is
 * cut into lines here, each token keeping the classes of every span it is in, so each line renders on its own
 * beside its number with the same colours.
 */

const lowlight = createLowlight(common);

type HastRoot = ReturnType<typeof lowlight.highlight>;
type HastNode = HastRoot['children'][number];

export interface Token {
  readonly text: string;
  /** The class names of each span the text is in, outermost first ("hljs-title function_"). */
  readonly classNames: readonly string[];
}

export type HighlightedLine = readonly Token[];

/** Past this many characters a file is shown plain: highlighting it would hold the page up for seconds. */
export const MAX_HIGHLIGHT_CHARS = 300_000;

/** Files known by their whole name rather than their extension. */
const LANGUAGE_OF_NAME: Readonly<Record<string, string>> = { makefile: 'makefile', gnumakefile: 'makefile' };

/** The highlight.js language of a path, by its name or extension; undefined shows it plain. */
export function languageOf(path: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  const byName = LANGUAGE_OF_NAME[name];
  if (byName !== undefined) return byName;
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const extension = name.slice(dot + 1);
  return lowlight.registered(extension) ? extension : undefined;
}

/** The lines of `text` (a final newline ends the last line, it starts no new one), highlighted as `language`. */
export function highlightLines(text: string, language: string | undefined): HighlightedLine[] {
  const lines: Token[][] = [[]];
  if (language === undefined || text.length > MAX_HIGHLIGHT_CHARS) addText(lines, text, []);
  else addNodes(lines, lowlight.highlight(language, text).children, []);
  if (lines.length > 1 && lines[lines.length - 1]?.length === 0) lines.pop();
  return lines;
}

function addNodes(lines: Token[][], nodes: readonly HastNode[], classNames: readonly string[]): void {
  for (const node of nodes) {
    if (node.type === 'text') addText(lines, node.value, classNames);
    else if (node.type === 'element') {
      const className = node.properties['className'];
      const names = Array.isArray(className) ? className.map(String).join(' ') : '';
      addNodes(lines, node.children, names === '' ? classNames : [...classNames, names]);
    }
  }
}

function addText(lines: Token[][], text: string, classNames: readonly string[]): void {
  const parts = text.split('\n');
  parts.forEach((part, index) => {
    if (index > 0) lines.push([]);
    if (part !== '') lines[lines.length - 1]?.push({ text: part, classNames });
  });
}
