import type { SshConfigSources } from './ssh-config-sources.ts';
import { matchPattern } from './ssh-patterns.ts';

/**
 * Config files held in memory, for tests and for previewing a config that is not on disk. Each file may carry its
 * owner and mode (default: the user's, 0644). Globs match segment by segment with `*` and `?`, skipping dot files.
 */
export interface MemoryFile {
  readonly text: string;
  readonly uid?: number;
  readonly mode?: number;
}

export interface MemorySourcesOptions {
  readonly files: Readonly<Record<string, string | MemoryFile>>;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly localUser?: SshConfigSources['localUser'];
  readonly localHostname?: string;
  readonly runMatchExec?: (command: string) => Promise<boolean>;
}

const DEFAULT_USER = { name: 'ann', uid: 1000, home: '/home/ann' };

export function createMemorySshConfigSources(options: MemorySourcesOptions): SshConfigSources {
  const localUser = options.localUser ?? DEFAULT_USER;
  const fileAt = (path: string): MemoryFile | undefined => {
    const file = options.files[path];
    return typeof file === 'string' ? { text: file } : file;
  };
  return {
    readFile: (path) => Promise.resolve(fileAt(path)?.text),
    glob: (pattern) => Promise.resolve(globKeys(Object.keys(options.files), pattern)),
    stat: (path) => {
      const file = fileAt(path);
      if (file === undefined) return Promise.reject(new Error(`ENOENT: ${path}`));
      return Promise.resolve({ uid: file.uid ?? localUser.uid, mode: file.mode ?? 0o100644 });
    },
    env: options.env ?? { HOME: localUser.home },
    localUser,
    localHostname: options.localHostname ?? 'laptop.example.net',
    ...(options.runMatchExec === undefined ? {} : { runMatchExec: options.runMatchExec }),
  };
}

function globKeys(paths: readonly string[], pattern: string): string[] {
  const wanted = pattern.split('/');
  return paths
    .filter((path) => {
      const parts = path.split('/');
      return (
        parts.length === wanted.length &&
        parts.every((part, index) => {
          const segment = wanted[index] ?? '';
          return (!part.startsWith('.') || segment.startsWith('.')) && matchPattern(part, segment);
        })
      );
    })
    .sort();
}
