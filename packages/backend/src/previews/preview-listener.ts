import type { Duplex } from 'node:stream';
import { CatalystError } from '../core/catalyst-error.ts';
import {
  chooseForwardAddress,
  LISTENING_PORTS_SCRIPT,
  parseListeningPorts,
  renderTagsInput,
  type TaggedListener,
} from './core/listening-ports.ts';
import { runHostCommand } from '../host/host-command.ts';
import type { Host } from '../host/host.ts';

/**
 * Whose listener a preview reaches (issue 25, finding 6). A preview forwards only to the address a process of the
 * idea's own (one carrying the run tag of its preview or of the run that listens) holds the port on, as the host's
 * `/proc/net/tcp*` says: never `localhost`, which sshd may resolve to the address another user of the VM listens
 * on, and never a port the idea's process has let go of, which anyone may bind next.
 */

const PORTS_TIMEOUT_MS = 15_000;

type LookupObserver = (tags: readonly string[], found: readonly TaggedListener[]) => void;
/** Empty but in tests. */
const lookupObservers = new Set<LookupObserver>();

/**
 * Told of every look-up that finished, with what it found; returns the way to stop. A test hook: a readiness probe
 * that finds nothing changes nothing else anyone can see, and a test must know one ran before it asserts it found
 * nothing (previews.test.ts).
 */
export function observeListenerLookups(observer: LookupObserver): () => void {
  lookupObservers.add(observer);
  return () => lookupObservers.delete(observer);
}

/** The listeners of the processes carrying `tags` on the host. */
export async function findListeners(host: Host, tags: readonly string[]): Promise<TaggedListener[]> {
  if (tags.length === 0) return [];
  const result = await runHostCommand(host, {
    argv: ['/bin/sh', '-c', LISTENING_PORTS_SCRIPT, 'catalyst-ports'],
    cwd: '/',
    input: [renderTagsInput(tags)],
    timeoutMs: PORTS_TIMEOUT_MS,
    maxStdoutBytes: 64 * 1024,
  });
  const found = parseListeningPorts(result.stdout.toString('utf8'));
  for (const observer of lookupObservers) observer(tags, found);
  return found;
}

export interface ListenerGateOptions {
  host: Host;
  port: number;
  /** The tags whose processes may answer now (none: the preview has ended, nothing is forwarded). */
  tags: () => readonly string[];
}

/**
 * A preview server's `openUpstream`: each new connection to the app is opened to the address a process of `tags`
 * listens on at that moment, looked up just before. Checking per new connection, not once per preview, is what
 * keeps a restarted dev server's port, or the port of a run that ended, from reaching whoever binds it in between;
 * it is cheap because connections are few: the preview server keeps them alive across requests, and connections
 * asked for while a look-up is under way share it. A connection once open stays with the process that accepted it.
 * Rejects with PREVIEW_PORT_NOT_LISTENING when no process of the idea listens on the port.
 */
export function createListenerGate(options: ListenerGateOptions): () => Promise<Duplex> {
  let lookup: Promise<string | undefined> | undefined;
  const resolveAddress = () => {
    lookup ??= findListeners(options.host, options.tags())
      .then((listeners) => chooseForwardAddress(listeners, options.port))
      .finally(() => {
        lookup = undefined;
      });
    return lookup;
  };
  return async () => {
    const address = await resolveAddress();
    if (address === undefined) {
      throw new CatalystError(
        'PREVIEW_PORT_NOT_LISTENING',
        `No process of this idea listens on port ${options.port} of its host now.`,
        { details: { port: options.port } },
      );
    }
    return options.host.openTcp(address, options.port);
  };
}
