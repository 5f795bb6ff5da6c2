import { heartbeat } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Database } from '../../db';
import { unfinishedExecutions, type UnfinishedCursor, type UnfinishedExecution } from '../../db/unfinished-executions';
import { strandedExecutionOutcome } from '../../domain/workflow-gone';
import type { Logger } from '../../lib/logger';
import { agentExecutionWorkflowId } from '../../temporal/contracts/agent-execution';
import { pipelineExecutionWorkflowId } from '../../temporal/contracts/pipeline-execution';
import { describeWorkflowState } from '../../temporal/workflow-state';
import type { PipelineActivities } from '../pipelines/pipeline-activities';
import type { AgentExecutionActivities } from './execution-activities';

/**
 * The executions reconciler's pass (docs/agent-executions.md, "Reconciler"): a record still active
 * whose workflow is gone (closed without ending it, or not found) is ended through its own finishing
 * steps: an agent record's (which frees its concurrency slot), a pipeline run's (docs/pipelines.md).
 */

export interface ExecutionReconcilerDeps {
  db: Database;
  temporal: Client;
  /** The execution's own finishing steps: the record (conditional on it being unfinished), report, notification. */
  finishing: Pick<AgentExecutionActivities, 'finishExecutionRecord' | 'writeReport' | 'notifyFinished'>;
  /** A pipeline run's: the record (conditional too), where to resume, `pipeline_error`. */
  pipelineFinishing: Pick<PipelineActivities, 'endStrandedRun'>;
  logger: Logger;
}

export interface ExecutionReconcilePass {
  /** Unfinished records looked at. */
  checked: number;
  /** Records this pass ended. */
  finished: string[];
  /** Records left for the next pass because Temporal or MariaDB did not answer. */
  failed: number;
}

/** Records read per batch, and workflows described at once. */
const BATCH = 100;
const DESCRIBES_AT_ONCE = 8;

export function createExecutionReconcilerActivities(deps: ExecutionReconcilerDeps) {
  const { db, temporal, finishing, pipelineFinishing, logger } = deps;

  /** Ends one record if its workflow is gone; true when this call ended it. Errors are the caller's. */
  async function reconcile(record: UnfinishedExecution): Promise<boolean> {
    const pipeline = record.kind === 'pipeline';
    const workflowId = pipeline ? pipelineExecutionWorkflowId(record.id) : agentExecutionWorkflowId(record.id);
    const { state } = await describeWorkflowState(temporal, workflowId);
    const outcome = strandedExecutionOutcome(state, record.createdAt, new Date());
    if (!outcome) return false;
    if (pipeline) {
      const ended = await pipelineFinishing.endStrandedRun({ runId: record.id, ...outcome });
      if (ended)
        logger.warn(
          { runId: record.id, previousStatus: record.status, ...outcome },
          'pipeline run whose workflow is gone ended by the reconciler',
        );
      return ended;
    }
    // Only an unfinished record is ended: one its workflow finished meanwhile keeps its outcome.
    const { changed } = await finishing.finishExecutionRecord({ executionId: record.id, ...outcome });
    if (!changed) return false;
    logger.warn(
      { executionId: record.id, previousStatus: record.status, ...outcome },
      'execution whose workflow is gone ended by the reconciler',
    );
    await finishing.writeReport(record.id);
    await finishing.notifyFinished(record.id);
    return true;
  }

  return {
    /**
     * One pass over every unfinished record, oldest first, in batches of BATCH (keyset, so
     * memory stays one batch), DESCRIBES_AT_ONCE describes at a time. A record that cannot be
     * settled now (Temporal or MariaDB down) is logged and left for the next pass.
     */
    async reconcileExecutions(): Promise<ExecutionReconcilePass> {
      const pass: ExecutionReconcilePass = { checked: 0, finished: [], failed: 0 };
      let after: UnfinishedCursor | null = null;
      for (;;) {
        const batch = await unfinishedExecutions(db, after, BATCH);
        for (let start = 0; start < batch.length; start += DESCRIBES_AT_ONCE) {
          const group = batch.slice(start, start + DESCRIBES_AT_ONCE);
          const settled = await Promise.allSettled(group.map(reconcile));
          settled.forEach((result, index) => {
            const record = group[index]!;
            if (result.status === 'fulfilled') {
              if (result.value) pass.finished.push(record.id);
            } else {
              pass.failed += 1;
              logger.warn({ err: result.reason, executionId: record.id }, 'reconciler: execution not settled this pass');
            }
          });
          heartbeat(pass.checked + start + group.length);
        }
        pass.checked += batch.length;
        if (batch.length < BATCH) return pass;
        const last = batch[batch.length - 1]!;
        after = { createdAt: last.createdAt, id: last.id };
      }
    },
  };
}

export type ExecutionReconcilerActivities = ReturnType<typeof createExecutionReconcilerActivities>;
