import type { Server } from 'node:http';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { pairingLink } from '@catalyst/protocol';
import { pino, type Logger } from 'pino';
import { createLocalHost } from './host/local-host.ts';
import type { Host } from './host/host.ts';
import { createSshHost } from './host/ssh/ssh-host.ts';
import { createAuth } from './auth/auth.ts';
import { describeConfig, type Config, type HostEntry } from './server/config.ts';
import { createHttpApp } from './server/http-app.ts';
import { createPairingCodes } from './auth/pairing-codes.ts';
import { lanAddressesOf, pairingOrigin } from './auth/pairing-origin.ts';
import { startPreviewProxy } from './previews/edge/preview-proxy.ts';
import { openBrowserLogins } from './auth/logins-file.ts';
import { resolveCatalystId } from './server/catalyst-id-file.ts';
import { resolveToken, type TokenSource } from './auth/token-file.ts';
import { localUrlOf, writeUrlFile } from './server/url-file.ts';
import { createWsHub } from './server/ws-hub.ts';
import { HostRegistry } from './hosts/host-registry.ts';
import { sweepHosts } from './hosts/host-sweep.ts';
import { IdeaIndex } from './ideas/idea-index.ts';
import {
  AppHostsStore,
  appendKnownHost,
  catalystKnownHostsPath,
  entryOfAppHost,
} from './hosts/app-hosts-store.ts';
import type { WiredServices } from './service/service-options.ts';
import { wireServices } from './wire-services.ts';
import { openWebPush, type OpenWebPushOptions } from './push/open-web-push.ts';
import { createCatalystServer } from './server/http-server.ts';
import { PushNotifier } from './push/push-notifier.ts';
import { ViewingTabs } from './push/viewing-tabs.ts';

/**
 * The composition root: picks the adapters the config names, and wires the service to the HTTP and WebSocket
 * edges. `main.ts` calls it for the real process; tests call it to run a whole Catalyst on port 0.
 */
export interface StartOptions {
  config: Config;
  logger?: Logger;
  /** The built frontend, served from the same origin. */
  staticDir?: string;
  /**
   * Replaces how a configured host becomes an adapter (tests pin SSH timings and pool limits); `hooks` are what the
   * service listens to on a host (SshHostOptions).
   */
  createHost?: (entry: HostEntry, hooks: HostHooks) => Host;
  /**
   * The claude CLI this project installed, for the local host when this machine has none of its own. Never for an
   * SSH host: the path exists on this machine only, and a VM finds its own claude (or is told in the hosts file).
   */
  bundledClaudePath?: string;
  /** The clock of browser sessions (their ends, last seen) and pairing codes; tests move it. Date.now otherwise. */
  now?: () => number;
  /** Web Push's test settings: the test kit's push service on http://127.0.0.1, shorter retries. */
  push?: Pick<OpenWebPushOptions, 'allowLoopbackHttp' | 'sending'>;
}

export interface RunningCatalyst {
  readonly url: string;
  readonly port: number;
  readonly token: string;
  readonly isTokenGenerated: boolean;
  readonly tokenSource: TokenSource;
  /** The service, capability by capability (service/ports.ts). */
  readonly services: WiredServices;
  /** Settles (never rejects) once the start-up sweep of every host is done (hosts/host-sweep.ts). */
  readonly swept: Promise<void>;
  /**
   * A one-time link that signs another device in (issue 29), as `POST /api/pairing` makes one, pointing where
   * another device can reach Catalyst: for the QR code printed at start-up. Valid once, for 10 minutes.
   */
  createPairingLink(): { url: string; expiresAt: number };
  /**
   * Stops accepting runs, flushes histories, closes everything. Running runs are cancelled cleanly, or with
   * `keepRuns` (a restart, an update) left going in their sessions on the hosts, for the next start to take up.
   */
  close(options?: { keepRuns?: boolean }): Promise<void>;
}

/** What the service listens to on an SSH host. */
export interface HostHooks {
  /** A run waits for one of the host's channels and none can be added (SshHostOptions.onRunChannelShortage). */
  onRunChannelShortage: () => void;
}

export function createHostFromEntry(
  entry: HostEntry,
  places: {
    bundledClaudePath?: string | undefined;
    fileTimeoutMs?: number | undefined;
    configDir: string;
    /** A run waits for one of the host's channels and none can be added (SshHostOptions.onRunChannelShortage). */
    onRunChannelShortage?: () => void;
  },
): Host {
  if (entry.kind === 'local') {
    return createLocalHost({
      ...(entry.claudePath === undefined ? {} : { claudePath: entry.claudePath }),
      ...(places.bundledClaudePath === undefined ? {} : { bundledClaudePath: places.bundledClaudePath }),
    });
  }
  const claudePath = entry.claudePath === undefined ? {} : { claudePath: entry.claudePath };
  const options = {
    ...(places.fileTimeoutMs === undefined ? {} : { fileTimeoutMs: places.fileTimeoutMs }),
    ...(places.onRunChannelShortage === undefined
      ? {}
      : { onRunChannelShortage: places.onRunChannelShortage }),
  };
  const { connect } = entry;
  if (connect.via === 'fields') {
    const { address, port, user, privateKeyPath, hostKey } = connect;
    return createSshHost({ address, port, user, privateKeyPath, hostKey, ...claudePath }, options);
  }
  return createSshHost(
    {
      sshAlias: connect.alias,
      // Keys a person confirmed in Catalyst, never written into their own known_hosts (docs/security.md).
      knownHostsFile: catalystKnownHostsPath(places.configDir),
      ...(connect.configFile === undefined ? {} : { sshConfigFile: connect.configFile }),
      ...(connect.user === undefined ? {} : { user: connect.user }),
      ...(connect.port === undefined ? {} : { port: connect.port }),
      ...(connect.hostKey === undefined ? {} : { hostKey: connect.hostKey }),
      ...claudePath,
    },
    options,
  );
}

export async function startCatalyst(options: StartOptions): Promise<RunningCatalyst> {
  const { config } = options;
  const logger = options.logger ?? pino({ level: config.logLevel });
  const { token, generated, source: tokenSource } = await resolveToken(config, logger);
  const index = await IdeaIndex.open(join(config.configDir, 'ideas-index.json'), logger);
  const catalystId = await resolveCatalystId(config.configDir, logger);
  // A run waits for a channel of a host: an idle warm session there gives its own back, once the service is wired.
  let onRunChannelShortage: (hostName: string) => void = () => undefined;
  const hooksOf = (entry: HostEntry): HostHooks => ({
    onRunChannelShortage: () => {
      onRunChannelShortage(entry.name);
    },
  });
  const createHost = (entry: HostEntry): Host =>
    options.createHost?.(entry, hooksOf(entry)) ??
    createHostFromEntry(entry, {
      bundledClaudePath: options.bundledClaudePath,
      fileTimeoutMs: config.fileTimeoutMs,
      configDir: config.configDir,
      ...hooksOf(entry),
    });
  const appHosts = await openAppHosts(config, logger);
  const hosts = new HostRegistry([...config.hosts, ...appHosts.entries], appHosts.defaultHost, createHost);
  // A reverse proxy may pass its own Host on or not: its public origin is the app's own either way.
  const allowedOrigins = [...config.allowedOrigins, ...(config.publicUrl ? [config.publicUrl] : [])];
  const logins = await openBrowserLogins({
    configDir: config.configDir,
    token,
    lifetimeMs: config.sessionDays * 24 * 3_600_000,
    logger,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const auth = createAuth({ token, allowedOrigins, logins });
  const push = await openWebPush({
    configDir: config.configDir,
    ...(config.publicUrl === undefined ? {} : { publicUrl: config.publicUrl }),
    ...(config.pushServices === undefined ? {} : { pushServices: config.pushServices }),
    logger,
    ...options.push,
  });
  const viewing = new ViewingTabs();
  const notifier = new PushNotifier({
    push,
    viewing,
    // Called once events come, by then the services exist.
    getIdea: (id) => services.ideas.getIdea(id),
    getAutopilot: (id) => services.autopilots.getAutopilot(id),
    isSignedIn: (id) => logins.list().some((login) => login.id === id),
    logger,
  });
  const services = wireServices({
    catalystId,
    onEvent: (ideaId, event) => {
      notifier.onEvent(ideaId, event);
    },
    hosts,
    index,
    logger,
    inactivityTimeoutMs: config.claudeTimeoutMs,
    maxRunMs: config.maxRunMs,
    detachedLimitMs: config.detachedLimitMs,
    leaseMs: config.leaseMs,
    warmIdleMs: config.warmIdleMs,
    checkpointTimeoutMs: config.checkpointTimeoutMs,
    previews: {
      bind: config.bind,
      idleMs: config.previewIdleMs,
      isCatalystToken: (candidate) => auth.isValidToken(candidate),
      startServer: startPreviewProxy,
    },
    warmPerHost: config.warmPerHost,
    qa: config.qa,
    appHosts: {
      store: appHosts.store,
      records: appHosts.records,
      knownHosts: {
        path: appHosts.knownHostsPath,
        append: (line) => appendKnownHost(appHosts.knownHostsPath, line),
      },
      defaults: appHosts.defaults,
    },
  });
  onRunChannelShortage = (hostName) => {
    services.yieldRunChannel(hostName);
  };
  // Devices of logins that ended while no listener heard it (a new token ends them all; a crash between the two
  // files) are forgotten at start; then a browser signed out loses its devices as it goes.
  const signedIn = new Set(logins.list().map((login) => login.id));
  for (const orphan of new Set(push.subscriptions.list().map((kept) => kept.sessionId))) {
    if (!signedIn.has(orphan)) await push.subscriptions.removeSession(orphan);
  }
  logins.onEnded((id) => {
    push.subscriptions.removeSession(id).catch((error: unknown) => {
      logger.warn({ err: error }, 'could not forget the push subscriptions of a signed-out browser');
    });
  });
  // In the background: an unreachable host must not hold up the start. The runs an earlier Catalyst left going
  // in sessions on the hosts are taken up (a browser that opens their idea first has them taken up then).
  const swept = Promise.all([sweepHosts(hosts, logger), services.takeUp()]).then(() => undefined);
  const pairingCodes = createPairingCodes(options.now === undefined ? {} : { now: options.now });
  let port = config.port;
  const originOf = (requestHost: string | undefined) =>
    pairingOrigin({
      publicUrl: config.publicUrl,
      requestHost,
      bind: config.bind,
      port,
      lanAddresses: lanAddressesOf(networkInterfaces()),
    });
  const app = createHttpApp({
    services,
    auth,
    logger,
    pairing: { codes: pairingCodes, originFor: (request) => originOf(request.headers.host) },
    push,
    secureCookie: config.publicUrl?.startsWith('https:') ?? false,
    ...(options.staticDir ? { staticDir: options.staticDir } : {}),
  });
  const server = createCatalystServer(app);
  const hub = createWsHub({ server, services, auth, logger, viewing, terminals: services.terminals });
  port = await listen(server, config.port, config.bind);
  const host = config.bind.includes(':') ? `[${config.bind}]` : config.bind;
  logger.info({ config: describeConfig(config), port }, 'catalyst listening');
  await writeUrlFile(config.configDir, localUrlOf(config.bind, port), logger);
  return {
    url: `http://${host}:${port}`,
    port,
    token,
    isTokenGenerated: generated,
    tokenSource,
    services,
    swept,
    createPairingLink() {
      const { code, expiresAt } = pairingCodes.create();
      return { url: pairingLink(originOf(undefined), code), expiresAt };
    },
    async close(closing = {}) {
      await services.shutdown(closing);
      await hub.close();
      await push.close();
      await closeHttpServer(server);
      await hosts.close();
      // The start-up sweep and take-up may still be under way (a stop right after a start): with the hosts closed
      // they end at once, and nothing of theirs writes after the stop (a folder removed next was found not empty).
      await swept.catch(() => undefined);
      await logins.close();
    },
  };
}

/** What an answer still on its way at close may take before its connection is cut. */
const CLOSE_GRACE_MS = 2_000;

/**
 * Stops taking connections and ends the open ones: idle ones at once, the rest after a short grace. Node's close()
 * waits for every connection, and one that never sent a request (a browser's preconnect, a proxy's spare) is not
 * idle to it: it would hold Catalyst's stop for as long as the browser keeps it (measured on Node 20).
 */
async function closeHttpServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  server.closeIdleConnections();
  const cut = setTimeout(() => {
    server.closeAllConnections();
  }, CLOSE_GRACE_MS);
  try {
    await closed;
  } finally {
    clearTimeout(cut);
  }
}

/**
 * The hosts added in the app (hosts/app-hosts-store.ts), beside those of CATALYST_CONFIG_FILE: one whose name the
 * file took since is left out, with a warning; the default is the app's choice if it still names a host.
 */
async function openAppHosts(config: Config, logger: Logger) {
  const store = new AppHostsStore(join(config.configDir, 'added-hosts.json'), logger);
  const file = await store.read();
  const taken = new Set(config.hosts.map((host) => host.name));
  const records = file.hosts.filter((record) => {
    if (!taken.has(record.name)) return true;
    logger.warn(
      { host: record.name },
      'a host added in the app has the name of one in CATALYST_CONFIG_FILE: left out',
    );
    return false;
  });
  const defaults = {
    ideasRoot: config.ideasRoot,
    ...(config.claudePath === undefined ? {} : { claudePath: config.claudePath }),
    ...(config.sshConfigFile === undefined ? {} : { sshConfigFile: config.sshConfigFile }),
  };
  const entries = records.flatMap((record) => {
    try {
      return [entryOfAppHost(record, defaults)];
    } catch (error) {
      logger.warn({ host: record.name, err: error }, 'a host added in the app cannot be read: left out');
      return [];
    }
  });
  const names = new Set([...taken, ...entries.map((entry) => entry.name)]);
  const defaultHost =
    file.defaultHost !== undefined && names.has(file.defaultHost) ? file.defaultHost : config.defaultHost;
  return {
    store,
    records,
    entries,
    defaultHost,
    defaults,
    knownHostsPath: catalystKnownHostsPath(config.configDir),
  };
}

function listen(server: Server, port: number, bind: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, bind, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}
