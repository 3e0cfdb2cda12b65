import { describe, expect, it } from 'vitest';
import {
  isNeverCached,
  isOldShellCache,
  isUnreachableStatus,
  routeRequest,
  shellCacheName,
  type RequestFacts,
} from './cache-rules.ts';

// The service worker answers only page loads (from the network, the offline page when that fails) and the
// build's own files (from the cache); everything else, and anything with a person's data, goes by untouched.

const origin = 'https://catalyst.example:7433';
const scope = { origin, shellFiles: new Set(['/index.html', '/offline.html', '/assets/index-abc123.js']) };

function route(path: string, facts: Partial<RequestFacts> = {}) {
  return routeRequest({ method: 'GET', url: `${origin}${path}`, mode: 'cors', ...facts }, scope);
}

describe('routeRequest', () => {
  it('answers page loads from the network first, client routes and the app`s root alike', () => {
    for (const path of ['/', '/ideas/idea-0123456789abcdef', '/hosts', '/?login=refused']) {
      expect(route(path, { mode: 'navigate' }), path).toBe('navigation');
    }
  });

  it('serves the build`s own files from the cache, exactly as listed', () => {
    expect(route('/assets/index-abc123.js', { mode: 'no-cors' })).toBe('shell');
    expect(route('/index.html')).toBe('shell');
    expect(route('/assets/index-abc123.js?v=2')).toBe('network');
    expect(route('/assets/index-old999.js')).toBe('network');
  });

  it('never answers the API, the WebSocket, login, pairing or previews, not even a page load of them', () => {
    for (const path of [
      '/api',
      '/api/ideas',
      '/api/ideas/x/events?since=3',
      '/ws',
      '/login',
      '/pair',
      '/preview/3000/',
    ]) {
      for (const mode of ['navigate', 'cors', 'same-origin', 'websocket']) {
        expect(route(path, { mode }), `${path} (${mode})`).toBe('network');
      }
    }
  });

  it('never answers a request that is not a GET, even for a file of the build', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']) {
      expect(route('/index.html', { method }), method).toBe('network');
      expect(route('/', { method, mode: 'navigate' }), `${method} navigation`).toBe('network');
    }
  });

  it('leaves other origins alone, even at a path the build has', () => {
    const other = { method: 'GET', url: 'https://cdn.example/assets/index-abc123.js', mode: 'cors' };
    expect(routeRequest(other, scope)).toBe('network');
    expect(routeRequest({ ...other, url: 'http://catalyst.example:7433/', mode: 'navigate' }, scope)).toBe(
      'network',
    );
  });
});

describe('isNeverCached', () => {
  it('covers each path and what is under it, not paths that merely start with the same letters', () => {
    expect(isNeverCached('/api')).toBe(true);
    expect(isNeverCached('/login/')).toBe(true);
    expect(isNeverCached('/apiary')).toBe(false);
    expect(isNeverCached('/ideas/api')).toBe(false);
    expect(isNeverCached('/pairs')).toBe(false);
  });
});

describe('isUnreachableStatus', () => {
  it('takes a proxy`s 502, 503 and 504 for Catalyst being down, and every other answer for its own', () => {
    expect([502, 503, 504].map(isUnreachableStatus)).toEqual([true, true, true]);
    expect([200, 304, 401, 404, 500].map(isUnreachableStatus)).toEqual([false, false, false, false, false]);
  });
});

describe('shell caches', () => {
  it('deletes the caches of older builds only, never the current one or caches of other names', () => {
    const current = shellCacheName('v2');
    expect(isOldShellCache(shellCacheName('v1'), current)).toBe(true);
    expect(isOldShellCache(current, current)).toBe(false);
    expect(isOldShellCache('someone-else', current)).toBe(false);
  });
});
