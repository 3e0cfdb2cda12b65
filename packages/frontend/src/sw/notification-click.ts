import {
  API,
  IdeaIdSchema,
  SESSION_KEY_HEADER,
  apiPath,
  parsePushAction,
  type PushAction,
} from '@catalyst/protocol';
import { NotificationDataSchema } from './push-notification.ts';

/**
 * What a click on a notification does (issue 29). On the notification itself: the idea's page, in a Catalyst
 * window already open (focused, and taken there) or a new one. On one of its actions (an option of a question, or
 * Allow/Deny): the answer, posted to the API exactly as the page would post it, with this device's session (the
 * cookie, and the page's key, kept for the worker in worker-session-key.ts); if that fails in any way, the page at
 * the idea, where the person can answer.
 */

export interface AnswerRequest {
  readonly path: string;
  readonly body: { option: number } | { decision: 'allow' | 'deny' };
}

/** `/ideas/<id>` (and anything after it: a fragment, a sub-path) → the id; undefined for any other path. */
export function ideaIdOfPath(url: string): string | undefined {
  const match = /^\/ideas\/([^/?#]+)/.exec(url);
  const parsed = IdeaIdSchema.safeParse(match?.[1]);
  return parsed.success ? parsed.data : undefined;
}

/** The API call an action stands for, on the idea of the notification's page; undefined if it is none. */
export function answerRequestOf(action: string, url: string): AnswerRequest | undefined {
  const parsed = parsePushAction(action);
  const id = ideaIdOfPath(url);
  if (parsed === undefined || id === undefined) return undefined;
  try {
    return requestOf(parsed, id);
  } catch {
    // An id no path may hold (`..`): no answer, the page instead.
    return undefined;
  }
}

function requestOf(parsed: PushAction, id: string): AnswerRequest {
  if (parsed.kind === 'choose') {
    return {
      path: apiPath(API.chooseOption, { params: { id, questionId: parsed.questionId } }),
      body: { option: parsed.option },
    };
  }
  return {
    path: apiPath(API.decidePermission, { params: { id, requestId: parsed.requestId } }),
    body: { decision: parsed.decision },
  };
}

/** A window of the app, as `Clients.matchAll` lists it (a `WindowClient`). */
export interface AppWindow {
  readonly url: string;
  readonly focused: boolean;
  focus(): Promise<unknown>;
  navigate(url: string): Promise<unknown>;
}

/** What the handler needs of the worker's scope; the tests give their own. */
export interface ClickPorts {
  readonly origin: string;
  fetch(path: string, init: RequestInit): Promise<{ readonly ok: boolean }>;
  readSessionKey(): Promise<string | undefined>;
  windows(): Promise<readonly AppWindow[]>;
  openWindow(url: string): Promise<unknown>;
}

export interface NotificationClick {
  /** `event.action`: '' for a click on the notification itself. */
  readonly action: string;
  /** `event.notification.data`, as the push handler stored it; checked again here. */
  readonly data: unknown;
}

export type ClickOutcome = 'answered' | 'opened';

export async function handleNotificationClick(
  click: NotificationClick,
  ports: ClickPorts,
): Promise<ClickOutcome> {
  const data = NotificationDataSchema.safeParse(click.data);
  const url = data.success ? data.data.url : '/';
  const answer = click.action === '' ? undefined : answerRequestOf(click.action, url);
  if (answer !== undefined && (await postAnswer(answer, ports))) return 'answered';
  await openPage(new URL(url, ports.origin).href, ports);
  return 'opened';
}

/** True when the API took the answer; false for any refusal (a question already answered, a lapsed login) or no answer. */
async function postAnswer(answer: AnswerRequest, ports: ClickPorts): Promise<boolean> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const key = await ports.readSessionKey().catch(() => undefined);
  if (key !== undefined) headers[SESSION_KEY_HEADER] = key;
  try {
    const response = await ports.fetch(answer.path, {
      method: 'POST',
      credentials: 'same-origin',
      headers,
      body: JSON.stringify(answer.body),
    });
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * The window already at that page, else the focused one, else any; taken to the page. A window the worker does
 * not control cannot be navigated from here (it loaded before the worker): a new window then.
 */
async function openPage(href: string, ports: ClickPorts): Promise<void> {
  const windows = (await ports.windows()).filter((window) => new URL(window.url).origin === ports.origin);
  const chosen = pickWindow(windows, href);
  if (chosen !== undefined) {
    try {
      await chosen.focus();
      if (chosen.url !== href) await chosen.navigate(href);
      return;
    } catch {
      // Not focusable or not navigable from here: a new window below.
    }
  }
  await ports.openWindow(href);
}

export function pickWindow(windows: readonly AppWindow[], href: string): AppWindow | undefined {
  return (
    windows.find((window) => window.url === href) ?? windows.find((window) => window.focused) ?? windows[0]
  );
}
