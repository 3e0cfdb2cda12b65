import { SESSION_KEY_HEADER } from '@catalyst/protocol';
import { describe, expect, it } from 'vitest';
import {
  answerRequestOf,
  handleNotificationClick,
  ideaIdOfPath,
  type AppWindow,
  type ClickPorts,
} from './notification-click.ts';

// A click on the notification opens the idea's page (an open window of the app first); a click on an action posts
// the answer with the device's session, exactly as the page would, and falls back to the page if that fails.

const origin = 'https://catalyst.example:7433';
const ideaId = 'idea-0123456789abcdef';
const url = `/ideas/${ideaId}`;

interface Recorded {
  posts: { path: string; init: RequestInit }[];
  opened: string[];
  focused: string[];
  navigated: string[];
}

function fakeWindow(
  windowUrl: string,
  recorded: Recorded,
  options: { focused?: boolean; canNavigate?: boolean } = {},
): AppWindow {
  return {
    url: windowUrl,
    focused: options.focused ?? false,
    focus: () => {
      recorded.focused.push(windowUrl);
      return Promise.resolve();
    },
    navigate: (to) => {
      if (options.canNavigate === false) return Promise.reject(new TypeError('not controlled'));
      recorded.navigated.push(`${windowUrl} -> ${to}`);
      return Promise.resolve();
    },
  };
}

function fakePorts(
  options: {
    status?: number | 'network-error';
    key?: string;
    windows?: (recorded: Recorded) => AppWindow[];
  } = {},
): { ports: ClickPorts; recorded: Recorded } {
  const recorded: Recorded = { posts: [], opened: [], focused: [], navigated: [] };
  const ports: ClickPorts = {
    origin,
    fetch: (path, init) => {
      recorded.posts.push({ path, init });
      if (options.status === 'network-error') return Promise.reject(new TypeError('Failed to fetch'));
      const status = options.status ?? 204;
      return Promise.resolve({ ok: status >= 200 && status < 300 });
    },
    readSessionKey: () => Promise.resolve(options.key),
    windows: () => Promise.resolve(options.windows?.(recorded) ?? []),
    openWindow: (to) => {
      recorded.opened.push(to);
      return Promise.resolve();
    },
  };
  return { ports, recorded };
}

describe('answerRequestOf', () => {
  it('turns a question`s option and a permission decision into the routes the page would call', () => {
    expect(answerRequestOf('choose:toolu_01:1', url)).toEqual({
      path: `/api/ideas/${ideaId}/questions/toolu_01/choose`,
      body: { option: 1 },
    });
    expect(answerRequestOf('permission:req-7:deny', `${url}#waiting`)).toEqual({
      path: `/api/ideas/${ideaId}/permissions/req-7`,
      body: { decision: 'deny' },
    });
  });

  it('is none for an unknown action or a page that is not an idea`s', () => {
    expect(answerRequestOf('choose:toolu_01:2', url)).toBeUndefined();
    expect(answerRequestOf('delete:everything', url)).toBeUndefined();
    expect(answerRequestOf('choose:toolu_01:0', '/hosts')).toBeUndefined();
    // An id no path may hold: no request (the page opens instead), never a throw.
    expect(answerRequestOf('choose:..:0', url)).toBeUndefined();
    expect(ideaIdOfPath('/ideas/../hosts')).toBeUndefined();
    expect(ideaIdOfPath(`/ideas/${ideaId}?x=1`)).toBe(ideaId);
  });
});

describe('handleNotificationClick', () => {
  it('posts an action`s answer with the cookie and the session key, and opens nothing when it is taken', async () => {
    const { ports, recorded } = fakePorts({ key: 'the-key' });
    const outcome = await handleNotificationClick({ action: 'choose:toolu_01:0', data: { url } }, ports);
    expect(outcome).toBe('answered');
    expect(recorded.posts).toEqual([
      {
        path: `/api/ideas/${ideaId}/questions/toolu_01/choose`,
        init: {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'content-type': 'application/json', [SESSION_KEY_HEADER]: 'the-key' },
          body: JSON.stringify({ option: 0 }),
        },
      },
    ]);
    expect(recorded.opened).toEqual([]);
  });

  it('opens the idea where the person can answer when the API refuses or cannot be reached', async () => {
    for (const status of [401, 404, 'network-error'] as const) {
      const { ports, recorded } = fakePorts({ status });
      const outcome = await handleNotificationClick(
        { action: 'permission:req-7:allow', data: { url } },
        ports,
      );
      expect(outcome, String(status)).toBe('opened');
      expect(recorded.posts.map((post) => post.init.body)).toEqual([JSON.stringify({ decision: 'allow' })]);
      expect(recorded.opened).toEqual([`${origin}${url}`]);
    }
  });

  it('focuses an open window of the app and takes it to the idea, preferring one already there', async () => {
    const { ports, recorded } = fakePorts({
      windows: (seen) => [
        fakeWindow(`${origin}/`, seen, { focused: true }),
        fakeWindow(`${origin}${url}`, seen),
      ],
    });
    expect(await handleNotificationClick({ action: '', data: { url } }, ports)).toBe('opened');
    expect(recorded).toEqual({ posts: [], opened: [], focused: [`${origin}${url}`], navigated: [] });

    const other = fakePorts({
      windows: (seen) => [
        fakeWindow('https://elsewhere.example/', seen),
        fakeWindow(`${origin}/hosts`, seen),
      ],
    });
    await handleNotificationClick({ action: '', data: { url } }, other.ports);
    expect(other.recorded.focused).toEqual([`${origin}/hosts`]);
    expect(other.recorded.navigated).toEqual([`${origin}/hosts -> ${origin}${url}`]);
    expect(other.recorded.opened).toEqual([]);
  });

  it('opens a new window when none is open, or the open one cannot be navigated from the worker', async () => {
    const none = fakePorts();
    await handleNotificationClick({ action: '', data: { url } }, none.ports);
    expect(none.recorded.opened).toEqual([`${origin}${url}`]);

    const stuck = fakePorts({ windows: (seen) => [fakeWindow(`${origin}/`, seen, { canNavigate: false })] });
    await handleNotificationClick({ action: '', data: { url } }, stuck.ports);
    expect(stuck.recorded.opened).toEqual([`${origin}${url}`]);
  });

  it('opens the app`s root for a notification whose data is not a page of this origin', async () => {
    const { ports, recorded } = fakePorts();
    await handleNotificationClick(
      { action: 'choose:toolu_01:0', data: { url: 'https://evil.example/' } },
      ports,
    );
    expect(recorded.posts).toEqual([]);
    expect(recorded.opened).toEqual([`${origin}/`]);
  });
});
