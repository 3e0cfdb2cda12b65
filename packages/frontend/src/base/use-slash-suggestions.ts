import { useId, useState, type KeyboardEvent } from 'react';

/** At most this many suggestions show at once: the list is a hint, not a menu to scroll. */
const MAX_SUGGESTIONS = 8;

/**
 * The session's slash commands that complete what is typed: only while the text is a single word starting with
 * `/` (the CLI lists them with or without the slash, depending on the version).
 */
export function suggestCommands(text: string, slashCommands: readonly string[]): string[] {
  if (!text.startsWith('/') || /\s/.test(text)) return [];
  return slashCommands
    .map((command) => (command.startsWith('/') ? command : `/${command}`))
    .filter((command) => command.startsWith(text) && command !== text)
    .slice(0, MAX_SUGGESTIONS);
}

export interface SlashSuggestions {
  readonly listId: string;
  readonly suggestions: readonly string[];
  readonly selected: number;
  /** For the textarea: a combobox that controls the list while it shows. */
  readonly comboboxProps: {
    role: 'combobox';
    'aria-autocomplete': 'list';
    'aria-expanded': boolean;
    'aria-controls': string | undefined;
    'aria-activedescendant': string | undefined;
  };
  /** Arrows move, Tab or Enter completes, while suggestions show; true when the key was used here. */
  handleKey: (event: KeyboardEvent<HTMLTextAreaElement>) => boolean;
  complete: (command: string) => void;
  /** The text was typed: start again at the first suggestion. */
  restart: () => void;
}

/** Slash-command completion for a textarea; `onComplete` gets the new text (the command and a space). */
export function useSlashSuggestions(
  text: string,
  slashCommands: readonly string[],
  onComplete: (text: string) => void,
): SlashSuggestions {
  const [selected, setSelected] = useState(0);
  const listId = useId();
  const suggestions = suggestCommands(text, slashCommands);
  const current = Math.min(selected, suggestions.length - 1);
  const isOpen = suggestions.length > 0;

  const complete = (command: string) => {
    setSelected(0);
    onComplete(`${command} `);
  };

  const handleKey = (event: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!isOpen) return false;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setSelected((index) => (index + step + suggestions.length) % suggestions.length);
      return true;
    }
    if (event.key === 'Tab' || (event.key === 'Enter' && !event.shiftKey)) {
      event.preventDefault();
      const picked = suggestions[current];
      if (picked !== undefined) complete(picked);
      return true;
    }
    return false;
  };

  return {
    listId,
    suggestions,
    selected: current,
    comboboxProps: {
      role: 'combobox',
      'aria-autocomplete': 'list',
      'aria-expanded': isOpen,
      'aria-controls': isOpen ? listId : undefined,
      'aria-activedescendant': isOpen ? `${listId}-${current}` : undefined,
    },
    handleKey,
    complete,
    restart: () => {
      setSelected(0);
    },
  };
}
