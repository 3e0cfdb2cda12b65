import type { HostCheckStep, HostCheckStepId, HostCheckView, PresentedHostKey } from '@catalyst/protocol';

/** What a host's check found (host-check.ts), step by step. */
export interface HostCheckResult {
  readonly view: HostCheckView;
  /** The key a person may confirm: what the host presented, never what a client sends. */
  readonly presentedKey?: { readonly publicKey: string; readonly key: PresentedHostKey };
}

/** Adds a step to the check's list, as it is found. */
export type AddStep = (id: HostCheckStepId, step: Omit<HostCheckStep, 'id'>) => void;
