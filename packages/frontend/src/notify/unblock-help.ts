/**
 * How to allow notifications again once the browser blocks them for Catalyst (issue 40, item 18): a site can no
 * longer ask, so the person must change it in the browser, whose menus differ. Told from the User-Agent; the
 * order matters, as Edge names Chrome and Chrome names Safari in theirs.
 */

interface BrowserAtHand {
  userAgent: string;
  /** Opened from the home screen (display-mode standalone): on an iPhone, the only way to get notifications. */
  isStandalone: boolean;
}

const SITE_SETTINGS =
  'click the icon left of the address, open the site settings, set Notifications to Allow, then reload this page.';

export function describeUnblock({ userAgent, isStandalone }: BrowserAtHand): string {
  if (/iPhone|iPad|iPod/.test(userAgent)) {
    return isStandalone
      ? 'On this iPhone or iPad: open Settings → Notifications → Catalyst and turn on Allow Notifications, then reopen Catalyst.'
      : 'On an iPhone or iPad, notifications need Catalyst on the home screen: tap Share → Add to Home Screen, open Catalyst from there, and tap “Notify me on this device” again.';
  }
  if (/Edg\//.test(userAgent)) return `In Edge: ${SITE_SETTINGS}`;
  if (/Firefox\//.test(userAgent)) {
    return 'In Firefox: click the icon left of the address, clear the blocked Notifications permission (or set it to Allow in Settings → Privacy & Security → Permissions → Notifications), then reload this page.';
  }
  if (/Chrome\/|Chromium\//.test(userAgent)) return `In Chrome: ${SITE_SETTINGS}`;
  if (/Safari\//.test(userAgent)) {
    return 'In Safari: open Safari → Settings → Websites → Notifications, set this site to Allow, then reload this page.';
  }
  return `In this browser: ${SITE_SETTINGS}`;
}

/** The browser this page runs in. */
export function describeUnblockHere(): string {
  return describeUnblock({
    userAgent: navigator.userAgent,
    isStandalone: typeof matchMedia === 'function' && matchMedia('(display-mode: standalone)').matches,
  });
}
