import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { PreviewFrames } from './preview-frames.ts';

// Each of Catalyst's pages (by origin) gets its own verdict on the pages loaded in its frame: the app's headers are
// read against that origin, as the browser showing that page reads them.

function frameLoad(path: string): IncomingMessage {
  return {
    url: path,
    headers: { 'sec-fetch-dest': 'iframe', 'sec-fetch-mode': 'navigate' },
  } as unknown as IncomingMessage;
}

function answer(headers: Record<string, string[]>, statusCode = 200): IncomingMessage {
  return { statusCode, headersDistinct: headers } as unknown as IncomingMessage;
}

describe('PreviewFrames', () => {
  it('reads the headers against each page`s own origin', () => {
    const frames = new PreviewFrames();
    frames.embedIn('http://localhost:8787');
    frames.embedIn('http://127.0.0.1:8787');
    frames.note(
      frameLoad('/app'),
      answer({ 'content-security-policy': ['frame-ancestors http://localhost:8787'] }),
    );
    expect(frames.latestFor('http://localhost:8787')).toEqual({ path: '/app', loads: 1 });
    expect(frames.latestFor('http://127.0.0.1:8787')).toEqual({
      path: '/app',
      loads: 1,
      refusal: 'frame-ancestors',
    });
  });

  it('ignores loads that are not a frame`s page, and redirects', () => {
    const frames = new PreviewFrames();
    frames.embedIn('http://localhost:8787');
    const fetchRequest = {
      url: '/api',
      headers: { 'sec-fetch-dest': 'empty' },
    } as unknown as IncomingMessage;
    frames.note(fetchRequest, answer({}));
    frames.note(frameLoad('/moved'), answer({}, 302));
    expect(frames.latestFor('http://localhost:8787')).toBeUndefined();
    frames.note(frameLoad('/'), answer({ 'x-frame-options': ['DENY'] }));
    frames.note(frameLoad('/'), answer({}, 304));
    expect(frames.latestFor(undefined)).toMatchObject({ path: '/', loads: 2, refusal: 'x-frame-options' });
  });

  it('follows the newest few of Catalyst`s pages, not every origin ever seen', () => {
    const frames = new PreviewFrames();
    for (let port = 1; port <= 6; port++) frames.embedIn(`http://localhost:${String(port)}`);
    frames.note(frameLoad('/'), answer({}));
    expect(frames.latestFor('http://localhost:6')).toBeDefined();
    expect(frames.latestFor('http://localhost:1')).toBeUndefined();
  });
});
