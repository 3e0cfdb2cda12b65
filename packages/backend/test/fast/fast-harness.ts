import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { scanRunProcessesIn } from '../host-test-kit.ts';
import type { ServiceUnderTest } from '../service-harness.ts';
import type { InProcessVm } from '../support/in-process-host/in-process-host.ts';
import {
  restartInProcessService,
  startInProcessFixture,
  startInProcessService,
  stopInProcessFixture,
  type InProcessFixture,
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
  let fixture: InProcessFixture | undefined;
  const extra: (() => Promise<void>)[] = [];
  const started = () => {
    if (fixture === undefined) throw new Error('the fast suite has not started');
    return fixture;
  };
  beforeAll(async () => {
    fixture = await startInProcessFixture();
  });
  afterEach(async () => {
    await Promise.all(extra.splice(0).map((cleanUp) => cleanUp()));
    // Dropped either way: a reply one test left would answer the next test's first request.
    expect(started().model.discardReplies(), 'the test left scripted replies unused').toBe(0);
  });
  afterAll(async () => {
    if (fixture !== undefined) await stopInProcessFixture(fixture);
  });
  return {
    get vm() {
      return started().vm;
    },
    get model() {
      return started().model;
    },
    get service() {
      return started().service;
    },
    restartService: () => restartInProcessService(started()),
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
