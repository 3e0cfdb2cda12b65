import type { Api } from '@catalyst/protocol';
import type { Services } from '../../service/ports.ts';
import type { ApiHandlers } from '../../server/api-binding.ts';

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
  | 'cancelAutopilot'
  | 'getQueue'
  | 'addToQueue'
  | 'updateQueue'
  | 'clearQueue'
  | 'resumeQueue'
  | 'updateQueuedStep'
  | 'removeQueuedStep'
  | 'sendQueuedStepNow';

export function runHandlers({
  runs,
  autopilots,
}: Pick<Services, 'runs' | 'autopilots'>): ApiHandlers<Pick<Api, RunRoutes>> {
  return {
    startRun: async ({ params, body }) => {
      const { mode, message, maxBudgetUsd } = body;
      const { runId } = await runs.startRun(params.id, mode, message, { maxBudgetUsd });
      return { run: await runs.getRun(runId) };
    },
    listRuns: async ({ params, query }) => ({ runs: await runs.listRuns(params.id, query.limit) }),
    getRun: async ({ params, query }) => ({ run: await runs.getRun(params.runId, query.waitMs) }),
    cancelRun: async ({ params }) => ({ run: await runs.cancelRunById(params.runId) }),
    startAutopilot: async ({ params, body }) => ({
      autopilot: await autopilots.startAutopilot(params.id, body),
    }),
    latestAutopilot: async ({ params }) => ({ autopilot: await autopilots.latestAutopilot(params.id) }),
    getAutopilot: async ({ params }) => ({ autopilot: await autopilots.getAutopilot(params.autopilotId) }),
    cancelAutopilot: async ({ params }) => ({
      autopilot: await autopilots.cancelAutopilot(params.autopilotId),
    }),
    getQueue: async ({ params }) => ({ queue: await autopilots.queue(params.id) }),
    addToQueue: async ({ params, body }) => ({ queue: await autopilots.addToQueue(params.id, body) }),
    updateQueue: async ({ params, body }) => ({
      queue: await autopilots.setQueueBudget(params.id, body.maxBudgetUsd),
    }),
    clearQueue: async ({ params }) => ({ queue: await autopilots.clearQueue(params.id) }),
    resumeQueue: async ({ params, body }) => ({ queue: await autopilots.resumeQueue(params.id, body) }),
    updateQueuedStep: async ({ params, body }) => ({
      queue: await autopilots.updateQueuedStep(params.id, params.stepId, body),
    }),
    removeQueuedStep: async ({ params }) => ({
      queue: await autopilots.removeQueuedStep(params.id, params.stepId),
    }),
    sendQueuedStepNow: async ({ params }) => ({
      queue: await autopilots.sendQueuedStepNow(params.id, params.stepId),
    }),
  };
}
