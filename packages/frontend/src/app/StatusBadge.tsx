import type { IdeaStatus } from '@catalyst/protocol';

export function StatusBadge({ status }: { status: IdeaStatus | 'unavailable' }) {
  return <span className={`badge badge-${status}`}>{status}</span>;
}
