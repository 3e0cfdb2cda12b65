import type { Logger } from 'pino';
import { tightenIdeaModes } from '../ideas/private-modes.ts';
import type { HostRegistry } from './host-registry.ts';

/**
 * The start-up sweep: on every configured host, stop the runs whose watchdog is gone and remove the run dirs a
 * SIGKILLed wrapper left behind (Host.sweepRuns). (Sessions are the service's: it takes up their runs, see
 * job-takeup.ts.) A host that cannot be reached is logged and skipped; the runs
 * it holds stop by themselves when their lease lapses, only a dead wrapper's directory waits for the next start.
 * The ideas on each host are made private (0700 folders, 0600 files: ideas/private-modes.ts), as older Catalysts
 * did not make them. Never rejects.
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
      } catch (error) {
        // A stop right after a start closes the hosts under the sweep: that is no failure of the host.
        if (!hosts.isClosed) logger.warn({ host: name, err: error }, 'the start-up sweep of the host failed');
      }
      try {
        // Idea folders and files an older Catalyst left readable by every user of the host (issue 25).
        await tightenIdeaModes(host, (await hosts.store(name)).root);
      } catch (error) {
        if (!hosts.isClosed)
          logger.warn({ host: name, err: error }, 'could not make the ideas on the host private');
      }
    }),
  );
}
