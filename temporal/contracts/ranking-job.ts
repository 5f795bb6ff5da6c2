import { defineQuery } from '@temporalio/workflow';

/** The contract of `rankingJobWorkflow` (workflows/ranking/job.ts); workflow-safe. */

export const RANKING_JOB_WORKFLOW = 'rankingJobWorkflow';

/** The fixed workflow id of the ranking job: Temporal's id-conflict check makes it single-flight. */
export const RANKING_JOB_WORKFLOW_ID = 'ranking_job';

/**
 * What a run's input leaves out: batches of 2 000 documents (the specification's), 6 at a time,
 * started together (patch `ranking-parallel-starts`, workflows/ranking/job.ts: before it the parent
 * started one child per workflow task and waited for it to start, and a run over an unchanged index
 * of 300 000 persons kept on average 1.9 of its 4 children busy; docs/benchmarks.md).
 */
export const RANKING_JOB_DEFAULTS = { batchSize: 2_000, maxChildrenInFlight: 6, batchesPerExecution: 200 } as const;

export interface RankingJobInput {
  limparAntes?: boolean;
  origem?: 'manual' | 'agendado';
  /** Documents per child workflow (the specification's batch of 2 000). */
  batchSize?: number;
  /** Child workflows running at once. */
  maxChildrenInFlight?: number;
  /** Batches started by one execution before it continues as new (keeps the history short). */
  batchesPerExecution?: number;
  /** The day the scores are computed at (`YYYY-MM-DD`); by default the run's start day in UTC. Not offered over HTTP. */
  referenceDate?: string;
}

export interface RankingJobResult {
  runId: string;
  processados: number;
  total: number;
}

/** How a caller starts it: the input only (the state the job carries across continue-as-new is its own). */
export type RankingJobWorkflow = (input?: RankingJobInput) => Promise<RankingJobResult>;

export type RankingPhase = 'preparando' | 'pontuando' | 'posicionando' | 'concluido';

/** What a running ranking job reports through the `progress` query. */
export interface RankingProgress {
  runId: string;
  origem: 'manual' | 'agendado';
  limparAntes: boolean;
  fase: RankingPhase;
  processados: number;
  total: number;
  /** ISO time the run (its first execution, before any continue-as-new) started. */
  iniciadoEm: string;
}

/** Defined once, used by the workflow and by GET /api/v1/ranking/status. */
export const progressQuery = defineQuery<RankingProgress>('progress');
