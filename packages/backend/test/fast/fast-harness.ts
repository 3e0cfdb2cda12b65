import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { createTempDir, type TempDir } from '@catalyst/testkit';
import { startCatalyst } from '../../src/app.ts';
import { loadConfig } from '../../src/server/config.ts';
import { serviceUnderTest, type ServiceUnderTest } from '../service-harness.ts';
import { createInProcessVm, type InProcessVm } from '../support/in-process-host/in-process-host.ts';

/**
 * The fast tier's set-up: a whole Catalyst (HTTP, WebSocket, every service) on the in-process host
 * (support/in-process-host), no sshd, no claude process. The same helpers as the end-to-end tier's
 * (service-harness.ts), with `vm.claude` scripting what claude prints turn by turn.
 */

export interface FastSuite {
  readonly vm: InProcessVm;
  readonly service: ServiceUnderTest;
  /** A restarted backend on the same config dir, ideas and VM becomes `service` (the caller stops the old one). */
  restartService(): Promise<ServiceUnderTest>;
}

async function startOn(
  vm: InProcessVm,
  reuse?: { configDir: TempDir; ideasRoot: string },
): Promise<ServiceUnderTest> {
  const configDir = reuse?.configDir ?? (await createTempDir('catalyst-config'));
  const ideasRoot = reuse?.ideasRoot ?? join(vm.home, `catalyst-${randomBytes(4).toString('hex')}`);
  const hostsFile = join(configDir.path, 'hosts.json');
  const host = { name: 'vm', kind: 'local', claudePath: vm.claudePath, ideasRoot };
  await writeFile(hostsFile, JSON.stringify({ hosts: [host], defaultHost: 'vm' }));
  const env = {
    CATALYST_PORT: '0',
    CATALYST_CONFIG_DIR: configDir.path,
    CATALYST_CONFIG_FILE: hostsFile,
    CATALYST_LOG_LEVEL: 'silent',
  };
  const logged: string[] = [];
  const catalyst = await startCatalyst({
    config: loadConfig(env, { homeDir: configDir.path }),
    logger: pino({ level: 'info' }, { write: (line: string) => void logged.push(line) }),
    createHost: () => vm.createHost(),
  });
  return serviceUnderTest(catalyst, { configDir, ideasRoot, logged });
}

export function useFastService(): FastSuite {
  let home: TempDir | undefined;
  let vm: InProcessVm | undefined;
  let service: ServiceUnderTest | undefined;
  const started = () => {
    if (vm === undefined || service === undefined) throw new Error('the fast suite has not started');
    return { vm, service };
  };
  beforeAll(async () => {
    home = await createTempDir('in-process-vm');
    vm = createInProcessVm({ home: home.path });
    service = await startOn(vm);
  });
  afterEach(() => {
    expect(started().vm.claude.discard(), 'the test left scripted turns unused').toBe(0);
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
    get service() {
      return started().service;
    },
    async restartService() {
      const { configDir, ideasRoot } = started().service;
      service = await startOn(started().vm, { configDir, ideasRoot });
      return service;
    },
  };
}
