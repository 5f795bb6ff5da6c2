import { proxyActivities } from '@temporalio/workflow';
import type { ExecutionReconcilePass, ExecutionReconcilerActivities } from '../../activities/agents/reconcile-executions';
import type { ReconcilerLoopInput } from '../../temporal/contracts/reconciler-loop';
import { runReconcilerLoop } from '../reconciler-loop';

// One attempt: the next pass is the retry (a pass changes only records whose workflow is gone).
const acts = proxyActivities<ExecutionReconcilerActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: { maximumAttempts: 1 },
});

// The same pass, with the summary the loop's history shows (the old workflow's commands stay as they were).
const loopActs = proxyActivities<ExecutionReconcilerActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: { maximumAttempts: 1 },
  summary: 'pass: end the agent executions whose workflow is gone',
});

/**
 * The executions reconciler (docs/agent-executions.md, "Reconciler"): one long-lived workflow,
 * `agent-executions-reconciler`, started by every agents worker (temporal/reconciler-loops.ts), that
 * ends the execution records whose workflow is gone every RECONCILE_INTERVAL_SECONDS.
 */
export async function reconcileExecutionsLoopWorkflow(input: ReconcilerLoopInput): Promise<never> {
  return runReconcilerLoop(input, {
    what: 'Ends agent executions whose workflow is gone',
    pass: () => loopActs.reconcileExecutions(),
    describePass: (pass: ExecutionReconcilePass) => `checked ${pass.checked}, ended ${pass.finished.length}, not settled ${pass.failed}`,
  });
}

/**
 * One pass, as the previous version's Schedule `agent-executions-reconciler` started it every
 * interval. Kept registered (and its recorded history replayed) so a pass that Schedule started just
 * before an upgrade still finishes; nothing starts it any more (the worker deletes that Schedule).
 */
export async function reconcileExecutionsWorkflow(): Promise<ExecutionReconcilePass> {
  return acts.reconcileExecutions();
}
