import type { Api } from '@catalyst/protocol';
import type { AutopilotsPort, RunsPort } from '../service/idea-service.ts';
import type { ApiHandlers } from './api-binding.ts';

/**
 * Runs and autopilots (issue 12), for programmatic clients too. `GET /api/runs/:runId?waitMs=N` holds the request
 * until the run ends or N ms pass (at most MAX_RUN_WAIT_MS), so a client loops on it instead of polling fast.
 */

type RunRoutes =
  | 'startRun'
  | 'listRuns'
  | 'getRun'
  | 'cancelRun'
  | 'startAutopilot'
  | 'latestAutopilot'
  | 'getAutopilot'
  | 'cancelAutopilot';

export function runHandlers(service: RunsPort & AutopilotsPort): ApiHandlers<Pick<Api, RunRoutes>> {
  return {
    startRun: async ({ params, body }) => {
      const { mode, message, maxBudgetUsd } = body;
      const { runId } = await service.startRun(params.id, mode, message, { maxBudgetUsd });
      return { run: await service.getRun(runId) };
    },
    listRuns: async ({ params, query }) => ({ runs: await service.listRuns(params.id, query.limit) }),
    getRun: async ({ params, query }) => ({ run: await service.getRun(params.runId, query.waitMs) }),
    cancelRun: async ({ params }) => ({ run: await service.cancelRunById(params.runId) }),
    startAutopilot: async ({ params, body }) => ({
      autopilot: await service.startAutopilot(params.id, body),
    }),
    latestAutopilot: async ({ params }) => ({ autopilot: await service.latestAutopilot(params.id) }),
    getAutopilot: async ({ params }) => ({ autopilot: await service.getAutopilot(params.autopilotId) }),
    cancelAutopilot: async ({ params }) => ({ autopilot: await service.cancelAutopilot(params.autopilotId) }),
  };
}
