import { IDEA_ID_SOURCE } from '@catalyst/protocol';
import { useSyncExternalStore } from 'react';

/** Three screens need no router library: the path is the state, `navigate` pushes it, Back pops it. */

const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    removeEventListener('popstate', listener);
  };
}

export function usePath(): string {
  return useSyncExternalStore(subscribe, () => location.pathname);
}

export function navigate(path: string): void {
  if (location.pathname === path) return;
  history.pushState(null, '', path);
  for (const listener of listeners) listener();
}

export type Route =
  { name: 'ideas' } | { name: 'idea'; ideaId: string } | { name: 'hosts' } | { name: 'not_found' };

const IDEA_PATH = new RegExp(`^/ideas/(${IDEA_ID_SOURCE})/?$`);

export function routeOf(path: string): Route {
  if (path === '/' || path === '/ideas' || path === '/ideas/') return { name: 'ideas' };
  if (path === '/hosts' || path === '/hosts/') return { name: 'hosts' };
  const match = IDEA_PATH.exec(path);
  if (match?.[1] !== undefined) return { name: 'idea', ideaId: match[1] };
  return { name: 'not_found' };
}
