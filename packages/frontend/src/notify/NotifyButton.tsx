import { useState } from 'react';
import { usePushDevice } from './push-context.ts';
import { isMutedHere, type PushDevice, type PushState } from './push-device.ts';
import { describeUnblockHere } from './unblock-help.ts';

type Permission = NotificationPermission | 'unsupported';

function readPermission(): Permission {
  return 'Notification' in window ? Notification.permission : 'unsupported';
}

/**
 * Notifications for this idea. Where the device can have pushes (issue 29: a service worker and a PushManager),
 * "Notify me on this device" asks the browser's permission and subscribes the device, which then hears of every
 * idea with no tab open; a per-idea mute; and a way to turn it off. Elsewhere (plain http on a network address),
 * "Notify me" as before: this tab's notifications only. The browser is asked only on a click, never on load
 * (browsers hold an unasked prompt against a site).
 */
export function NotifyButton({ ideaId }: { ideaId: string }) {
  const { device, state } = usePushDevice();
  if (device === undefined || state.kind === 'unsupported') return <TabNotifyButton />;
  return <DeviceNotify device={device} state={state} ideaId={ideaId} />;
}

function DeviceNotify({ device, state, ideaId }: { device: PushDevice; state: PushState; ideaId: string }) {
  switch (state.kind) {
    case 'checking':
    case 'unsupported':
      return null;
    case 'blocked':
      return <BlockedNotice />;
    case 'busy':
    case 'off':
      return (
        <>
          {readPermission() === 'granted' ? (
            <span className="notify-state" title="While this tab is open in the background">
              Notifications on
            </span>
          ) : null}
          <button
            type="button"
            disabled={state.kind === 'busy'}
            title="A notification on this device when Claude needs you or a run ends, even with no Catalyst tab open"
            onClick={() => {
              void device.enable();
            }}
          >
            Notify me on this device
          </button>
          {state.kind === 'off' && state.problem !== undefined ? (
            <span className="form-error" role="alert">
              {state.problem}
            </span>
          ) : null}
        </>
      );
    case 'on': {
      const isMuted = isMutedHere(state, ideaId);
      return (
        <>
          <span className="notify-state">Notifications on this device</span>
          <button
            type="button"
            aria-pressed={isMuted}
            title="No notification about this idea on this device; other ideas still notify"
            onClick={() => {
              void device.setMuted(ideaId, !isMuted);
            }}
          >
            Mute this idea on this device
          </button>
          <button
            type="button"
            onClick={() => {
              void device.disable();
            }}
          >
            Turn notifications off
          </button>
          {state.problem === undefined ? null : (
            <span className="form-error" role="alert">
              {state.problem}
            </span>
          )}
        </>
      );
    }
  }
}

/** This tab's own notifications, while it is open in the background: where the device cannot have pushes. */
function TabNotifyButton() {
  const [permission, setPermission] = useState<Permission>(readPermission);
  if (permission === 'unsupported') return null;
  if (permission === 'granted') return <span className="notify-state">Notifications on</span>;
  if (permission === 'denied') return <BlockedNotice />;
  return (
    <button
      type="button"
      title="A notification when Claude needs you or a run ends while this tab is in the background (notifications with no tab open need https or localhost)"
      onClick={() => {
        void Notification.requestPermission().then(setPermission);
      }}
    >
      Notify me
    </button>
  );
}

/** A blocked site cannot ask again: the person must allow it in the browser, so the page says where (issue 40). */
function BlockedNotice() {
  return (
    <div className="notify-blocked">
      <span className="notify-state">Notifications blocked</span>
      <p role="note" className="hint">
        {describeUnblockHere()}
      </p>
    </div>
  );
}
