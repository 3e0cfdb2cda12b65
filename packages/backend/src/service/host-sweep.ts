import type { Logger } from 'pino';
import type { HostRegistry } from './host-registry.ts';

/**
 * The start-up sweep: on every configured host, stop the runs whose watchdog is gone and remove the run dirs a
 * SIGKILLed wrapper left behind (Host.sweepRuns), and remove the files of sessions that are over. A host that cannot be reached is logged and skipped; the runs
 * it holds stop by themselves when their lease lapses, only a dead wrapper's directory waits for the next start.
 * Never rejects.
 */
export async function sweepHosts(hosts: HostRegistry, logger: Logger): Promise<void> {
  await Promise.all(
    hosts.all().map(async ({ name, host }) => {
      try {
        const runTags = await host.sweepRuns();
        if (runTags.length > 0)
          logger.warn({ host: name, runTags }, 'stopped runs that had lost their wrapper');
        // What deletes left in the ideas' trash (idea-store.ts, TRASH_DIR).
        await (await hosts.store(name)).emptyTrash();
        // Sessions that ended while no Catalyst followed them (it was killed): their runs are ended as
        // connection_lost when their ideas open (orphaned-runs.ts), so their files are of no use any more.
        const over = (await host.sessions.list()).filter((session) => !session.isAlive);
        for (const session of over) await host.sessions.remove(session.sessionId);
        if (over.length > 0)
          logger.info({ host: name, sessions: over.length }, 'removed sessions that were over');
      } catch (error) {
        logger.warn({ host: name, err: error }, 'the start-up sweep of the host failed');
      }
    }),
  );
}
