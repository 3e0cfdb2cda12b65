import { describe, expect, it } from 'vitest';
import { findFramingRefusal } from './framing-refusal.ts';

const CATALYST = 'http://127.0.0.1:8787';

function refusal(headers: { xfo?: string[]; csp?: string[] }, embedder = CATALYST) {
  return findFramingRefusal(
    { xFrameOptions: headers.xfo ?? [], contentSecurityPolicy: headers.csp ?? [] },
    embedder,
  );
}

describe('X-Frame-Options', () => {
  it('refuses Catalyst with DENY and SAMEORIGIN, in any case', () => {
    expect(refusal({ xfo: ['DENY'] })).toBe('x-frame-options');
    expect(refusal({ xfo: ['sameorigin'] })).toBe('x-frame-options');
    expect(refusal({ xfo: [' Deny '] })).toBe('x-frame-options');
  });

  it('refuses conflicting values, and lets unknown ones and ALLOWALL through', () => {
    expect(refusal({ xfo: ['ALLOWALL', 'DENY'] })).toBe('x-frame-options');
    expect(refusal({ xfo: ['SAMEORIGIN, ALLOWALL'] })).toBe('x-frame-options');
    expect(refusal({ xfo: ['ALLOWALL'] })).toBeUndefined();
    expect(refusal({ xfo: ['ALLOW-FROM http://127.0.0.1:8787'] })).toBeUndefined();
    expect(refusal({})).toBeUndefined();
  });
});

describe('frame-ancestors', () => {
  it("refuses 'none', 'self' and other hosts", () => {
    expect(refusal({ csp: ["default-src 'self'; frame-ancestors 'none'"] })).toBe('frame-ancestors');
    expect(refusal({ csp: ["frame-ancestors 'self'"] })).toBe('frame-ancestors');
    expect(refusal({ csp: ['frame-ancestors https://example.com'] })).toBe('frame-ancestors');
    expect(refusal({ csp: ['frame-ancestors http://127.0.0.1:9999'] })).toBe('frame-ancestors');
    expect(refusal({ csp: ['frame-ancestors http://127.0.0.1'] })).toBe('frame-ancestors');
    expect(refusal({ csp: ['frame-ancestors https:'] })).toBe('frame-ancestors');
  });

  it('allows a source that names Catalyst, by host, wildcard, port or scheme', () => {
    expect(refusal({ csp: ['frame-ancestors *'] })).toBeUndefined();
    expect(refusal({ csp: ['frame-ancestors http:'] })).toBeUndefined();
    expect(refusal({ csp: ["frame-ancestors 'self' http://127.0.0.1:8787"] })).toBeUndefined();
    expect(refusal({ csp: ['frame-ancestors 127.0.0.1:*'] })).toBeUndefined();
    expect(refusal({ csp: ['frame-ancestors http://*.localhost:*'] }, 'http://catalyst.localhost:8787')).toBe(
      undefined,
    );
    expect(refusal({ csp: ['frame-ancestors http://devbox'] }, 'http://devbox')).toBeUndefined();
  });

  it('decides instead of X-Frame-Options, and every enforced policy must allow', () => {
    expect(refusal({ csp: ['frame-ancestors *'], xfo: ['DENY'] })).toBeUndefined();
    expect(refusal({ csp: ["frame-ancestors 'none'"], xfo: ['ALLOWALL'] })).toBe('frame-ancestors');
    expect(refusal({ csp: ['frame-ancestors *', "frame-ancestors 'self'"] })).toBe('frame-ancestors');
    expect(refusal({ csp: ["frame-ancestors *, frame-ancestors 'none'"] })).toBe('frame-ancestors');
    // A policy without the directive says nothing about framing.
    expect(refusal({ csp: ["default-src 'none'"], xfo: ['DENY'] })).toBe('x-frame-options');
  });
});
