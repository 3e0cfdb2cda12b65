import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, apiPath } from '@catalyst/protocol';
import { createTempDir, writeSshClientConfig, type TempDir } from '@catalyst/testkit';
import { callApi as call } from './api-call.ts';
import { useServiceFixture } from './service-harness.ts';

// A host whose key is not confirmed yet cannot run anything: it is not made the default (issue 40, item 7), so new
// ideas do not go where they cannot run. Once its key is confirmed it can be.

const suite = useServiceFixture();
let dir: TempDir;
let sshConfig: string;

beforeAll(async () => {
  dir = await createTempDir('host-default-key');
  ({ configPath: sshConfig } = await writeSshClientConfig(suite.sshd, {
    dir: dir.path,
    hosts: { devbox: suite.sshd.users.bash },
  }));
});
afterAll(async () => {
  await dir.remove();
});

describe('the default host', () => {
  it('is not a host whose new key waits for a confirmation', async () => {
    const catalyst = await suite.startAnother({ env: { CATALYST_SSH_CONFIG_FILE: sshConfig } });
    const ideasRoot = join(suite.sshd.users.bash.home, `catalyst-e2e-default-${String(Date.now())}`);
    const body = { name: 'devbox', target: 'devbox', claudePath: suite.claudePath, ideasRoot };
    expect((await call(catalyst, apiPath(API.addHost), { method: 'POST', body })).status).toBe(201);
    const checked = await call(catalyst, apiPath(API.checkHost, { params: { name: 'devbox' } }), {
      method: 'POST',
    });
    const { check } = API.checkHost.response.parse(checked.body);
    expect(check.unknownHostKey).toBeDefined();

    const path = apiPath(API.updateHost, { params: { name: 'devbox' } });
    const refused = await call(catalyst, path, { method: 'PATCH', body: { isDefault: true } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('devbox cannot be the default yet');
    const hosts = API.hosts.response.parse((await call(catalyst, apiPath(API.hosts))).body).hosts;
    expect(hosts.find((host) => host.isDefault)?.name).toBe('vm');

    const trusted = await call(catalyst, apiPath(API.trustHostKey, { params: { name: 'devbox' } }), {
      method: 'POST',
      body: { fingerprint: check.unknownHostKey?.fingerprint },
    });
    expect(trusted.status).toBe(200);
    const made = await call(catalyst, path, { method: 'PATCH', body: { isDefault: true } });
    expect(made.status).toBe(200);
    expect(API.updateHost.response.parse(made.body).host.isDefault).toBe(true);
  });

  it('is a host added as the default only once its check finds it ready', async () => {
    const catalyst = await suite.startAnother({ env: { CATALYST_SSH_CONFIG_FILE: sshConfig } });
    const ideasRoot = join(suite.sshd.users.bash.home, `catalyst-e2e-default-${String(Date.now())}`);
    const body = {
      name: 'devbox',
      target: 'devbox',
      claudePath: suite.claudePath,
      ideasRoot,
      isDefault: true,
    };
    const added = await call(catalyst, apiPath(API.addHost), { method: 'POST', body });
    expect(API.addHost.response.parse(added.body).host.isDefault).toBe(false);
    const defaultHost = async () =>
      API.hosts.response
        .parse((await call(catalyst, apiPath(API.hosts))).body)
        .hosts.find((host) => host.isDefault)?.name;
    const checked = await call(catalyst, apiPath(API.checkHost, { params: { name: 'devbox' } }), {
      method: 'POST',
    });
    const { check } = API.checkHost.response.parse(checked.body);
    expect(check.unknownHostKey).toBeDefined();
    expect(await defaultHost()).toBe('vm');

    const trusted = await call(catalyst, apiPath(API.trustHostKey, { params: { name: 'devbox' } }), {
      method: 'POST',
      body: { fingerprint: check.unknownHostKey?.fingerprint },
    });
    expect(API.trustHostKey.response.parse(trusted.body).check.isReady).toBe(true);
    expect(await defaultHost()).toBe('devbox');
  });
});
