import {
  ASK_USER_QUESTION_TOOL_NAME,
  type RelayEvent,
  type ServerFrame,
  type TextDeltaFrame,
} from '@catalyst/protocol';
import { formatActivity, formatNotice } from './event-lines.ts';
import { formatOutcomeLine, type RunSummary } from './outcome-line.ts';
import type { Paint } from './paint.ts';

/** Where a piece of text goes: Claude's words and tools to stdout, notices and the outcome to stderr. */
export interface Output {
  stream: 'out' | 'err';
  text: string;
}

type EventOf<T extends RelayEvent['type']> = Extract<RelayEvent, { type: T }>;

/**
 * One run's frames as terminal text, in order. Pure: frames in, text out. Claude's text is printed as its live
 * deltas come; the block's complete `claude:text` then adds only what the deltas missed, or the whole text when
 * no deltas were shown or they were abandoned (`claude:text_reset`: a retried request), since a terminal cannot
 * take back what it printed.
 */
export class EventRenderer {
  readonly #paint: Paint;
  /** The text block whose deltas are on screen, not yet confirmed by its `claude:text`. */
  #open: { messageId: string; index: number; text: string } | undefined;
  /** Whether stdout's last character was a newline (or nothing was printed yet). */
  #isAtLineStart = true;
  #startedAt: number | undefined;
  /** The AskUserQuestion calls seen, so that their results are left out too. */
  readonly #questionCalls = new Set<string>();

  constructor(paint: Paint) {
    this.#paint = paint;
  }

  render(frame: ServerFrame): Output[] {
    if (frame.type === 'claude:text_delta') return this.#renderDelta(frame);
    if (frame.type === 'claude:text_reset') {
      this.#open = undefined;
      return this.#endLine();
    }
    if (frame.type === 'subscribed' || frame.type === 'error') return [];
    return this.#renderEvent(frame);
  }

  #renderEvent(event: RelayEvent): Output[] {
    switch (event.type) {
      case 'run:started':
        this.#startedAt = Date.parse(event.ts);
        return [];
      case 'run:ended':
        return this.#lines('err', [formatOutcomeLine(this.#summaryOf(event), this.#paint)]);
      case 'claude:text':
        return this.#renderText(event);
      case 'claude:tool_use':
      case 'claude:tool_result':
        return this.#renderTool(event);
      case 'claude:thinking':
      case 'claude:question':
      case 'claude:question_answered':
      case 'claude:question_closed':
      case 'claude:permission_request':
      case 'claude:permission_closed':
        return this.#lines('out', formatActivity(event, this.#paint));
      case 'claude:error':
      case 'claude:event':
      case 'run:detached':
      case 'run:attached':
      case 'run:session_replaced':
      case 'checkpoint:created':
      case 'checkpoint:restored':
      case 'checkpoint:unavailable':
        return this.#lines('err', [formatNotice(event, this.#paint)]);
      case 'claude:system':
      case 'claude:result':
      case 'idea:status':
      case 'autopilot:started':
      case 'autopilot:step_started':
      case 'autopilot:step_ended':
      case 'autopilot:ended':
      case 'autopilot:queue_changed':
      case 'autopilot:budget_changed':
      case 'autopilot:paused':
      case 'autopilot:resumed':
      case 'aside:asked':
      case 'aside:answered':
      case 'aside:failed':
      case 'review:changed':
        // The result is in the outcome line; an autopilot's progress, asides and reviews are their own commands'.
        return [];
    }
  }

  /** AskUserQuestion calls are left out: the question block shows them, and then who answered. */
  #renderTool(event: EventOf<'claude:tool_use' | 'claude:tool_result'>): Output[] {
    if (event.type === 'claude:tool_use' && event.name === ASK_USER_QUESTION_TOOL_NAME) {
      this.#questionCalls.add(event.toolUseId);
    }
    if (this.#questionCalls.has(event.toolUseId)) return [];
    return this.#lines('out', formatActivity(event, this.#paint));
  }

  #renderDelta(frame: TextDeltaFrame): Output[] {
    const before: Output[] = [];
    if (this.#open?.messageId !== frame.messageId || this.#open.index !== frame.index) {
      before.push(...this.#endLine());
      this.#open = { messageId: frame.messageId, index: frame.index, text: '' };
    }
    this.#open.text += frame.text;
    return [...before, this.#out(frame.text)];
  }

  #renderText(event: EventOf<'claude:text'>): Output[] {
    const shown = this.#open?.messageId === event.messageId ? this.#open.text : undefined;
    this.#open = undefined;
    if (shown === undefined || !event.text.startsWith(shown)) return this.#lines('out', [event.text]);
    const rest = event.text.slice(shown.length);
    return [this.#out(rest.endsWith('\n') || (rest === '' && this.#isAtLineStart) ? rest : `${rest}\n`)];
  }

  #summaryOf(event: EventOf<'run:ended'>): RunSummary {
    const elapsedMs = this.#startedAt === undefined ? undefined : Date.parse(event.ts) - this.#startedAt;
    return {
      state: event.outcome,
      ...(event.result === undefined ? {} : { result: event.result }),
      ...(event.error === undefined ? {} : { error: event.error }),
      ...(elapsedMs === undefined ? {} : { elapsedMs }),
    };
  }

  #out(text: string): Output {
    if (text !== '') this.#isAtLineStart = text.endsWith('\n');
    return { stream: 'out', text };
  }

  #endLine(): Output[] {
    return this.#isAtLineStart ? [] : [this.#out('\n')];
  }

  /** Whole lines, starting on a fresh stdout line; nothing for a line that is undefined (nothing to show). */
  #lines(stream: Output['stream'], texts: (string | undefined)[]): Output[] {
    const shown = texts.filter((text): text is string => text !== undefined);
    if (shown.length === 0) return [];
    const text = `${shown.join('\n')}\n`;
    return [...this.#endLine(), stream === 'out' ? this.#out(text) : { stream, text }];
  }
}
