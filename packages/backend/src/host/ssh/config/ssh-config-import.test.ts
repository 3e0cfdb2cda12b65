import { describe, expect, it } from 'vitest';
import { listSshConfigAliases } from './ssh-config-import.ts';
import { createMemorySshConfigSources } from './ssh-config-memory-sources.ts';

describe('listSshConfigAliases', () => {
  it('lists the Host words that name one host, from includes too, in file order and once each', async () => {
    const sources = createMemorySshConfigSources({
      files: {
        '/home/ann/.ssh/config': [
          'Host web db *.internal !bastion',
          '  User a',
          'Match host inactive',
          '  Include conf.d/*',
          'Host db web2 web?',
          'Host "quoted name" a,b -x',
        ].join('\n'),
        '/home/ann/.ssh/conf.d/10-vm': 'Host vm\n  HostName vm.example\nHost *\n',
        '/home/ann/.ssh/conf.d/20-more': 'Host vm2 web\n',
        '/etc/ssh/ssh_config': 'Host system-host\n',
      },
    });
    await expect(listSshConfigAliases(sources)).resolves.toEqual([
      'web',
      'db',
      'vm',
      'vm2',
      'web2',
      'system-host',
    ]);
  });

  it('reads only the given file when asked, as ssh -F does', async () => {
    const sources = createMemorySshConfigSources({
      files: { '/f': 'Host only\n', '/etc/ssh/ssh_config': 'Host x\n' },
    });
    await expect(listSshConfigAliases(sources, { configFile: '/f' })).resolves.toEqual(['only']);
  });
});
