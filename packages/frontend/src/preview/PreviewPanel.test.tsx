import type { IdeaView, PreviewView } from '@catalyst/protocol';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { api, ApiError } from '../base/api.ts';
import { IDEA_ID } from '../../test/support/transcript-fixtures.ts';
import { PreviewPanel, PreviewToggle } from './PreviewPanel.tsx';

// The Preview view: nothing asked for before it is opened; the state in a sentence; polls every 2 s while the
// preview is up (a crash shows without a reload) and every 10 s otherwise, none once closed; the offer of what
// the project's files suggest; Start, Stop and Restart; the preview opened in a tab opened during the click, sent
// to a one-time link asked for then; the log when it is opened; the listening ports, looked at again 5 s after
// each answer, each opened the same way.
//
// The clock is fake: every poll in these tests is one the test moves time for. (Testing Library's `findBy…` waits
// on timers, so the answers are let in with `settle` instead.)

beforeAll(() => {
  // jsdom lays nothing out.
  Element.prototype.scrollIntoView = vi.fn();
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const ORIGIN = 'http://127.0.0.1:41234';
const linkTo = (n: number) => `${ORIGIN}/__catalyst/open?ticket=${String(n)}`;
const since = () => new Date().toISOString();
const STOPPED: PreviewView = { state: 'stopped', command: 'npm run dev', port: 5173, since: since() };
const STARTING: PreviewView = { ...STOPPED, state: 'starting' };
const RUNNING: PreviewView = { ...STOPPED, state: 'running', url: linkTo(1), origin: ORIGIN };
const CRASHED: PreviewView = {
  ...STOPPED,
  state: 'crashed',
  exit: { code: 1, signal: null },
  lastOutput: ['> vite', 'Error: Cannot find module vite'],
};
const UNSET: PreviewView = {
  state: 'stopped',
  command: null,
  port: null,
  suggestion: { command: 'npm run dev', port: 5173, source: 'package.json script "dev"' },
};
/** What `window.open` answers in these tests: jsdom cannot open a tab. */
const fakeTab = () => ({ opener: window as unknown, location: { replace: vi.fn() }, close: vi.fn() });
const IDEA: IdeaView = { id: IDEA_ID, host: 'local', available: true, running: false };

let preview: MockInstance<typeof api.preview>;
let listeningPorts: MockInstance<typeof api.listeningPorts>;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
  preview = vi.spyOn(api, 'preview').mockResolvedValue(STOPPED);
  listeningPorts = vi.spyOn(api, 'listeningPorts').mockResolvedValue([]);
  vi.spyOn(api, 'previewLog').mockResolvedValue({ text: '', isCut: false });
});

/** Lets the stubbed answers in, and React show them; no timer is due. */
async function settle(): Promise<void> {
  for (let round = 0; round < 3; round += 1) {
    await act(async () => {
      await vi.advanceTimersByTimeAsync(0);
    });
  }
}

async function advance(ms: number): Promise<void> {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
  await settle();
}

function Page({ onIdeaChanged = () => undefined }: { onIdeaChanged?: (idea: IdeaView) => void }) {
  const [isOpen, setIsOpen] = useState(false);
  return (
    <>
      <PreviewToggle
        panelId="preview"
        isOpen={isOpen}
        onToggle={() => {
          setIsOpen((open) => !open);
        }}
      />
      <PreviewPanel id="preview" ideaId={IDEA_ID} isOpen={isOpen} onIdeaChanged={onIdeaChanged} />
    </>
  );
}

const button = (name: string) => screen.getByRole('button', { name });
const stateLine = () => screen.getByTestId('preview-state');

async function openPreview(onIdeaChanged?: (idea: IdeaView) => void): Promise<void> {
  render(<Page {...(onIdeaChanged === undefined ? {} : { onIdeaChanged })} />);
  fireEvent.click(button('Preview'));
  await settle();
}

describe('the Preview view', () => {
  it('asks for nothing until it is opened, then says the state', async () => {
    render(<Page />);
    expect(preview).not.toHaveBeenCalled();
    expect(listeningPorts).not.toHaveBeenCalled();
    fireEvent.click(button('Preview'));
    expect(button('Preview').getAttribute('aria-expanded')).toBe('true');
    await settle();
    expect(screen.getByRole('region', { name: 'Preview' })).toBeTruthy();
    expect(preview.mock.calls).toEqual([[IDEA_ID]]);
    expect(stateLine().textContent).toBe('Stopped');
    expect(stateLine().getAttribute('role')).toBe('status');
    const when = screen.getByText((_, element) => element?.textContent === 'Stopped just now');
    expect(within(when).getByText('just now').tagName).toBe('TIME');
  });

  it.each([
    [STOPPED, 'Stopped'],
    [STARTING, 'Starting…'],
    [RUNNING, `Running at ${ORIGIN}`],
    [CRASHED, 'Crashed (exit code 1)'],
    [{ ...CRASHED, exit: { code: null, signal: 'SIGKILL' } }, 'Crashed (signal SIGKILL)'],
  ])('says %# as “%s”', async (view, sentence) => {
    preview.mockResolvedValue(view);
    await openPreview();
    expect(stateLine().textContent).toBe(sentence);
  });

  it('shows a crash within 2 s while it runs, with its last output; then looks every 10 s; not at all once closed', async () => {
    preview.mockResolvedValueOnce(RUNNING).mockResolvedValue(CRASHED);
    await openPreview();
    expect(stateLine().textContent).toBe(`Running at ${ORIGIN}`);
    expect(screen.queryByRole('region', { name: 'Last output' })).toBeNull();
    await advance(1_999);
    expect(preview).toHaveBeenCalledTimes(1);
    await advance(1);
    expect(preview).toHaveBeenCalledTimes(2);
    expect(stateLine().textContent).toBe('Crashed (exit code 1)');
    const output = screen.getByRole('region', { name: 'Last output' });
    expect(within(output).getByTestId('preview-last-output').textContent).toBe(
      '> vite\nError: Cannot find module vite',
    );
    expect(screen.queryByRole('link', { name: 'Open preview' })).toBeNull();

    await advance(9_999);
    expect(preview).toHaveBeenCalledTimes(2);
    await advance(1);
    expect(preview).toHaveBeenCalledTimes(3);

    fireEvent.click(button('Preview'));
    await advance(60_000);
    expect(preview).toHaveBeenCalledTimes(3);
    expect(listeningPorts.mock.calls.length).toBeGreaterThan(0);
    const portLooks = listeningPorts.mock.calls.length;
    await advance(60_000);
    expect(listeningPorts).toHaveBeenCalledTimes(portLooks);
  });

  it('offers what the project suggests; “Use it” saves both the command and the port', async () => {
    const updateIdea = vi.spyOn(api, 'updateIdea').mockResolvedValue(IDEA);
    const onIdeaChanged = vi.fn();
    preview.mockResolvedValueOnce(UNSET).mockResolvedValue(STOPPED);
    await openPreview(onIdeaChanged);
    const offer = screen.getByTestId('preview-suggestion');
    expect(offer.textContent).toContain(
      'Use npm run dev on port 5173 as the preview? Found in package.json script "dev".',
    );
    const start = button('Start');
    expect(start).toHaveProperty('disabled', true);
    expect(start.getAttribute('aria-describedby')).toBeTruthy();
    expect(document.getElementById(start.getAttribute('aria-describedby') ?? '')?.textContent).toBe(
      'Save a command and a port below to start the preview.',
    );

    fireEvent.click(within(offer).getByRole('button', { name: 'Use it' }));
    await settle();
    expect(updateIdea.mock.calls).toEqual([[IDEA_ID, { previewCommand: 'npm run dev', previewPort: 5173 }]]);
    expect(onIdeaChanged).toHaveBeenCalledWith(IDEA);
    expect(preview).toHaveBeenCalledTimes(2);
    expect(screen.queryByTestId('preview-suggestion')).toBeNull();
    expect(screen.getByLabelText('Command')).toHaveProperty('value', 'npm run dev');
    expect(screen.getByLabelText('Port')).toHaveProperty('value', '5173');
    expect(button('Start')).toHaveProperty('disabled', false);
  });

  it('says what is wrong with the command or the port, and saves them once right', async () => {
    const updateIdea = vi.spyOn(api, 'updateIdea').mockResolvedValue(IDEA);
    await openPreview();
    const form = screen.getByRole('form', { name: 'Preview settings' });
    fireEvent.change(within(form).getByLabelText('Command'), { target: { value: '  ' } });
    fireEvent.change(within(form).getByLabelText('Port'), { target: { value: '70000' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Save' }));
    expect(
      within(form)
        .getAllByRole('alert')
        .map((alert) => alert.textContent),
    ).toEqual([
      'Enter the command that starts the preview, e.g. npm run dev.',
      'The port must be a whole number from 1 to 65535.',
    ]);
    expect(within(form).getByLabelText('Port').getAttribute('aria-invalid')).toBe('true');
    expect(updateIdea).not.toHaveBeenCalled();

    fireEvent.change(within(form).getByLabelText('Command'), {
      target: { value: ' python -m http.server 8000 ' },
    });
    fireEvent.change(within(form).getByLabelText('Port'), { target: { value: '8000' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Save' }));
    await settle();
    expect(updateIdea.mock.calls).toEqual([
      [IDEA_ID, { previewCommand: 'python -m http.server 8000', previewPort: 8000 }],
    ]);
    expect(within(form).queryByRole('alert')).toBeNull();
  });

  it('starts, stops and restarts through their endpoints, showing each answer', async () => {
    const startPreview = vi.spyOn(api, 'startPreview').mockResolvedValue(STARTING);
    const stopPreview = vi.spyOn(api, 'stopPreview').mockResolvedValue(STOPPED);
    await openPreview();
    fireEvent.click(button('Start'));
    await settle();
    expect(startPreview.mock.calls).toEqual([[IDEA_ID]]);
    expect(stateLine().textContent).toBe('Starting…');
    expect(screen.getByText('Waiting for it to listen on port 5173.')).toBeTruthy();

    fireEvent.click(button('Stop'));
    await settle();
    expect(stopPreview.mock.calls).toEqual([[IDEA_ID]]);
    expect(stateLine().textContent).toBe('Stopped');

    preview.mockResolvedValue(RUNNING);
    await advance(10_000);
    expect(stateLine().textContent).toBe(`Running at ${ORIGIN}`);
    fireEvent.click(button('Restart'));
    await settle();
    expect(stopPreview).toHaveBeenCalledTimes(2);
    expect(startPreview).toHaveBeenCalledTimes(2);
    expect(stopPreview.mock.invocationCallOrder[1]).toBeLessThan(
      startPreview.mock.invocationCallOrder[1] ?? 0,
    );
    expect(stateLine().textContent).toBe('Starting…');
  });

  it('shows a refusal as the server’s sentence', async () => {
    vi.spyOn(api, 'startPreview').mockRejectedValue(
      new ApiError('PREVIEW_NOT_CONFIGURED', 'This idea has no preview command and port yet.', 409),
    );
    await openPreview();
    fireEvent.click(button('Start'));
    await settle();
    expect(screen.getByRole('alert').textContent).toBe('This idea has no preview command and port yet.');
    expect(stateLine().textContent).toBe('Stopped');
  });

  it('opens the running preview in a tab opened during the click, sent to a link asked for then', async () => {
    preview
      .mockResolvedValueOnce(RUNNING)
      .mockResolvedValueOnce({ ...RUNNING, url: linkTo(2) })
      .mockResolvedValue({ ...RUNNING, url: linkTo(3) });
    const tab = fakeTab();
    const open = vi.spyOn(window, 'open').mockReturnValue(tab as unknown as Window);
    await openPreview();
    const link = screen.getByRole('link', { name: 'Open preview' });
    expect(link.getAttribute('href')).toBe(linkTo(1));
    expect(link.getAttribute('target')).toBe('_blank');
    expect(link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(link.dataset['testid']).toBe('preview-open');

    // A background tab's polls can be minutes apart: the last one's link may be past its 60 s by the click.
    const isFollowed = fireEvent.click(link);
    expect(isFollowed).toBe(false);
    expect(open.mock.calls).toEqual([['about:blank', '_blank']]);
    expect(tab.opener).toBeNull();
    expect(preview).toHaveBeenCalledTimes(2);
    await settle();
    expect(tab.location.replace.mock.calls).toEqual([[linkTo(2)]]);
    expect(tab.close).not.toHaveBeenCalled();
    expect(screen.queryByRole('alert')).toBeNull();
    // That link is used up: the view is asked for again, so a middle click or a copy gets a fresh one.
    expect(preview).toHaveBeenCalledTimes(3);
    expect(screen.getByRole('link', { name: 'Open preview' }).getAttribute('href')).toBe(linkTo(3));
  });

  it('closes the tab and says why when the preview stopped meanwhile', async () => {
    preview.mockResolvedValueOnce(RUNNING).mockResolvedValue(STOPPED);
    const tab = fakeTab();
    vi.spyOn(window, 'open').mockReturnValue(tab as unknown as Window);
    await openPreview();
    fireEvent.click(screen.getByRole('link', { name: 'Open preview' }));
    await settle();
    expect(tab.close).toHaveBeenCalled();
    expect(tab.location.replace).not.toHaveBeenCalled();
    expect(screen.getByRole('alert').textContent).toBe('The preview is no longer running.');
    expect(stateLine().textContent).toBe('Stopped');
    expect(screen.queryByRole('link', { name: 'Open preview' })).toBeNull();
  });

  it('closes the tab and says why when the link cannot be had', async () => {
    preview
      .mockResolvedValueOnce(RUNNING)
      .mockRejectedValueOnce(new ApiError('NETWORK', 'Catalyst cannot be reached.', 0))
      .mockResolvedValue(RUNNING);
    const tab = fakeTab();
    vi.spyOn(window, 'open').mockReturnValue(tab as unknown as Window);
    await openPreview();
    fireEvent.click(screen.getByRole('link', { name: 'Open preview' }));
    await settle();
    expect(tab.close).toHaveBeenCalled();
    expect(tab.location.replace).not.toHaveBeenCalled();
    expect(screen.getByRole('alert').textContent).toBe('Catalyst cannot be reached.');
  });

  it('says so when the browser blocks the tab', async () => {
    preview.mockResolvedValue(RUNNING);
    vi.spyOn(window, 'open').mockReturnValue(null);
    await openPreview();
    fireEvent.click(screen.getByRole('link', { name: 'Open preview' }));
    await settle();
    expect(screen.getByRole('alert').textContent).toBe(
      'The browser blocked the new tab. Allow pop-ups for Catalyst, then try again.',
    );
  });

  it('loads the log when it is opened, and again while the preview runs', async () => {
    const previewLog = vi
      .spyOn(api, 'previewLog')
      .mockResolvedValueOnce({ text: 'VITE ready\n', isCut: false })
      .mockResolvedValue({ text: 'VITE ready\nGET /\n', isCut: true });
    preview.mockResolvedValue(RUNNING);
    await openPreview();
    expect(previewLog).not.toHaveBeenCalled();
    const details = screen.getByTestId('preview-log');
    if (!(details instanceof HTMLDetailsElement)) throw new Error('the log is not a <details>');
    details.open = true;
    fireEvent(details, new Event('toggle'));
    await settle();
    expect(previewLog.mock.calls).toEqual([[IDEA_ID]]);
    expect(within(details).getByLabelText('Preview log').textContent).toBe('VITE ready\n');

    await advance(2_000);
    expect(previewLog).toHaveBeenCalledTimes(2);
    expect(within(details).getByLabelText('Preview log').textContent).toBe('VITE ready\nGET /\n');
    expect(within(details).getByText('Only the newest 256 KiB are kept.')).toBeTruthy();
  });
});

describe('the listening ports', () => {
  const PORTS = [
    { port: 5173, source: 'run' as const },
    { port: 8000, source: 'preview' as const },
  ];

  it('lists each port with where it comes from, looking again every 5 s', async () => {
    listeningPorts.mockResolvedValueOnce([]).mockResolvedValue(PORTS);
    await openPreview();
    const ports = screen.getByRole('region', { name: 'Listening ports' });
    expect(ports.textContent).toContain('None of the idea’s processes listens on a port on its host.');
    await advance(5_000);
    expect(
      within(ports)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['5173 from the running build Open', '8000 the preview Open']);
  });

  it('waits for each answer before looking again, so a slow one is shown and requests do not pile up', async () => {
    // Each look runs a command on the host over SSH, which can take longer than the 5 s between looks.
    const answers: ((ports: typeof PORTS) => void)[] = [];
    listeningPorts.mockImplementation(
      () =>
        new Promise((resolve) => {
          answers.push(resolve);
        }),
    );
    await openPreview();
    const ports = screen.getByRole('region', { name: 'Listening ports' });
    await advance(12_000);
    expect(listeningPorts).toHaveBeenCalledTimes(1);
    expect(ports.textContent).toContain('Looking for ports…');

    await act(async () => {
      answers[0]?.(PORTS);
      await Promise.resolve();
    });
    await settle();
    expect(within(ports).getAllByRole('listitem')).toHaveLength(2);
    expect(listeningPorts).toHaveBeenCalledTimes(1);
    await advance(4_999);
    expect(listeningPorts).toHaveBeenCalledTimes(1);
    await advance(1);
    expect(listeningPorts).toHaveBeenCalledTimes(2);

    // While the next look is on its way, the last answer stays in sight, and no other look starts.
    await advance(20_000);
    expect(listeningPorts).toHaveBeenCalledTimes(2);
    expect(within(ports).getAllByRole('listitem')).toHaveLength(2);
    expect(ports.textContent).not.toContain('Looking for ports…');
  });

  it('looks again after a failed look too, and shows the next answer', async () => {
    listeningPorts
      .mockRejectedValueOnce(new ApiError('NETWORK', 'Catalyst cannot be reached.', 0))
      .mockResolvedValue(PORTS);
    await openPreview();
    const ports = screen.getByRole('region', { name: 'Listening ports' });
    expect(within(ports).getByRole('alert').textContent).toBe('Catalyst cannot be reached.');
    await advance(5_000);
    expect(listeningPorts).toHaveBeenCalledTimes(2);
    expect(within(ports).queryByRole('alert')).toBeNull();
    expect(within(ports).getAllByRole('listitem')).toHaveLength(2);
  });

  it('opens a tab during the click, then sends it to the port’s one-time link', async () => {
    listeningPorts.mockResolvedValue(PORTS);
    const tab = fakeTab();
    const open = vi.spyOn(window, 'open').mockReturnValue(tab as unknown as Window);
    const portLink = vi
      .spyOn(api, 'previewPortLink')
      .mockResolvedValue({ url: `${ORIGIN}/__catalyst/open?ticket=port`, origin: ORIGIN });
    await openPreview();
    fireEvent.click(button('Open port 5173'));
    expect(open.mock.calls).toEqual([['about:blank', '_blank']]);
    expect(tab.opener).toBeNull();
    await settle();
    expect(portLink.mock.calls).toEqual([[IDEA_ID, 5173]]);
    expect(tab.location.replace.mock.calls).toEqual([[`${ORIGIN}/__catalyst/open?ticket=port`]]);
    expect(tab.close).not.toHaveBeenCalled();
  });

  it('closes the tab and says why when the link is refused', async () => {
    listeningPorts.mockResolvedValue(PORTS);
    const tab = fakeTab();
    vi.spyOn(window, 'open').mockReturnValue(tab as unknown as Window);
    vi.spyOn(api, 'previewPortLink').mockRejectedValue(
      new ApiError('PREVIEW_PORT_NOT_LISTENING', 'Nothing listens on port 8000 any more.', 404),
    );
    await openPreview();
    fireEvent.click(button('Open port 8000'));
    await settle();
    expect(tab.close).toHaveBeenCalled();
    expect(tab.location.replace).not.toHaveBeenCalled();
    expect(screen.getByRole('alert').textContent).toBe('Nothing listens on port 8000 any more.');
  });
});
