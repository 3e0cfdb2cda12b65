import type { QuestionPolicy, RunMode } from '@catalyst/protocol';
import type { StepSpec } from './step-spec.ts';

/** What a command line asks for, once parsed: every value checked, nothing read from the network yet. */
export type Command =
  | { kind: 'help'; topic?: CommandName }
  | { kind: 'ideas'; json: boolean }
  | { kind: 'new'; title: string; description?: string; host?: string; json: boolean }
  | { kind: 'stream'; mode: RunMode; idea: string; message: string; budgetUsd?: number; detach: boolean }
  | {
      kind: 'run';
      mode: RunMode;
      idea: string;
      message: string;
      budgetUsd?: number;
      json: boolean;
      detach: boolean;
    }
  | {
      kind: 'autopilot';
      idea: string;
      steps: StepSpec[];
      policy: QuestionPolicy;
      budgetUsd?: number;
      stopOnFailure: boolean;
      json: boolean;
      /** Ctrl-C or SIGTERM leaves what it started going on the server, instead of cancelling it. */
      detach: boolean;
    }
  | { kind: 'hosts'; action: HostsAction }
  | { kind: 'queue'; idea: string; action: QueueAction; json: boolean }
  | { kind: 'shell'; idea: string };

/** `catalyst queue …`: the idea's queue of next messages (issue 30). */
export type QueueAction =
  | { type: 'show' }
  | { type: 'add'; step: StepSpec; now: boolean }
  | { type: 'resume'; oneMoreStep: boolean }
  | { type: 'clear' };

/** `catalyst hosts …`: what to do with the hosts (issue 28). */
export type HostsAction =
  | { type: 'list'; json: boolean }
  | {
      type: 'add';
      target: string;
      name: string;
      ideasRoot?: string;
      claudePath?: string;
      isDefault: boolean;
    }
  | { type: 'check'; name: string }
  | { type: 'trust'; name: string; fingerprint: string }
  | { type: 'remove'; name: string; isConfirmed: boolean }
  | { type: 'aliases' };

export const COMMAND_NAMES = [
  'ideas',
  'new',
  'chat',
  'build',
  'run',
  'autopilot',
  'queue',
  'shell',
  'hosts',
] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

/** Where Catalyst is and how to get in, as given on the command line (the environment fills the gaps). */
export interface ConnectionFlags {
  url?: string;
  tokenFile?: string;
}

export interface Invocation {
  connection: ConnectionFlags;
  command: Command;
}
