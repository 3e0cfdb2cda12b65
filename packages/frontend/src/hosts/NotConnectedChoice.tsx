import type { HostCheckView } from '@catalyst/protocol';
import { useState } from 'react';

/** The steps that say Catalyst cannot reach the host as it was added: how it is reached is what to fix. */
const REACH_STEPS = new Set(['resolve', 'connect', 'auth']);

/**
 * A host just added whose check could not reach it (issue 40, item 7: a wrong port was added and kept in silence):
 * it is not ready, and the person chooses to fix how it is reached, remove it, or keep it as it is.
 */
export function NotConnectedChoice({
  check,
  onFix,
  onRemove,
}: {
  check: HostCheckView;
  onFix: () => void;
  onRemove: () => void;
}) {
  const [isKept, setIsKept] = useState(false);
  const failed = check.steps.find((step) => step.status === 'failed');
  if (isKept || failed === undefined || !REACH_STEPS.has(failed.id)) return null;
  return (
    <div
      className="notice notice-bad host-not-connected"
      role="group"
      aria-label={`${check.name} not reached`}
    >
      <p>
        {check.name} is added but not ready: Catalyst could not reach it as it was added. Fix how it is
        reached, remove it, or keep it as it is and check again later.
      </p>
      <div className="actions">
        <button type="button" className="primary" onClick={onFix}>
          Fix how it is reached
        </button>
        <button type="button" className="danger" onClick={onRemove}>
          Remove it
        </button>
        <button
          type="button"
          onClick={() => {
            setIsKept(true);
          }}
        >
          Keep it
        </button>
      </div>
    </div>
  );
}
