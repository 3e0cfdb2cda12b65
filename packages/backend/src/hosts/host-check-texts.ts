import type { HostEntry } from '../host/host-entry.ts';

/**
 * The words of a host's check that depend on where the host is (issue 40, item 5): a VM is reached with `ssh`, the
 * local host is the machine Catalyst runs on, where `ssh -t local claude` means nothing.
 */
export interface HostCheckTexts {
  /** "the VM", "this machine": where a fix is done. */
  readonly place: string;
  readonly installClaude: string;
  readonly notLoggedIn: string;
  readonly logIn: string;
  readonly updateClaude: string;
  readonly installTools: string;
  readonly installGit: string;
  readonly freeSpace: string;
  readonly freeSpaceSoon: string;
  readonly lookAtHost: string;
}

/** `alias`: what to type after `ssh` to reach the host as Catalyst does (unused for the local host). */
export function hostCheckTextsOf(entry: HostEntry, alias: string): HostCheckTexts {
  if (entry.kind === 'local') {
    return {
      place: 'this machine',
      installClaude:
        'Install Claude Code on this machine (npm install -g @anthropic-ai/claude-code), or set CATALYST_CLAUDE_PATH to where it is.',
      notLoggedIn: 'claude on this machine is not logged in',
      logIn:
        'To log in, run `claude` in a terminal on this machine, as the user Catalyst runs as, and type /login; or set ANTHROPIC_API_KEY where Catalyst starts. Then check again.',
      ...sharedTexts('this machine'),
    };
  }
  return {
    place: 'the VM',
    installClaude:
      'Install Claude Code on the VM (npm install -g @anthropic-ai/claude-code), or give the host its claude path.',
    notLoggedIn: 'claude on the VM is not logged in',
    logIn: `Run \`ssh -t ${alias} claude\` and log in with /login, or set ANTHROPIC_API_KEY for the VM's user.`,
    ...sharedTexts('the VM'),
  };
}

function sharedTexts(place: string) {
  return {
    updateClaude: `Update Claude Code on ${place} (claude update); runs may still work.`,
    installTools: `Install what is missing on ${place} (e.g. apt-get install util-linux coreutils git).`,
    installGit: `Install git on ${place}.`,
    freeSpace: `Free some space on ${place}.`,
    freeSpaceSoon: `Free some space on ${place} soon.`,
    lookAtHost: `Check again; if it fails the same way, look at ${place}.`,
  };
}
