import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { createTempDir, type TempDir } from '@catalyst/testkit';
import { startCatalyst, type StartOptions as CatalystStartOptions } from '../../../src/app.ts';
import { loadConfig } from '../../../src/server/config.ts';
import { serviceUnderTest, type ServiceUnderTest } from '../../service-harness.ts';
import { createInProcessVm, type InProcessVm } from './in-process-host.ts';
import type { ClaudeScript } from './scripted-claude.ts';

/**
 * A whole Catalyst on an in-process VM (in-process-host.ts): port 0, its own config dir, the VM as its one host
 * (a `local` entry whose adapter is the VM's), and the end-to-end tier's helpers around it (service-harness.ts).
 */

export interface InProcessServiceOptions {
  /** The same config dir and ideas: a restarted backend. */
  reuse?: { configDir: TempDir; ideasRoot: string };
  env?: Record<string, string>;
  push?: CatalystStartOptions['push'];
  /** The built web app, served from the same origin (browser tests). */
  staticDir?: string;
}

export async function startInProcessService(
  vm: InProcessVm,
  options: InProcessServiceOptions = {},
): Promise<ServiceUnderTest> {
  const { reuse } = options;
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
    ...options.env,
  };
  const logged: string[] = [];
  const catalyst = await startCatalyst({
    config: loadConfig(env, { homeDir: configDir.path }),
    logger: pino({ level: 'info' }, { write: (line: string) => void logged.push(line) }),
    createHost: () => vm.createHost(),
    ...(options.push === undefined ? {} : { push: options.push }),
    ...(options.staticDir === undefined ? {} : { staticDir: options.staticDir }),
  });
  return serviceUnderTest(catalyst, { configDir, ideasRoot, logged });
}

/** What a test file starts once on the in-process host: a VM in a temporary home, and Catalyst on it. */
export interface InProcessFixture {
  readonly vm: InProcessVm;
  /** What claude's model answers (`vm.claude`): the end-to-end tier's ScriptedModel, in this process. */
  readonly model: ClaudeScript;
  service: ServiceUnderTest;
  readonly home: TempDir;
}

export async function startInProcessFixture(options: { staticDir?: string } = {}): Promise<InProcessFixture> {
  const home = await createTempDir('in-process-vm');
  const vm = createInProcessVm({ home: home.path });
  const service = await startInProcessService(vm, options);
  return { vm, model: vm.claude, service, home };
}

/**
 * A restarted backend: a new Catalyst on the fixture's config dir, ideas and VM becomes `fixture.service`. The
 * caller stops the old one first, as a crash or a restart would have.
 */
export async function restartInProcessService(
  fixture: InProcessFixture,
  staticDir?: string,
): Promise<ServiceUnderTest> {
  const { configDir, ideasRoot } = fixture.service;
  fixture.service = await startInProcessService(fixture.vm, {
    reuse: { configDir, ideasRoot },
    ...(staticDir === undefined ? {} : { staticDir }),
  });
  return fixture.service;
}

/** Stops Catalyst and every job left on the VM, and removes the config dir and the VM's home. */
export async function stopInProcessFixture(fixture: InProcessFixture): Promise<void> {
  await fixture.service.stop();
  fixture.vm.jobs.stopAll();
  await fixture.service.configDir.remove();
  await fixture.home.remove();
}
