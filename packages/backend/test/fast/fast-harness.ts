import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { createTempDir, type TempDir } from '@catalyst/testkit';
import { scanRunProcessesIn } from '../host-test-kit.ts';
import type { ServiceUnderTest } from '../service-harness.ts';
import { createInProcessVm, type InProcessVm } from '../support/in-process-host/in-process-host.ts';
import {
  startInProcessService,
  type InProcessServiceOptions,
} from '../support/in-process-host/in-process-service.ts';
import type { ClaudeScript } from '../support/in-process-host/scripted-claude.ts';

/**
 * The fast tier's set-up: a whole Catalyst (HTTP, WebSocket, every service) on the in-process host
 * (support/in-process-host), no sshd, no claude process. The same helpers as the end-to-end tier's
 * (service-harness.ts), with `vm.claude` scripting what claude prints turn by turn.
 */

export interface FastSuite {
  readonly vm: InProcessVm;
  /** What claude's model answers (`vm.claude`): the end-to-end tier's ScriptedModel, in this process. */
  readonly model: ClaudeScript;
  readonly service: ServiceUnderTest;
  /** A restarted backend on the same config dir, ideas and VM becomes `service` (the caller stops the old one). */
  restartService(): Promise<ServiceUnderTest>;
  /** Another Catalyst on the same VM (other settings, or `reuse`: a restart), stopped after the test. */
  startAnother(options?: InProcessServiceOptions): Promise<ServiceUnderTest>;
  /** The processes the idea's tools left running on this machine (a Bash call's `sleep`): none once it is over. */
  runProcesses(
    ideaId: string,
    on?: ServiceUnderTest,
  ): Promise<{ pid: number; cmdline: string; runTag: string }[]>;
}

export function useFastService(): FastSuite {
  let home: TempDir | undefined;
  let vm: InProcessVm | undefined;
  let service: ServiceUnderTest | undefined;
  const extra: (() => Promise<void>)[] = [];
  const started = () => {
    if (vm === undefined || service === undefined) throw new Error('the fast suite has not started');
    return { vm, service };
  };
  beforeAll(async () => {
    home = await createTempDir('in-process-vm');
    vm = createInProcessVm({ home: home.path });
    service = await startInProcessService(vm);
  });
  afterEach(async () => {
    await Promise.all(extra.splice(0).map((cleanUp) => cleanUp()));
    // Dropped either way: a reply one test left would answer the next test's first request.
    expect(started().vm.claude.discardReplies(), 'the test left scripted replies unused').toBe(0);
  });
  afterAll(async () => {
    await service?.stop();
    vm?.jobs.stopAll();
    await service?.configDir.remove();
    await home?.remove();
  });
  return {
    get vm() {
      return started().vm;
    },
    get model() {
      return started().vm.claude;
    },
    get service() {
      return started().service;
    },
    async restartService() {
      const { configDir, ideasRoot } = started().service;
      service = await startInProcessService(started().vm, { reuse: { configDir, ideasRoot } });
      return service;
    },
    async startAnother(options = {}) {
      const another = await startInProcessService(started().vm, options);
      extra.push(async () => {
        await another.stop();
        if (options.reuse === undefined) await another.configDir.remove();
      });
      return another;
    },
    runProcesses: (ideaId, on) => scanRunProcessesIn(join((on ?? started().service).ideasRoot, ideaId)),
  };
}
