import { createServer } from 'node:net';

/**
 * A TCP port of 127.0.0.1 that nothing listens on now (the test kit's VM is this machine, so it is free there too):
 * for an app a test starts on the VM itself, such as a preview's dev server. Another process may take it before
 * the caller does; the kernel hands out ports in turn, so that is rare.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || address === null) throw new Error('no port was assigned');
  return address.port;
}
