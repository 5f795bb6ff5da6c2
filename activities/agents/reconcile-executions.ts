import { heartbeat } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Database } from '../../db';
import { unfinishedAgentExecutions, type UnfinishedCursor, type UnfinishedExecution } from '../../db/unfinished-executions';
import { strandedExecutionOutcome } from '../../domain/workflow-gone';
import type { Logger } from '../../lib/logger';
import { agentExecutionWorkflowId } from '../../temporal/agent-execution';
import { describeWorkflowState } from '../../temporal/workflow-state';
import type { AgentExecutionActivities } from './execution-activities';

/**
 * The executions reconciler's pass (docs/agent-executions.md, "Reconciler"): a record still `queued`
 * or `running` whose workflow is gone (closed without ending it, or not found) is ended through the
 * execution's own finishing steps, which frees its concurrency slot.
 */

export interface ExecutionReconcilerDeps {
  db: Database;
  temporal: Client;
  /** The execution's own finishing steps: the record (conditional on it being unfinished), report, notification. */
  finishing: Pick<AgentExecutionActivities, 'finishExecutionRecord' | 'writeReport' | 'notifyFinished'>;
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
  const { db, temporal, finishing, logger } = deps;

  /** Ends one record if its workflow is gone; true when this call ended it. Errors are the caller's. */
  async function reconcile(record: UnfinishedExecution): Promise<boolean> {
    const { state } = await describeWorkflowState(temporal, agentExecutionWorkflowId(record.id));
    const outcome = strandedExecutionOutcome(state, record.createdAt, new Date());
    if (!outcome) return false;
    // Only an unfinished record is ended: one its workflow finished meanwhile keeps its outcome.
    const { changed } = await finishing.finishExecutionRecord({ executionId: record.id, ...outcome });
    if (!changed) return false;
    logger.warn({ executionId: record.id, previousStatus: record.status, ...outcome }, 'execution whose workflow is gone ended by the reconciler');
    await finishing.writeReport(record.id);
    await finishing.notifyFinished(record.id);
    return true;
  }

  return {
    /**
     * One pass over every unfinished agent record, oldest first, in batches of BATCH (keyset, so
     * memory stays one batch), DESCRIBES_AT_ONCE describes at a time. A record that cannot be
     * settled now (Temporal or MariaDB down) is logged and left for the next pass.
     */
    async reconcileExecutions(): Promise<ExecutionReconcilePass> {
      const pass: ExecutionReconcilePass = { checked: 0, finished: [], failed: 0 };
      let after: UnfinishedCursor | null = null;
      for (;;) {
        const batch = await unfinishedAgentExecutions(db, after, BATCH);
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
