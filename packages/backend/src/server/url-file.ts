import { join } from 'node:path';
import type { Logger } from 'pino';
import { writeFileAtomically } from '../service/atomic-file.ts';

/**
 * `<configDir>/url`, beside the token: where a program on this machine reaches the Catalyst that wrote both, written
 * each time it starts listening (issue 40, item 4). The `catalyst` command reads it, so it finds a Catalyst on
 * another port (CATALYST_PORT) with only CATALYST_CONFIG_DIR in common. JSON `{ "url": "http://127.0.0.1:7455" }`,
 * 0600, written whole (atomic-file.ts).
 */
export const URL_FILE_NAME = 'url';

/** The address this machine reaches a listener on: a wildcard bind is reached on loopback. */
export function localUrlOf(bind: string, port: number): string {
  if (bind === '0.0.0.0') return `http://127.0.0.1:${String(port)}`;
  if (bind === '::') return `http://[::1]:${String(port)}`;
  const host = bind.includes(':') ? `[${bind}]` : bind;
  return `http://${host}:${String(port)}`;
}

/**
 * Writes the file. A failure is logged, not fatal: Catalyst serves anyway, and `catalyst --url` still reaches it.
 */
export async function writeUrlFile(configDir: string, url: string, logger: Logger): Promise<void> {
  const path = join(configDir, URL_FILE_NAME);
  try {
    await writeFileAtomically(path, `${JSON.stringify({ url })}\n`);
  } catch (error) {
    logger.warn({ err: error, path }, 'cannot write the url file: `catalyst` needs --url or CATALYST_URL');
  }
}
