import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ErrorBoundary } from './ErrorBoundary.tsx';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function Part({ label, isBroken }: { label: string; isBroken: boolean }) {
  if (isBroken) throw new Error(`${label} is broken`);
  return <p>{label}</p>;
}

function Page({ first, second }: { first: boolean; second: boolean }) {
  return (
    <>
      <ErrorBoundary resetKey={first} fallback={<p>first could not be shown</p>}>
        <Part label="first" isBroken={first} />
      </ErrorBoundary>
      <ErrorBoundary resetKey={second} fallback={<p>second could not be shown</p>}>
        <Part label="second" isBroken={second} />
      </ErrorBoundary>
    </>
  );
}

describe('ErrorBoundary', () => {
  it('replaces only the part that threw, with words and no stack trace, and tells the console', () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const view = render(<Page first={true} second={false} />);
    expect(screen.getByText('first could not be shown')).toBeTruthy();
    expect(screen.getByText('second')).toBeTruthy();
    expect(view.container.textContent).not.toContain('is broken');
    expect(
      consoleError.mock.calls.some((args) => args[0] === 'Catalyst could not show part of the page'),
    ).toBe(true);
  });

  it('stays on the fallback while its reset key stays, and tries again when it changes', () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const view = render(<Page first={true} second={false} />);
    view.rerender(<Page first={true} second={false} />);
    expect(screen.getByText('first could not be shown')).toBeTruthy();
    view.rerender(<Page first={false} second={false} />);
    expect(screen.getByText('first')).toBeTruthy();
    expect(screen.queryByText('first could not be shown')).toBeNull();
  });
});
