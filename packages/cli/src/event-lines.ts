import type { AskUserQuestionItem, RelayEvent } from '@catalyst/protocol';
import type { Paint } from './paint.ts';

/** One event as the lines a terminal shows for it (each without its newline). Pure. */

type EventOf<T extends RelayEvent['type']> = Extract<RelayEvent, { type: T }>;

const LINE_CHARS = 160;

/** What Claude does and asks, in the transcript on stdout. */
export type ActivityEvent = EventOf<
  | 'claude:thinking'
  | 'claude:tool_use'
  | 'claude:tool_result'
  | 'claude:question'
  | 'claude:question_answered'
  | 'claude:question_closed'
  | 'claude:permission_request'
  | 'claude:permission_closed'
>;

export function formatActivity(event: ActivityEvent, paint: Paint): string[] {
  switch (event.type) {
    case 'claude:thinking':
      return [paint.dim(`✻ ${oneLine(event.thinking)}`)];
    case 'claude:tool_use':
      return [formatToolUse(event, paint)];
    case 'claude:tool_result':
      return [formatToolResult(event, paint)];
    case 'claude:question':
      return event.questions.flatMap((item) => formatQuestion(item, paint));
    case 'claude:question_answered':
      return [formatQuestionAnswered(event, paint)];
    case 'claude:question_closed': {
      const line = formatQuestionClosed(event, paint);
      return line === undefined ? [] : [line];
    }
    case 'claude:permission_request':
      return [formatPermissionRequest(event, paint)];
    case 'claude:permission_closed':
      return [formatPermissionClosed(event, paint)];
  }
}

/** `→ Bash echo hi`: the tool and the one input field that says what it does. */
export function formatToolUse(event: EventOf<'claude:tool_use'>, paint: Paint): string {
  const summary = summarizeToolInput(event.name, event.input);
  return `${paint.cyan('→')} ${paint.bold(event.name)}${summary === '' ? '' : ` ${summary}`}`;
}

const SUMMARY_FIELDS = ['command', 'file_path', 'path', 'pattern', 'url', 'query', 'description', 'prompt'];

export function summarizeToolInput(name: string, input: Record<string, unknown>): string {
  if (name === 'AskUserQuestion') return '';
  for (const field of SUMMARY_FIELDS) {
    const value = input[field];
    if (typeof value === 'string' && value.trim() !== '') return oneLine(value);
  }
  const json = JSON.stringify(input);
  return json === '{}' ? '' : oneLine(json);
}

/** `  ✓ first line (+4 lines)`, or the error's first line. */
export function formatToolResult(event: EventOf<'claude:tool_result'>, paint: Paint): string {
  const lines = event.content.split('\n').filter((line) => line.trim() !== '');
  const first = lines[0] === undefined ? '(no output)' : oneLine(lines[0]);
  const more = lines.length > 1 ? paint.dim(` (+${String(lines.length - 1)} lines)`) : '';
  return event.isError
    ? `  ${paint.red('✗')} ${paint.red(first)}${more}`
    : `  ${paint.dim('✓')} ${paint.dim(first)}${more}`;
}

/** A question, its options numbered as the terminal prompt takes them. */
export function formatQuestion(item: AskUserQuestionItem, paint: Paint): string[] {
  const lines = [`${paint.yellow('?')} ${paint.bold(item.header)}: ${item.question}`];
  item.options.forEach((option, index) => {
    const description = option.description === '' ? '' : paint.dim(` – ${option.description}`);
    lines.push(`    ${String(index + 1)}) ${option.label}${description}`);
  });
  lines.push(
    paint.dim(
      item.multiSelect ? '    (one or more, like 1,3; or your own answer)' : '    (or your own answer)',
    ),
  );
  return lines;
}

export function formatQuestionAnswered(event: EventOf<'claude:question_answered'>, paint: Paint): string {
  const who = event.source === 'auto' ? `automatically (${event.by})` : `by ${event.by}`;
  const answers = Object.values(event.answers).join('; ');
  return `  ${paint.dim('↳')} answered ${who}: ${oneLine(answers)}`;
}

export function formatQuestionClosed(
  event: EventOf<'claude:question_closed'>,
  paint: Paint,
): string | undefined {
  const words = {
    answered: undefined,
    dismissed: 'dismissed',
    timed_out: 'not answered in time',
    cancelled: 'withdrawn',
  };
  const word = words[event.reason];
  return word === undefined ? undefined : `  ${paint.dim('↳')} question ${word}`;
}

export function formatPermissionRequest(event: EventOf<'claude:permission_request'>, paint: Paint): string {
  const summary = summarizeToolInput(event.toolName, event.input);
  return `${paint.yellow('?')} Claude asks to use ${paint.bold(event.toolName)}${summary === '' ? '' : `: ${summary}`}`;
}

export function formatPermissionClosed(event: EventOf<'claude:permission_closed'>, paint: Paint): string {
  return `  ${paint.dim('↳')} ${event.reason.replace('_', ' ')}`;
}

/** Notices about the run (not Claude's words): they go to stderr. */
export type NoticeEvent = EventOf<
  | 'claude:error'
  | 'claude:event'
  | 'run:detached'
  | 'run:attached'
  | 'run:session_replaced'
  | 'checkpoint:created'
  | 'checkpoint:restored'
  | 'checkpoint:unavailable'
>;

export function formatNotice(event: NoticeEvent, paint: Paint): string | undefined {
  switch (event.type) {
    case 'claude:error':
      return paint.red(`claude (${event.source}): ${oneLine(event.text)}`);
    case 'run:detached':
      return paint.yellow(
        `Connection to ${event.host} lost (${event.reason}): Claude keeps working; reconnecting…`,
      );
    case 'run:attached':
      return paint.dim(`Reconnected to ${event.host}.`);
    case 'run:session_replaced':
      return paint.dim(`Claude's earlier session for this idea was gone; a new one started with a recap.`);
    case 'checkpoint:created':
    case 'checkpoint:restored': {
      // The checkpoints before a first build or a restore are bookkeeping, not news.
      if (event.type === 'checkpoint:created' && event.kind !== 'build') return undefined;
      const what = event.type === 'checkpoint:restored' ? 'Restored; checkpoint' : 'Checkpoint';
      const files = `${String(event.filesChanged)} file${event.filesChanged === 1 ? '' : 's'} changed`;
      return paint.dim(
        `${what} ${event.commit.slice(0, 12)}: ${files}, +${String(event.insertions)} −${String(event.deletions)}`,
      );
    }
    case 'checkpoint:unavailable':
      return paint.yellow(event.reason);
    case 'claude:event':
      // The rest of what the CLI printed (task_*, control traffic) is detail for the web app, not the terminal.
      return event.message.type === 'system' && event.message.subtype === 'api_retry'
        ? paint.yellow('The model request failed; retrying…')
        : undefined;
  }
}

export function oneLine(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, ' ⏎ ').trim();
  return flat.length > LINE_CHARS ? `${flat.slice(0, LINE_CHARS - 1)}…` : flat;
}
