import { memo } from 'react';
import Markdown, { type Components } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';

// react-markdown skips raw HTML by default and its urlTransform drops `javascript:` and other unsafe URLs; both
// stay as they are, since the text comes from the model. Code blocks with a language get highlight.js classes.
const rehypePlugins = [rehypeHighlight];

const components: Components = {
  a: ({ node: _node, children, ...props }) => (
    <a {...props} target="_blank" rel="noreferrer noopener">
      {children}
    </a>
  ),
};

/** Claude's Markdown, highlighted. Memoised on the text: a streaming draft re-renders only when it grew. */
export const MarkdownText = memo(function MarkdownText({ text }: { text: string }) {
  return (
    <div className="t-markdown">
      <Markdown rehypePlugins={rehypePlugins} components={components}>
        {text}
      </Markdown>
    </div>
  );
});
