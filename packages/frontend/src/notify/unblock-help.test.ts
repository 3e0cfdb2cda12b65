import { describe, expect, it } from 'vitest';
import { describeUnblock } from './unblock-help.ts';

// "Notifications blocked" says how to allow them in the browser at hand (issue 40, item 18).

const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';
const EDGE = `${CHROME} Edg/130.0.0.0`;
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0';
const SAFARI_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Safari/605.1.15';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1';

describe('describeUnblock', () => {
  it('names the site settings of Chrome, Edge, Firefox and Safari', () => {
    expect(describeUnblock({ userAgent: CHROME, isStandalone: false })).toMatch(
      /^In Chrome: .*site settings.*Notifications.*Allow/,
    );
    expect(describeUnblock({ userAgent: EDGE, isStandalone: false })).toMatch(
      /^In Edge: .*Notifications.*Allow/,
    );
    expect(describeUnblock({ userAgent: FIREFOX, isStandalone: false })).toMatch(
      /^In Firefox: .*Notifications.*Allow/,
    );
    expect(describeUnblock({ userAgent: SAFARI_MAC, isStandalone: false })).toMatch(
      /^In Safari: .*Websites.*Notifications.*Allow/,
    );
  });

  it('on an iPhone, says the app must be on the home screen first, and where to allow it once it is', () => {
    expect(describeUnblock({ userAgent: SAFARI_IPHONE, isStandalone: false })).toMatch(
      /Add to Home Screen.*open Catalyst from there/,
    );
    expect(describeUnblock({ userAgent: SAFARI_IPHONE, isStandalone: true })).toMatch(
      /Settings.*Notifications.*Catalyst.*Allow Notifications/,
    );
  });

  it('falls back to the site settings of any other browser', () => {
    expect(describeUnblock({ userAgent: 'curl/8', isStandalone: false })).toMatch(/site settings.*Allow/);
  });
});
