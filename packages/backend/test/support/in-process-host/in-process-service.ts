import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { createTempDir, type TempDir } from '@catalyst/testkit';
import { startCatalyst, type StartOptions as CatalystStartOptions } from '../../../src/app.ts';
import { loadConfig } from '../../../src/server/config.ts';
import { serviceUnderTest, type ServiceUnderTest } from '../../service-harness.ts';
import type { InProcessVm } from './in-process-host.ts';

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
