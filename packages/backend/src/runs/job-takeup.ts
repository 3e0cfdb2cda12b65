import type { Logger } from 'pino';
import type { ActiveRuns } from './active-runs.ts';
import { isHeardFrom } from './followed-elsewhere.ts';
import type { HostRegistry } from '../hosts/host-registry.ts';
import type { IdeaHistories } from '../ideas/idea-histories.ts';
import { ideaOfJob } from './job-owners.ts';
import type { WarmSessions } from './warm-sessions.ts';

export interface JobTakeUpOptions {
  hosts: HostRegistry;
  histories: IdeaHistories;
  active: ActiveRuns;
  warm: WarmSessions;
  logger: Logger;
}

/**
 * At start: takes up the runs an earlier Catalyst left going in sessions on the hosts (opening an idea's history
 * does it, orphaned-runs.ts), then stops and removes the sessions nobody takes up (warm ones, ones whose run already
 * ended). A host that cannot be reached is logged and skipped. Never rejects.
 */
export async function takeUpJobs(options: JobTakeUpOptions): Promise<void> {
  const { hosts, logger } = options;
  await Promise.all(
    hosts.all().map(async ({ name, host }) => {
      try {
        const sessions = await host.jobs.list();
        const ideas = new Set(sessions.flatMap((session) => ideaOfJob(session.sessionId) ?? []));
        for (const id of ideas) {
          try {
            await options.histories.get(id);
          } catch (error) {
            if (!hosts.isClosed)
              logger.warn({ host: name, ideaId: id, err: error }, 'could not take up a session');
          }
        }
        const inUse = new Set([
          ...options.active.all().flatMap((run) => run.sessionId ?? []),
          ...options.warm.sessionIds(),
        ]);
        const others = sessions.filter((session) => !inUse.has(session.sessionId) && isHeardFrom(session));
        if (others.length > 0)
          logger.warn(
            { host: name, sessions: others.map((session) => session.sessionId) },
            'another Catalyst follows sessions on this host: left alone (two Catalysts on one ideas folder are not supported)',
          );
        const unused = sessions.filter((session) => !inUse.has(session.sessionId) && !isHeardFrom(session));
        for (const session of unused) {
          if (session.isAlive) await host.jobs.stop(session.sessionId);
          await host.jobs.remove(session.sessionId);
        }
        if (unused.length > 0)
          logger.info({ host: name, sessions: unused.length }, 'removed sessions nobody follows');
      } catch (error) {
        // As the start-up sweep (host-sweep.ts): a stop right after a start closes the hosts under it.
        if (!hosts.isClosed)
          logger.warn({ host: name, err: error }, 'the start-up look at the sessions failed');
      }
    }),
  );
}
