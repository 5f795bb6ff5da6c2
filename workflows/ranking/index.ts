// Workflows registered on the `ranking` task queue (bundled by the ranking worker).
export { probeWorkflow } from '../probe';
export { rankingJobWorkflow } from './job';
export { rankingBatchWorkflow } from './batch';
export { scheduledRankingWorkflow } from './scheduled';
export { reconcileRankingRunsLoopWorkflow, reconcileRankingRunsWorkflow } from './reconcile-runs';
