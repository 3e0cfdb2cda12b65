import { useState } from 'react';

type Permission = NotificationPermission | 'unsupported';

function readPermission(): Permission {
  return 'Notification' in window ? Notification.permission : 'unsupported';
}

/**
 * Asks the browser for notifications, only when the person clicks (never on load: browsers hold an unasked
 * prompt against a site); afterwards says what the browser decided.
 */
export function NotifyButton() {
  const [permission, setPermission] = useState<Permission>(readPermission);
  if (permission === 'unsupported') return null;
  if (permission === 'granted') return <span className="notify-state">Notifications on</span>;
  if (permission === 'denied') {
    return (
      <span className="notify-state" title="Allow notifications for this site in the browser’s settings.">
        Notifications blocked
      </span>
    );
  }
  return (
    <button
      type="button"
      title="A notification when Claude needs you or a run ends while this tab is in the background"
      onClick={() => {
        void Notification.requestPermission().then(setPermission);
      }}
    >
      Notify me
    </button>
  );
}
