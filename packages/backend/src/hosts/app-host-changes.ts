import type { UpdateHostBody } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import { describeIdeasRootProblem, ideasRootProblem } from '../core/ideas-root-rules.ts';
import type { AppHostRecord } from './app-hosts-store.ts';

/** A host added in the app, changed (hosts-capability.ts): its ideas root checked, its record changed as asked. */

/** INVALID_ARGUMENT for a home, `/`, `/tmp` and the like as ideas root (issue 39, core/ideas-root-rules.ts). */
export function refuseUnsafeRoot(root: string | undefined): void {
  const problem = root === undefined ? undefined : ideasRootProblem(root);
  if (root === undefined || problem === undefined) return;
  throw new CatalystError('INVALID_ARGUMENT', describeIdeasRootProblem(root, problem), {
    details: { ideasRoot: root },
  });
}

export function changedRecord(record: AppHostRecord, body: UpdateHostBody): AppHostRecord {
  const { claudePath: _old, ...rest } = record;
  const claudePath = body.claudePath === undefined ? record.claudePath : (body.claudePath ?? undefined);
  return {
    ...rest,
    ...(body.target === undefined ? {} : { target: body.target.trim() }),
    ...(body.ideasRoot === undefined ? {} : { ideasRoot: body.ideasRoot }),
    ...(claudePath === undefined ? {} : { claudePath }),
  };
}
