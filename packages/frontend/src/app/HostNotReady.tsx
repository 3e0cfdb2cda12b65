import type { HostCheckView } from '@catalyst/protocol';
import { AppLink } from '../base/AppLink.tsx';

/**
 * An idea's host whose last check (issue 28) found it not ready: the first step that failed, in the check's words,
 * with what to do, before a run fails on it. Nothing when the host was never checked or is ready.
 */
export function HostNotReady({ check }: { check: HostCheckView | null | undefined }) {
  if (check === null || check === undefined || check.isReady) return null;
  const failed = check.steps.find((step) => step.status === 'failed');
  if (failed === undefined) return null;
  return (
    <p className="notice notice-bad" role="note">
      The host {check.name} is not ready: {failed.detail}.{failed.fix === undefined ? '' : ` ${failed.fix}`}{' '}
      <AppLink href="/hosts">Check it on the Hosts page</AppLink>
    </p>
  );
}
