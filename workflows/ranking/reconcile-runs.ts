import { proxyActivities } from '@temporalio/workflow';
import type { RankingRunsReconcilePass, RankingReconcilerActivities } from '../../activities/reconcile-ranking-runs';
import type { ReconcilerLoopInput } from '../../temporal/contracts/reconciler-loop';
import { runReconcilerLoop } from '../reconciler-loop';

// One attempt: the next pass is the retry.
const acts = proxyActivities<RankingReconcilerActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 1 },
});

// The same pass, with the summary the loop's history shows (the old workflow's commands stay as they were).
const loopActs = proxyActivities<RankingReconcilerActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 1 },
  summary: 'pass: record the ranking runs whose workflow is gone as interrupted',
});

/**
 * The ranking runs reconciler (docs/ranking-job.md): one long-lived workflow, `ranking-runs-reconciler`,
 * started by every ranking worker (temporal/reconciler-loops.ts): every RECONCILE_INTERVAL_SECONDS a
 * run recorded `em_execucao` whose workflow is no longer open is recorded as interrupted.
 */
export async function reconcileRankingRunsLoopWorkflow(input: ReconcilerLoopInput): Promise<never> {
  return runReconcilerLoop(input, {
    what: 'Records ranking runs whose workflow is gone as interrupted',
    pass: () => loopActs.reconcileRankingRuns(),
    describePass: (pass: RankingRunsReconcilePass) => `checked ${pass.checked}, interrupted ${pass.interrupted.length}`,
  });
}

/**
 * One pass, as the previous version's Schedule `ranking-runs-reconciler` started it every interval.
 * Kept registered (and its recorded history replayed) so a pass that Schedule started just before an
 * upgrade still finishes; nothing starts it any more (the worker deletes that Schedule).
 */
export async function reconcileRankingRunsWorkflow(): Promise<RankingRunsReconcilePass> {
  return acts.reconcileRankingRuns();
}
