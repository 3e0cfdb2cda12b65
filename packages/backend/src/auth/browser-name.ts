/**
 * What the list of signed-in browsers calls a session (issue 25): "Chrome on Linux", from the User-Agent of its
 * login. Only this name is kept, never the header itself. A guess for people to recognise their devices by, not
 * an identity: any client can send any User-Agent.
 */

const UNKNOWN = 'Unknown browser';

/** First match wins: Edge, Opera and Samsung's browser also say Chrome; Chrome also says Safari. */
const BROWSERS: readonly (readonly [RegExp, string])[] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOpera\b/, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/Chrome\/|\bCriOS\/|\bChromium\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
];

/** Android also says Linux; iPhones and iPads also say Mac OS X. */
const SYSTEMS: readonly (readonly [RegExp, string])[] = [
  [/\bAndroid\b/, 'Android'],
  [/\biPhone\b/, 'iPhone'],
  [/\biPad\b/, 'iPad'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMacintosh\b|\bMac OS X\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

export function browserNameOf(userAgent: string | undefined): string {
  const agent = (userAgent ?? '').slice(0, 1024);
  const browser = BROWSERS.find(([pattern]) => pattern.test(agent))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(agent))?.[1];
  if (browser !== undefined && system !== undefined) return `${browser} on ${system}`;
  if (browser !== undefined) return browser;
  if (system !== undefined) return `A browser on ${system}`;
  return UNKNOWN;
}
