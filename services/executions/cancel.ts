import { WorkflowNotFoundError } from '@temporalio/client';
import { ACTIVE_STATUSES, activeExecutions, cancelQueuedExecution, finishExecution, getExecution, type ExecutionSummary } from '../../db/executions-store';
import { agentExecutionWorkflowId } from '../../temporal/agent-execution';
import { CANCELLED_ERROR } from '../../workflows/agents/execution-errors';
import { ConflictError, NotFoundError } from '../errors';
import type { ExecutionDeps } from './deps';
import { liveStreamOf, published } from './live';

const ACTIVE = new Set<string>(ACTIVE_STATUSES);

export const isActive = (execution: Pick<ExecutionSummary, 'status'>): boolean => ACTIVE.has(execution.status);

/**
 * Cancels an active execution. A queued record is ended `cancelled` here at once (so it can no longer
 * take a slot freed meanwhile); then the workflow is cancelled: its activity kills a running agent and
 * the workflow ends the record `cancelled`, writes the report and the notification. A record without
 * a workflow (never started, or the workflow is gone) is ended here.
 */
async function cancelActive(deps: ExecutionDeps, execution: ExecutionSummary): Promise<void> {
  if (execution.status === 'queued' && (await cancelQueuedExecution(deps.db, execution.id, CANCELLED_ERROR))) {
    const ended = await getExecution(deps.db, execution.id);
    if (ended) {
      await published(
        deps,
        liveStreamOf(deps, ended)?.finished({ status: 'canceled', costUsd: null, durationMs: null, sessionId: ended.sessionId, error: CANCELLED_ERROR }),
      );
    }
  }
  try {
    await deps.temporal.workflow.getHandle(agentExecutionWorkflowId(execution.id)).cancel();
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    await finishExecution(deps.db, execution.id, { status: 'canceled', error: CANCELLED_ERROR });
  }
}

/** Cancels execution `executionId` of agent `agentId`: NotFoundError when it is not that agent's, ConflictError once finished. */
export async function cancelExecution(deps: ExecutionDeps, agentId: string, executionId: string): Promise<{ executionId: string; status: 'cancelling' }> {
  const execution = await getExecution(deps.db, executionId);
  if (!execution || execution.agentId !== agentId) throw new NotFoundError(`execution ${executionId} of agent ${agentId} not found`);
  if (!isActive(execution)) throw new ConflictError(`execution ${executionId} already finished (${execution.status})`);
  await cancelActive(deps, execution);
  return { executionId, status: 'cancelling' };
}

/** Cancels every active execution; answers the ids of those active at the time of the call. */
export async function cancelAllExecutions(deps: ExecutionDeps): Promise<{ cancelled: string[] }> {
  const active = await activeExecutions(deps.db);
  // Queued ones first, so none of them takes a slot freed by cancelling a running one.
  const queuedFirst = [...active.filter((execution) => execution.status === 'queued'), ...active.filter((execution) => execution.status !== 'queued')];
  for (const execution of queuedFirst) await cancelActive(deps, execution);
  return { cancelled: active.map((execution) => execution.id) };
}

/** Queued and running records, oldest first, without output. */
export function listActiveExecutions(deps: Pick<ExecutionDeps, 'db'>): Promise<ExecutionSummary[]> {
  return activeExecutions(deps.db);
}
