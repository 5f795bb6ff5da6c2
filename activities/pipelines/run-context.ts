import { ApplicationFailure } from '@temporalio/activity';
import type Redis from 'ioredis';
import type { Database } from '../../db';
import { getExecution, type Execution } from '../../db/executions-store';
import { FAILURE_TYPES } from '../../domain/failure-types';
import type { Config } from '../../lib/config';
import { liveTargetOf, publishLiveMessage, type PipelineLiveMessage } from '../../lib/live-output';
import type { Logger } from '../../lib/logger';
import { runStepRecords } from '../../services/pipelines/run-steps';

/** What every pipeline activity works with (the agents worker builds it: workers/agents.ts). */
export interface PipelineActivityDeps {
  db: Database;
  redis: Redis;
  config: Pick<Config, 'orchestration'>;
  logger: Logger;
}

/** The failure type of a step that cannot start (its pipeline, step or agent gone, its agent inactive): never retried. */
export const STEP_FAILED = FAILURE_TYPES.pipelineStepFailed;

/** The run's record; ExecutionNotFound (never retried) when it is gone or not a pipeline run. */
export async function runOf({ db }: PipelineActivityDeps, runId: string): Promise<Execution> {
  const record = await getExecution(db, runId);
  if (!record || record.kind !== 'pipeline' || !record.pipelineId)
    throw ApplicationFailure.nonRetryable(`pipeline run ${runId} not found`, FAILURE_TYPES.executionNotFound);
  return record;
}

/** To the client that started the run (or everyone, for a schedule's or a webhook's run); best effort. */
export async function tell({ redis, logger }: PipelineActivityDeps, record: Execution, message: PipelineLiveMessage): Promise<void> {
  const target = liveTargetOf(record);
  if (!target) return;
  await publishLiveMessage(redis, target, message).catch((error: unknown) =>
    logger.warn({ err: error, runId: record.id }, 'pipeline message not published'),
  );
}

/** The ids every pipeline message starts with. */
export const idsOf = (record: Execution) => ({ pipelineId: record.pipelineId ?? '', executionId: record.id });

/** What the budget checks need (services/budgets.ts). */
export const budgetDepsOf = ({ db, config }: PipelineActivityDeps) => ({ db, workdirRoots: config.orchestration.workdirRoots });

/** The run's cost: its steps' and, for a resumed run, the earlier runs' steps before it. */
export async function runCost({ db }: PipelineActivityDeps, record: Execution): Promise<number> {
  const steps = await runStepRecords(db, record);
  return steps.reduce((sum, step) => sum + (step.costUsd ?? 0), 0);
}
