import { useEffect, useState } from 'react';
import { isUpdateAvailable, UPDATE_AVAILABLE_EVENT } from '../base/build-check.ts';

/** Shown once the server serves a newer web app than this page's (issue 39): one click loads it. */
export function UpdateBanner() {
  const [isShown, setShown] = useState(isUpdateAvailable);
  useEffect(() => {
    const show = () => {
      setShown(true);
    };
    addEventListener(UPDATE_AVAILABLE_EVENT, show);
    if (isUpdateAvailable()) show();
    return () => {
      removeEventListener(UPDATE_AVAILABLE_EVENT, show);
    };
  }, []);
  if (!isShown) return null;
  return (
    <div className="update-banner" role="status">
      Catalyst was updated — reload{' '}
      <button
        type="button"
        onClick={() => {
          location.reload();
        }}
      >
        Reload
      </button>
    </div>
  );
}
