import { proxyActivities } from '@temporalio/workflow';
import type { RankingRunsReconcilePass, RankingReconcilerActivities } from '../../activities/reconcile-ranking-runs';

// One attempt: the Schedule's next pass is the retry.
const acts = proxyActivities<RankingReconcilerActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 1 },
});

/**
 * Started by the Schedule `ranking-runs-reconciler` every RECONCILE_INTERVAL_SECONDS: a run recorded
 * `em_execucao` whose workflow is no longer open is recorded as interrupted (docs/ranking-job.md).
 */
export async function reconcileRankingRunsWorkflow(): Promise<RankingRunsReconcilePass> {
  return acts.reconcileRankingRuns();
}
