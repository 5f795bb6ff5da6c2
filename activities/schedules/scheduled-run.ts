import { ApplicationFailure } from '@temporalio/activity';
import { everyHostRoots } from '../../db/agent-hosts-store';
import { UseCaseError } from '../../services/errors';
import type { ExecutionDeps } from '../../services/executions';
import { createScheduledExecution } from '../../services/schedules/run';

export interface CreateScheduledExecutionInput {
  scheduleId: string;
  /** Chosen by the workflow (replay-safe), so a retried attempt finds the record it already created. */
  executionId: string;
}

/** The activities of `scheduledAgentRunWorkflow` (workflows/agents/scheduled.ts): each calls one use case. */
export function createScheduleActivities(deps: ExecutionDeps) {
  return {
    async createScheduledExecution(input: CreateScheduledExecutionInput): Promise<{ executionId: string } | null> {
      try {
        // Any worker of the shared queue takes the firing: the agent's directory may be another host's (docs/multi-host.md).
        const workdirRoots = await everyHostRoots(deps.db, deps.workdirRoots);
        return await createScheduledExecution({ ...deps, workdirRoots }, input.scheduleId, input.executionId);
      } catch (error) {
        // A refused input (the agent's working directory outside the roots) fails the same way again.
        if (error instanceof UseCaseError && error.kind === 'invalid')
          throw ApplicationFailure.nonRetryable(error.message, 'ScheduledRunRefused');
        throw error;
      }
    },
  };
}

export type ScheduleActivities = ReturnType<typeof createScheduleActivities>;
