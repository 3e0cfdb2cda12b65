import { createInterface } from 'node:readline/promises';
import type { AskUserQuestionItem } from '@catalyst/protocol';
import { parseTypedAnswer, parseYesNo } from './question-answers.ts';
import type { Terminal } from './terminal.ts';

/**
 * Asks at the terminal. One readline at a time, opened for the prompt and closed after it, so stdin holds the
 * process open only while a person is being asked. `signal` withdraws a prompt (answered in the web app, or
 * closed); readline in raw mode takes Ctrl-C itself, so it is passed on to `onInterrupt`.
 */
export interface PromptOptions {
  terminal: Terminal;
  onInterrupt: () => void;
  signal: AbortSignal;
}

/** The answers by question text, or undefined when the prompt was withdrawn. */
export async function promptQuestions(
  items: readonly AskUserQuestionItem[],
  options: PromptOptions,
): Promise<Record<string, string | string[]> | undefined> {
  const answers: Record<string, string | string[]> = {};
  for (const item of items) {
    const answer = await promptUntilValid(options, `Answer “${item.header}”: `, (input) => {
      const parsed = parseTypedAnswer(input, item);
      return parsed.ok ? { value: parsed.answer } : { problem: parsed.problem };
    });
    if (answer === undefined) return undefined;
    answers[item.question] = answer;
  }
  return answers;
}

export function promptYesNo(question: string, options: PromptOptions): Promise<boolean | undefined> {
  return promptUntilValid(options, `${question} [y/n] `, (input) => {
    const value = parseYesNo(input);
    return value === undefined ? { problem: 'Type y or n.' } : { value };
  });
}

export type Check<T> = (input: string) => { value: T } | { problem: string };

/** Asks until `check` takes the line typed; undefined when the prompt was withdrawn. */
export async function promptUntilValid<T>(
  options: PromptOptions,
  prompt: string,
  check: Check<T>,
): Promise<T | undefined> {
  const { terminal, onInterrupt, signal } = options;
  // The prompt itself on stderr, as a shell's prompts are: stdout may be for `--json`'s document.
  const readline = createInterface({ input: process.stdin, output: process.stderr });
  readline.on('SIGINT', onInterrupt);
  try {
    for (;;) {
      const input = await readline.question(terminal.paint.bold(prompt), { signal });
      const checked = check(input);
      if ('value' in checked) return checked.value;
      terminal.out(`${terminal.paint.yellow(checked.problem)}\n`);
    }
  } catch (error) {
    if (signal.aborted) {
      terminal.out('\n');
      return undefined;
    }
    throw error;
  } finally {
    readline.close();
  }
}
