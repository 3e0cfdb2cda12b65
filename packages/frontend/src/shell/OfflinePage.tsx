import { useEffect, useRef } from 'react';
import { NoticePage } from '../base/NoticePage.tsx';
import { OFFLINE_TITLE } from './offline-shell.ts';
import { isCatalystReachable, watchForCatalyst, type CatalystWatch } from './wait-for-catalyst.ts';

/**
 * What a page load shows when Catalyst does not answer (the service worker serves it from its cache, at the address
 * asked for). It asks again by itself and reloads the page the first time Catalyst answers; nothing on it is live
 * data, so nothing old is ever shown as if it were.
 */
export function OfflinePage() {
  const watch = useRef<CatalystWatch | undefined>(undefined);

  useEffect(() => {
    document.title = OFFLINE_TITLE;
    const started = watchForCatalyst({
      isReachable: isCatalystReachable,
      onReachable: () => {
        location.reload();
      },
    });
    watch.current = started;
    const checkNow = () => {
      started.checkNow();
    };
    const checkWhenShown = () => {
      if (document.visibilityState === 'visible') started.checkNow();
    };
    addEventListener('online', checkNow);
    document.addEventListener('visibilitychange', checkWhenShown);
    return () => {
      started.stop();
      removeEventListener('online', checkNow);
      document.removeEventListener('visibilitychange', checkWhenShown);
    };
  }, []);

  return (
    <NoticePage
      title={OFFLINE_TITLE}
      action={{
        label: 'Try now',
        onClick: () => {
          watch.current?.checkNow();
        },
      }}
    >
      <p>
        Is it still running, and is this device on the same network? Nothing is lost: your ideas and what
        Claude said are kept on the host.
      </p>
      <p role="status">This page tries again by itself and comes back as soon as Catalyst answers.</p>
    </NoticePage>
  );
}
