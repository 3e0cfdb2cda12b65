import type { SlashSuggestions } from './use-slash-suggestions.ts';

/** The slash commands offered for a textarea (use-slash-suggestions.ts); a click completes without a blur. */
export function SuggestionList({ slash }: { slash: SlashSuggestions }) {
  if (slash.suggestions.length === 0) return null;
  return (
    <ul className="suggestions" role="listbox" id={slash.listId} aria-label="Commands">
      {slash.suggestions.map((command, index) => (
        <li
          key={command}
          id={`${slash.listId}-${index}`}
          role="option"
          aria-selected={index === slash.selected}
          onMouseDown={(event) => {
            event.preventDefault();
            slash.complete(command);
          }}
        >
          {command}
        </li>
      ))}
    </ul>
  );
}
