import { basename } from 'node:path';
import { CatalystError } from '../../../src/core/catalyst-error.ts';
import type { Host, Preflight } from '../../../src/host/host.ts';
import { createLocalFiles } from '../../../src/host/local-files.ts';
import { openLocalTcp } from '../../../src/host/local-tcp.ts';
import { InProcessJobs } from './job-views.ts';
import type { JobFactory } from './jobs.ts';
import { localJob } from './local-job.ts';
import { ClaudeScript, scriptedClaude, type Conversations } from './scripted-claude.ts';

/**
 * A `Host` in this test process, for the fast tier: a Catalyst on it runs everything above the Host port as it
 * would on a VM (ideas, runs, sessions taken up after a restart, queues, budgets, checkpoints), in milliseconds.
 * - Files: this machine's (the local adapter's files, contract-tested), under the VM's home folder.
 * - claude: a job in memory that speaks the CLI's stream-json as measured and replays the turns a test scripts
 *   (scripted-claude.ts); its sessions live in the VM object, so they outlive a Catalyst that restarts.
 * - Every other program (a checkpoint's git, the ideas root's claim): a plain local process, no wrapper.
 * What only real processes show (the wrapper, the supervisor's signals, sshd, the real CLI) stays in the
 * end-to-end tier (the host contract suites in local-host.test.ts, ssh-host.test.ts and job-run.test.ts).
 */

export interface InProcessVm {
  /** The host user's home folder (a temporary folder of this machine). */
  readonly home: string;
  /** Where the host's claude "is": what the hosts file names and the preflight finds. */
  readonly claudePath: string;
  /** What claude's model answers, round by round (the end-to-end tier's ScriptedModel, in this process). */
  readonly claude: ClaudeScript;
  readonly jobs: InProcessJobs;
  /** A Host on this VM, as a Catalyst's adapter would be: one per Catalyst started on it. */
  createHost(): Host;
}

export function createInProcessVm(options: { home: string }): InProcessVm {
  const { home } = options;
  const claudePath = `${home}/.local/bin/claude`;
  const claude = new ClaudeScript();
  const conversations: Conversations = new Map();
  const factory: JobFactory = (spec, output) =>
    spec.argv[0] === claudePath || basename(spec.argv[0] ?? '') === 'claude'
      ? scriptedClaude(spec, output, { script: claude, conversations })
      : localJob(spec, output);
  const jobs = new InProcessJobs(factory);
  const preflight: Preflight = {
    claudePath,
    foundVia: 'config',
    version: '2.1.332 (Claude Code)',
    path: process.env['PATH'] ?? '/usr/bin:/bin',
    canRunWrapper: true,
    problems: [],
  };
  return {
    home,
    claudePath,
    claude,
    jobs,
    createHost(): Host {
      const vmJobs = jobs.vmJobs();
      const startRun = (spec: Parameters<Host['startRun']>[0]) => Promise.resolve(jobs.startRun(spec));
      return {
        label: 'in-process',
        ...createLocalFiles(),
        startRun,
        startCommand: startRun,
        jobs: vmJobs,
        homeDir: () => Promise.resolve(home),
        preflight: () => Promise.resolve(preflight),
        openTcp: openLocalTcp,
        openTerminal: () =>
          Promise.reject(new CatalystError('HOST_UNAVAILABLE', 'the in-process host has no terminals')),
        maxTerminals: 1,
        killRun(runTag) {
          jobs.kill(runTag);
          return Promise.resolve();
        },
        sweepRuns: () => Promise.resolve([]),
        close() {
          vmJobs.close();
          return Promise.resolve();
        },
      };
    },
  };
}
