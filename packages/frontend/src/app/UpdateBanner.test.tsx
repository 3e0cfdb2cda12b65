import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILD_META, isOtherBuild, noteServerBuild, readPageBuild } from '../base/build-check.ts';
import { UpdateBanner } from './UpdateBanner.tsx';

afterEach(() => {
  cleanup();
  document.head.querySelector(`meta[name="${BUILD_META}"]`)?.remove();
});

function servePage(build: string): void {
  const meta = document.createElement('meta');
  meta.name = BUILD_META;
  meta.content = build;
  document.head.append(meta);
}

describe('isOtherBuild', () => {
  it('is true only when both builds are known and differ', () => {
    expect(isOtherBuild('a', 'b')).toBe(true);
    expect(isOtherBuild('a', 'a')).toBe(false);
    expect(isOtherBuild(undefined, 'b')).toBe(false);
    expect(isOtherBuild('a', null)).toBe(false);
    expect(isOtherBuild('a', '')).toBe(false);
  });
});

describe('UpdateBanner', () => {
  it('stays hidden while the server serves the page’s build, and offers a reload once it serves another', () => {
    servePage('build-1');
    expect(readPageBuild()).toBe('build-1');
    render(<UpdateBanner />);
    act(() => {
      noteServerBuild('build-1');
      noteServerBuild(null);
    });
    expect(screen.queryByText(/Catalyst was updated/)).toBeNull();
    act(() => {
      noteServerBuild('build-2');
    });
    expect(screen.getByRole('status').textContent).toContain('Catalyst was updated — reload');
    expect(screen.getByRole('button', { name: 'Reload' })).toBeDefined();
  });

  it('shows at once when mounted after the update was seen', () => {
    render(<UpdateBanner />);
    expect(screen.getByRole('button', { name: 'Reload' })).toBeDefined();
  });
});
