import type { PreviewView } from '@catalyst/protocol';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { api } from '../base/api.ts';
import { IDEA_ID } from '../../test/support/transcript-fixtures.ts';
import { FRAME_SANDBOX, PreviewFrame } from './PreviewFrame.tsx';

// The app in the Preview tab's frame (issue 31): sandboxed, sent to a one-time frame link asked for when shown and
// at each Reload (at the path the frame last showed); the sentence instead when the app forbade the frame, until
// the person tries again; and why there is no frame when the preview shares Catalyst's name.

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const ORIGIN = 'http://p-0123456789abcdef0123.localhost:41234';
const frameLink = (n: number) => `${ORIGIN}/.catalyst-preview/enter?ticket=f${String(n)}`;
const RUNNING: PreviewView = {
  state: 'running',
  command: 'npm run dev',
  port: 5173,
  url: `${ORIGIN}/.catalyst-preview/enter?ticket=t`,
  origin: ORIGIN,
  frameUrl: frameLink(0),
};

let preview: MockInstance<typeof api.preview>;
beforeEach(() => {
  let count = 0;
  preview = vi.spyOn(api, 'preview').mockImplementation(() => {
    count += 1;
    return Promise.resolve({ ...RUNNING, frameUrl: frameLink(count) });
  });
});

const frame = () => screen.findByTitle<HTMLIFrameElement>('The app, as the preview serves it');

describe('the app in a frame', () => {
  it('is sandboxed and sent to a fresh frame link; Reload asks for another, at the path it shows', async () => {
    const onFrameLoad = vi.fn();
    const { rerender } = render(<PreviewFrame ideaId={IDEA_ID} view={RUNNING} onFrameLoad={onFrameLoad} />);
    const shown = await frame();
    expect(shown.getAttribute('src')).toBe(frameLink(1));
    expect(shown.getAttribute('sandbox')).toBe(FRAME_SANDBOX);
    expect(FRAME_SANDBOX).toBe('allow-scripts allow-same-origin allow-forms');
    expect(shown.getAttribute('referrerpolicy')).toBe('no-referrer');
    fireEvent.load(shown);
    expect(onFrameLoad).toHaveBeenCalledTimes(1);

    rerender(
      <PreviewFrame
        ideaId={IDEA_ID}
        view={{ ...RUNNING, frame: { path: '/a b?x=1', loads: 1 } }}
        onFrameLoad={onFrameLoad}
      />,
    );
    expect(screen.getByTestId('preview-frame-path').textContent).toBe('Showing /a b?x=1');
    fireEvent.click(screen.getByRole('button', { name: 'Reload' }));
    await vi.waitFor(async () => {
      expect((await frame()).getAttribute('src')).toBe(
        `${frameLink(2)}&to=${encodeURIComponent('/a b?x=1')}`,
      );
    });
  });

  it('says the app forbids the frame instead of showing it, until the person tries again', async () => {
    const refused: PreviewView = {
      ...RUNNING,
      frame: { path: '/', loads: 2, refusal: 'frame-ancestors' },
    };
    const { rerender } = render(
      <PreviewFrame ideaId={IDEA_ID} view={refused} onFrameLoad={() => undefined} />,
    );
    screen.getByText(
      'This app does not allow being shown in a frame (the frame-ancestors of its Content-Security-Policy header); open it in a tab.',
    );
    expect(screen.queryByTitle('The app, as the preview serves it')).toBeNull();
    expect(preview).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Try the frame again' }));
    await frame();
    // The same refusal, seen before the try: the frame stays; a newer one brings the sentence back.
    rerender(<PreviewFrame ideaId={IDEA_ID} view={refused} onFrameLoad={() => undefined} />);
    await frame();
    rerender(
      <PreviewFrame
        ideaId={IDEA_ID}
        view={{ ...refused, frame: { path: '/', loads: 3, refusal: 'x-frame-options' } }}
        onFrameLoad={() => undefined}
      />,
    );
    screen.getByText(
      'This app does not allow being shown in a frame (its X-Frame-Options header); open it in a tab.',
    );
  });

  it('is not offered when the preview shares Catalyst’s name', () => {
    const { frameUrl: _, ...shared } = { ...RUNNING, origin: 'http://devbox.local:41234' };
    render(<PreviewFrame ideaId={IDEA_ID} view={shared} onFrameLoad={() => undefined} />);
    screen.getByText(/shown here only when Catalyst is opened on this machine/);
    expect(screen.queryByTitle('The app, as the preview serves it')).toBeNull();
    expect(preview).not.toHaveBeenCalled();
  });
});
