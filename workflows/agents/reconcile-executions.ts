import { proxyActivities } from '@temporalio/workflow';
import type { ExecutionReconcilePass, ExecutionReconcilerActivities } from '../../activities/agents/reconcile-executions';

// One attempt: the Schedule's next pass is the retry (a pass changes only records whose workflow is gone).
const acts = proxyActivities<ExecutionReconcilerActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: { maximumAttempts: 1 },
});

/**
 * Started by the Schedule `agent-executions-reconciler` every RECONCILE_INTERVAL_SECONDS: ends the
 * execution records whose workflow is gone (docs/agent-executions.md, "Reconciler").
 */
export async function reconcileExecutionsWorkflow(): Promise<ExecutionReconcilePass> {
  return acts.reconcileExecutions();
}
