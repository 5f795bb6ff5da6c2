import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type WorkflowStartOptions } from '@temporalio/client';
import type { TemporalHandle } from './client';
import {
  progressQuery,
  RANKING_JOB_WORKFLOW,
  RANKING_JOB_WORKFLOW_ID,
  type RankingJobInput,
  type RankingJobWorkflow,
  type RankingProgress,
} from './contracts/ranking-job';
import { grouped } from './contracts/summaries';
import { TASK_QUEUES } from './task-queues';
import { describedWorkflow, MISSING_WORKFLOW, type DescribedWorkflow } from './workflow-state';

/** The client side of `rankingJobWorkflow` (its contract: temporal/contracts/ranking-job.ts). */

type Temporal = Pick<TemporalHandle, 'client' | 'connection'>;

/**
 * How every caller starts the ranking job. The fixed id with conflict policy FAIL is the lock: a
 * start while a run is open fails with WorkflowExecutionAlreadyStartedError; a finished run's id
 * may be reused.
 */
export function rankingJobStartOptions(input: RankingJobInput): WorkflowStartOptions<RankingJobWorkflow> {
  return {
    taskQueue: TASK_QUEUES.ranking,
    workflowId: RANKING_JOB_WORKFLOW_ID,
    workflowIdConflictPolicy: 'FAIL',
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    args: [input],
    // The Web UI's line for the run (docs/observability.md); the executions it continues as carry none (continueAsNew takes no summary).
    staticSummary: rankingJobSummary(input),
  };
}

/** "ranking job (manual, batches of 2 000 documents)". */
export function rankingJobSummary(input: RankingJobInput): string {
  const batch = input.batchSize !== undefined ? `, batches of ${grouped(input.batchSize)} documents` : '';
  return `ranking job (${input.origem ?? 'manual'}${input.limparAntes ? ', cleared first' : ''}${batch})`;
}

/** Starts the job within `deadlineMs`: `already-running` while a run is open; other failures (Temporal unreachable) are thrown. */
export async function startRankingJobWorkflow(
  temporal: Temporal,
  input: RankingJobInput,
  deadlineMs: number,
): Promise<'started' | 'already-running'> {
  try {
    await temporal.connection.withDeadline(Date.now() + deadlineMs, () =>
      temporal.client.workflow.start<RankingJobWorkflow>(RANKING_JOB_WORKFLOW, rankingJobStartOptions(input)),
    );
    return 'started';
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return 'already-running';
    throw error;
  }
}

/** What Temporal says of the job: a running run's progress, else how its latest run ended (or that there is none). */
export type RankingJobState =
  | { running: true; progress: RankingProgress }
  /** Running, but its progress query did not answer (a busy or restarting worker): `error` says why. */
  | { running: true; progress: null; error: unknown }
  | { running: false; latest: DescribedWorkflow };

/**
 * The job's state, each call bounded by a gRPC deadline of `timeoutMs` (not a race: the calls and the
 * SDK's retries end by then, so no retry timer outlives the request). Errors of the describe other
 * than "not found" (Temporal unreachable) are thrown.
 */
export async function rankingJobState(temporal: Temporal, timeoutMs: number): Promise<RankingJobState> {
  const withinTimeout = <T>(call: () => Promise<T>) => temporal.connection.withDeadline(Date.now() + timeoutMs, call);
  const handle = temporal.client.workflow.getHandle(RANKING_JOB_WORKFLOW_ID);
  try {
    const description = await withinTimeout(() => handle.describe());
    if (description.status.name === 'RUNNING') {
      try {
        return { running: true, progress: await withinTimeout(() => handle.query(progressQuery)) };
      } catch (error) {
        return { running: true, progress: null, error };
      }
    }
    return { running: false, latest: describedWorkflow(description) };
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return { running: false, latest: MISSING_WORKFLOW };
    throw error;
  }
}
