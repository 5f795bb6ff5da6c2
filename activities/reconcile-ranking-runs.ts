import type { Client } from '@temporalio/client';
import type { Database } from '../db';
import { openRuns, recordRunInterrupted } from '../db/ranking-job-runs';
import { interruptedRunOutcome } from '../domain/workflow-gone';
import type { Logger } from '../lib/logger';
import { countRankingJobEnd } from './ranking';
import { describeWorkflowState } from '../temporal/workflow-state';
import { RANKING_JOB_WORKFLOW_ID } from '../temporal/contracts/ranking-job';

/**
 * The ranking runs reconciler's pass (docs/ranking-job.md, "Failures and restarts"): a run recorded
 * `em_execucao` whose workflow is no longer open is recorded `falhou` (`cancelado` when the workflow
 * was cancelled) with the reason, so the status never shows a run that does not exist.
 */

export interface RankingReconcilerDeps {
  db: Database;
  temporal: Client;
  logger: Logger;
}

export interface RankingRunsReconcilePass {
  checked: number;
  /** Runs this pass recorded as interrupted. */
  interrupted: string[];
}

/** Runs looked at per pass: at most one is open at a time, so more than a few means old leftovers. */
const BATCH = 100;

export function createRankingReconcilerActivities(deps: RankingReconcilerDeps) {
  const { db, temporal, logger } = deps;
  return {
    async reconcileRankingRuns(): Promise<RankingRunsReconcilePass> {
      const runs = await openRuns(db, BATCH);
      const pass: RankingRunsReconcilePass = { checked: runs.length, interrupted: [] };
      if (runs.length === 0) return pass;
      // One workflow id for every run: one describe per pass.
      const latest = await describeWorkflowState(temporal, RANKING_JOB_WORKFLOW_ID);
      for (const run of runs) {
        const outcome = interruptedRunOutcome(run.runId, latest);
        if (!outcome) continue;
        // Conditional on `em_execucao`: a run that recorded its own end meanwhile keeps it.
        const finishedAt = new Date();
        if (await recordRunInterrupted(db, run.runId, { ...outcome, finishedAt })) {
          pass.interrupted.push(run.runId);
          // Its duration too, as a run that recorded its own end is counted.
          countRankingJobEnd(outcome.estado, finishedAt, { wasOpen: true, startedAt: run.iniciadoEm });
          logger.warn({ runId: run.runId, ...outcome }, 'ranking run whose workflow is gone recorded as interrupted');
        }
      }
      return pass;
    },
  };
}

export type RankingReconcilerActivities = ReturnType<typeof createRankingReconcilerActivities>;
