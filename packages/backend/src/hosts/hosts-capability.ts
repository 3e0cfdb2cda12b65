import type { Logger } from 'pino';
import type {
  AddHostBody,
  HostDetailResponse,
  HostCheckView,
  HostEntryView,
  SshAliasesResponse,
  UpdateHostBody,
} from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import { sourceOf, type HostEntry } from '../host/host-entry.ts';
import { renderKnownHostsLine } from '../host/ssh/config/known-hosts-file.ts';
import { parseFingerprint } from '../host/ssh/config/host-key-fingerprint.ts';
import { listSshConfigAliases } from '../host/ssh/config/ssh-config-import.ts';
import type { SshConfigSources } from '../host/ssh/config/ssh-config-sources.ts';
import {
  checkHostTarget,
  entryOfAppHost,
  type AppHostDefaults,
  type AppHostRecord,
  type AppHostsStore,
} from './app-hosts-store.ts';
import type { Host } from '../host/host.ts';
import { checkHosts } from './host-health.ts';
import { refuseWhenHeld, type HostUsers } from './host-holds.ts';
import { checkHostSteps, type HostCheckResult } from './host-check.ts';
import { refuseDefaultBeforeKey } from './host-check-connect.ts';
import { changedRecord, refuseUnsafeRoot } from './app-host-changes.ts';
import type { HostRegistry, RegisteredHost } from './host-registry.ts';
import type { HostHealth, HostsPort } from '../service/ports.ts';

export interface HostsCapabilityOptions extends HostUsers {
  registry: HostRegistry;
  store: AppHostsStore;
  /** The hosts added in the app, as read at start; kept in step with the file. */
  records: AppHostRecord[];
  /** Where confirmed host keys go, and how a line is added there. */
  knownHosts: { path: string; append: (line: string) => Promise<void> };
  sources: () => SshConfigSources;
  defaults: AppHostDefaults;
  logger: Logger;
}

/**
 * Hosts (HostsPort): their health, and those added in the app (issue 28): added by alias or user@host[:port], changed,
 * removed, checked step by step, a new host key confirmed by its fingerprint. A change takes effect at once.
 */
export class HostsCapability implements HostsPort {
  readonly #options: HostsCapabilityOptions;
  /** The key each host presented at its last check that nothing knew: the only key a confirmation may write. */
  readonly #presented = new Map<string, NonNullable<HostCheckResult['presentedKey']>>();
  /** Each host's last check: what an idea's page shows of a host that is not ready. */
  readonly #lastChecks = new Map<string, { view: HostCheckView; order: number }>();
  /** Checks may overlap (one in the background, one asked for): only a later-started one replaces a result. */
  #checksStarted = 0;
  /** Hosts added to be the default: they become it once a check finds them ready, not before (issue 40, item 7). */
  readonly #defaultWhenReady = new Set<string>();
  /** The changes to the hosts (add, change, remove), one after the other. */
  #changes: Promise<unknown> = Promise.resolve();

  constructor(options: HostsCapabilityOptions) {
    this.#options = options;
  }

  async hosts(): Promise<HostHealth[]> {
    return (await checkHosts(this.#options.registry)).map((health) => {
      const check = this.#lastChecks.get(health.name)?.view;
      if (check === undefined) return health;
      const failed = check.steps
        .filter((step) => step.status === 'failed')
        .map((step) => `${step.id}: ${step.detail}`);
      return { ...health, lastCheck: { isReady: check.isReady, checkedAt: check.checkedAt, failed } };
    });
  }

  getHost(name: string): Promise<HostDetailResponse> {
    return Promise.resolve().then(() => ({
      host: this.#view(name),
      lastCheck: this.#lastChecks.get(name)?.view ?? null,
    }));
  }

  /**
   * Checks in the background (never rejects): the hosts added in the app at start, a host once added or changed, so
   * an idea's page can say a host is not ready before a run fails on it.
   */
  checkSoon(names: readonly string[]): void {
    for (const name of names) {
      this.checkHost(name).catch((error: unknown) => {
        this.#options.logger.warn({ host: name, err: error }, 'a background host check failed');
      });
    }
  }

  /** Changes go one at a time (issue 39): each builds the new list from the last one saved, none is lost. */
  addHost(body: AddHostBody): Promise<HostEntryView> {
    return this.#serially(async () => {
      refuseUnsafeRoot(body.ideasRoot);
      const { registry } = this.#options;
      if (registry.all().some((host) => host.name === body.name))
        throw new CatalystError('HOST_EXISTS', `There is a host named ${body.name} already.`);
      await checkHostTarget(body.target, { sources: this.#options.sources(), ...this.#configFile() });
      const record: AppHostRecord = {
        name: body.name,
        target: body.target.trim(),
        ...(body.ideasRoot === undefined ? {} : { ideasRoot: body.ideasRoot }),
        ...(body.claudePath === undefined ? {} : { claudePath: body.claudePath }),
      };
      const registered = registry.add(this.#entryOf(record));
      const previousDefault = registry.defaultName;
      if (body.isDefault === true) this.#defaultWhenReady.add(record.name);
      try {
        await this.#save([...this.#options.records, record]);
      } catch (error) {
        // Nothing half-saved: the host is gone again if the file could not take it.
        registry.setDefault(previousDefault);
        this.#defaultWhenReady.delete(record.name);
        await registry.remove(record.name).close();
        throw error;
      }
      this.checkSoon([registered.name]);
      return this.#view(registered.name);
    });
  }

  updateHost(name: string, body: UpdateHostBody): Promise<HostEntryView> {
    return this.#serially(async () => {
      refuseUnsafeRoot(body.ideasRoot);
      const record = this.#appRecord(name);
      const changed = changedRecord(record, body);
      const isConnectionChange = JSON.stringify(changed) !== JSON.stringify(record);
      if (body.isDefault === true && !isConnectionChange)
        refuseDefaultBeforeKey(name, this.#presented.get(name)?.key);
      if (isConnectionChange) {
        if (body.target !== undefined)
          await checkHostTarget(body.target, { sources: this.#options.sources(), ...this.#configFile() });
        // No await from the check to the swap: a run cannot start on the old connection in between.
        refuseWhenHeld(name, this.#options.holdsOf(name));
        await this.#closeOld(name, this.#options.registry.replace(this.#entryOf(changed)));
      }
      if (body.isDefault === true) this.#options.registry.setDefault(name);
      await this.#save(this.#options.records.map((known) => (known.name === name ? changed : known)));
      this.#presented.delete(name);
      this.#lastChecks.delete(name);
      if (isConnectionChange) this.checkSoon([name]);
      return this.#view(name);
    });
  }

  deleteHost(name: string, options: { confirm: boolean }): Promise<void> {
    return this.#serially(async () => {
      this.#appRecord(name);
      refuseWhenHeld(name, this.#options.holdsOf(name));
      const count = await this.#options.countIdeas(name);
      if (count > 0 && !options.confirm) {
        throw new CatalystError(
          'HOST_HAS_IDEAS',
          `${name} holds ${count} idea${count === 1 ? '' : 's'}. They stay on the VM and come back if you add the host again; confirm to remove it anyway.`,
          { details: { ideas: count } },
        );
      }
      // Checked again after the count's await, and nothing awaited from there to the removal.
      refuseWhenHeld(name, this.#options.holdsOf(name));
      await this.#closeOld(name, this.#options.registry.remove(name));
      this.#presented.delete(name);
      this.#lastChecks.delete(name);
      this.#defaultWhenReady.delete(name);
      await this.#save(this.#options.records.filter((record) => record.name !== name));
    });
  }

  /** What went over the host's old connection ends by its tags while the pool is still open; then the pool closes. */
  async #closeOld(name: string, old: Host): Promise<void> {
    await this.#options.endAllOn(name);
    await old.close();
  }

  #serially<T>(change: () => Promise<T>): Promise<T> {
    const result = this.#changes.then(change);
    this.#changes = result.catch(() => undefined);
    return result;
  }

  async checkHost(name: string): Promise<HostCheckView> {
    const registered = this.#options.registry.get(name);
    const order = ++this.#checksStarted;
    // A connection of its own: what was learnt before (a home, a claude) must not hide what changed since.
    const fresh = this.#options.registry.createFresh(name);
    try {
      const result = await checkHostSteps(registered.entry, fresh);
      if (result.view.isReady) this.#options.registry.forget(name);
      // A host removed or changed meanwhile, or a check started later and done first: this result is not the last.
      const isCurrent = this.#options.registry.all().some((host) => host.entry === registered.entry);
      if (isCurrent && order > (this.#lastChecks.get(name)?.order ?? 0)) {
        this.#lastChecks.set(name, { view: result.view, order });
        if (result.presentedKey === undefined) this.#presented.delete(name);
        else this.#presented.set(name, result.presentedKey);
        if (result.view.isReady && this.#defaultWhenReady.delete(name)) await this.#makeDefault(name);
      }
      return result.view;
    } finally {
      await fresh.close();
    }
  }

  #makeDefault(name: string): Promise<void> {
    return this.#serially(async () => {
      // Removed meanwhile: nothing to make the default.
      if (!this.#options.registry.all().some((host) => host.name === name)) return;
      this.#options.registry.setDefault(name);
      await this.#save([...this.#options.records]);
    });
  }

  async trustHostKey(name: string, fingerprint: string): Promise<HostCheckView> {
    this.#options.registry.get(name);
    const pasted = parseFingerprint(fingerprint);
    const presented = this.#presented.get(name);
    if (presented === undefined) {
      throw new CatalystError(
        'SSH_HOST_KEY_UNKNOWN',
        `No new host key of ${name} waits for a confirmation: check the host first, then confirm the key it shows.`,
      );
    }
    if (presented.key.fingerprint !== pasted) {
      throw new CatalystError(
        'FINGERPRINT_MISMATCH',
        `The fingerprint you gave (${pasted}) is not the one ${presented.key.hop || name} presented (${presented.key.fingerprint}). Do not confirm it until you know why they differ.`,
      );
    }
    const blob = Buffer.from(presented.publicKey.split(' ')[1] ?? '', 'base64');
    await this.#options.knownHosts.append(renderKnownHostsLine({ name: presented.key.knownHostsName, blob }));
    this.#options.logger.info(
      { host: name, fingerprint: pasted, knownHosts: this.#options.knownHosts.path },
      'a host key was confirmed',
    );
    this.#presented.delete(name);
    return this.checkHost(name);
  }

  async sshAliases(): Promise<SshAliasesResponse> {
    try {
      return { aliases: await listSshConfigAliases(this.#options.sources(), this.#configFile()) };
    } catch (error) {
      return { aliases: [], problem: error instanceof Error ? error.message : String(error) };
    }
  }

  #configFile(): { configFile?: string } {
    const file = this.#options.defaults.sshConfigFile;
    return file === undefined ? {} : { configFile: file };
  }

  #entryOf(record: AppHostRecord): HostEntry {
    return entryOfAppHost(record, this.#options.defaults);
  }

  #appRecord(name: string): AppHostRecord {
    this.#options.registry.get(name);
    const record = this.#options.records.find((known) => known.name === name);
    if (record === undefined) {
      throw new CatalystError(
        'HOST_READ_ONLY',
        `${name} comes from CATALYST_CONFIG_FILE: change it there (Catalyst reads it at start).`,
      );
    }
    return record;
  }

  async #save(records: AppHostRecord[]): Promise<void> {
    const defaultHost = this.#options.registry.defaultName;
    const isAppDefault = records.some((record) => record.name === defaultHost);
    await this.#options.store.save({ version: 1, hosts: records, ...(isAppDefault ? { defaultHost } : {}) });
    this.#options.records.splice(0, this.#options.records.length, ...records);
  }

  #view(name: string): HostEntryView {
    return viewOf(this.#options.registry.get(name));
  }
}

export function viewOf(registered: RegisteredHost): HostEntryView {
  const { entry } = registered;
  const addedAs = entry.kind === 'ssh' ? entry.addedAs : undefined;
  return {
    name: registered.name,
    kind: entry.kind,
    source: sourceOf(entry),
    ...(addedAs === undefined ? {} : { target: addedAs }),
    isDefault: registered.isDefault,
    ideasRoot: entry.ideasRoot,
    ...(entry.claudePath === undefined ? {} : { claudePath: entry.claudePath }),
  };
}
