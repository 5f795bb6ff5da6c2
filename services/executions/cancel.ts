import { z } from 'zod';
import {
  activeAgentRuns,
  activeExecutions,
  cancelQueuedExecution,
  finishExecution,
  getExecution,
  type ExecutionSummary,
} from '../../db/executions-store';
import { isActiveStatus } from '../../domain/execution-status';
import { cancelAgentExecution } from '../../temporal/agent-execution';
import { CANCELLED_ERROR } from '../../domain/execution-errors';
import { NotFoundError } from '../errors';
import { cancelPipelineRun } from '../pipelines/runs';
import type { ExecutionDeps } from './deps';
import { lifecycleStreamOf, publishBestEffort } from './live';
import { activeExecutionView, type ActiveExecutionView } from './view';
import { countFinishedRun } from './run-metrics';

/** What a cancel answers: the cancellation was requested (the record ends `canceled` a moment later). */
export const cancelledExecutionSchema = z.object({ cancelled: z.literal(true) }).meta({ id: 'CancelledExecution' });
export type CancelledExecution = z.infer<typeof cancelledExecutionSchema>;

/** What cancel-all answers. */
export const cancelledExecutionsSchema = z
  .object({ cancelled: z.literal(true), count: z.number().int().meta({ description: 'The records active at the time of the call' }) })
  .meta({ id: 'CancelledExecutions' });
export type CancelledExecutions = z.infer<typeof cancelledExecutionsSchema>;

/**
 * Cancels an active execution. A queued record is ended `canceled` here at once (so it can no longer
 * take a slot freed meanwhile); then the workflow is cancelled: its activity kills a running agent and
 * the workflow ends the record `canceled`, writes the report and the notification. A record without
 * a workflow (never started, or the workflow is gone) is ended here.
 */
async function cancelActive(deps: ExecutionDeps, execution: ExecutionSummary): Promise<void> {
  if (execution.status === 'queued' && (await cancelQueuedExecution(deps.db, execution.id, CANCELLED_ERROR))) {
    const ended = await getExecution(deps.db, execution.id);
    if (ended) {
      countFinishedRun(ended);
      await publishBestEffort(
        deps,
        lifecycleStreamOf(deps, ended)?.finished({
          status: 'canceled',
          costUsd: null,
          durationMs: null,
          sessionId: ended.sessionId,
          error: CANCELLED_ERROR,
        }),
      );
    }
  }
  // A pipeline run: its workflow cancels the running step and ends the run `canceled`.
  if (execution.kind === 'pipeline') return cancelPipelineRun(deps, execution.id);
  if (!(await cancelAgentExecution(deps.temporal, execution.id))) {
    const finished = await finishExecution(deps.db, execution.id, { status: 'canceled', error: CANCELLED_ERROR });
    if (finished?.changed) countFinishedRun(finished.execution);
  }
}

/** Cancels execution `executionId` of agent `agentId`: NotFoundError when it is not that agent's, or already finished. */
export async function cancelExecution(deps: ExecutionDeps, agentId: string, executionId: string): Promise<CancelledExecution> {
  const execution = await getExecution(deps.db, executionId);
  if (!execution || execution.agentId !== agentId || !isActiveStatus(execution.status)) {
    throw new NotFoundError(`Execução ${executionId} do agente ${agentId} não encontrada ou já finalizada`);
  }
  await cancelActive(deps, execution);
  return { cancelled: true };
}

/** Cancels every active execution; `count`: how many were active at the time of the call. */
export async function cancelAllExecutions(deps: ExecutionDeps): Promise<CancelledExecutions> {
  const active = await activeExecutions(deps.db);
  // Queued ones first, so none of them takes a slot freed by cancelling a running one.
  const queuedFirst = [
    ...active.filter((execution) => execution.status === 'queued'),
    ...active.filter((execution) => execution.status !== 'queued'),
  ];
  for (const execution of queuedFirst) await cancelActive(deps, execution);
  return { cancelled: true, count: active.length };
}

/**
 * The panel's active list (contract 3.8: one entry per agent process, pipeline steps included): each
 * agent run queued, running or retrying, oldest first. A pipeline run's own record is not one (its
 * running step is; counted too, the badge said two and the terminal's filter offered an option with no
 * line), nor is a pipeline waiting for an approval (no process runs).
 */
export async function listActiveExecutions(deps: Pick<ExecutionDeps, 'db'>): Promise<ActiveExecutionView[]> {
  return (await activeAgentRuns(deps.db)).map(activeExecutionView);
}
