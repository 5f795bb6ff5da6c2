import { z } from 'zod';
import type { Database } from '../../db';
import { lastSuccessfulRun, latestRun, type JobRun } from '../../db/ranking-job-runs';
import { interruptedRunOutcome, type InterruptedRunOutcome } from '../../domain/workflow-gone';
import type { Logger } from '../../lib/logger';
import type { TemporalHandle } from '../../temporal/client';
import { RANKING_JOB_WORKFLOW_ID, type RankingProgress } from '../../temporal/contracts/ranking-job';
import { rankingJobState, startRankingJobWorkflow } from '../../temporal/ranking-job';
import type { DescribedWorkflow } from '../../temporal/workflow-state';
import { ConflictError, UnavailableError } from '../errors';
import { isoDateTime } from '../view-schema';

/** The ranking job: start it, and its status (docs/ranking-job.md). */

export interface JobDeps {
  db: Database;
  temporal: Pick<TemporalHandle, 'client' | 'connection'>;
  /** DEPENDENCY_TIMEOUT_MS: bound of each Temporal call of the status. */
  timeoutMs: number;
  logger: Logger;
}

export const ALREADY_RUNNING_DETAIL = 'Já existe um processamento do ranking em andamento';
export const WORKFLOWS_UNAVAILABLE_DETAIL = 'Serviço de workflows (Temporal) indisponível';

/** Longest wait for Temporal to accept the start (it takes milliseconds when it is up). */
const START_DEADLINE_MS = 5_000;

/** The job's fixed workflow id, as its answers carry it. */
export const RANKING_JOB_ID = RANKING_JOB_WORKFLOW_ID;

/** What POST /ranking/processar answers when the job started. */
export const jobStartedSchema = z
  .object({
    sucesso: z.literal(true),
    mensagem: z.string(),
    job_id: z.literal(RANKING_JOB_WORKFLOW_ID).meta({ description: "The job's fixed workflow id" }),
  })
  .meta({ id: 'RankingJobStarted' });
export type JobStarted = z.infer<typeof jobStartedSchema>;

/** The job status record (docs/ranking-job.md). */
export const jobStatusSchema = z
  .object({
    job_id: z.literal(RANKING_JOB_WORKFLOW_ID).meta({ description: "The job's fixed workflow id" }),
    em_execucao: z.boolean().meta({ description: 'A run is in progress (a new start is refused with 409)' }),
    estado: z.enum(['nunca_executado', 'em_execucao', 'concluido', 'falhou', 'cancelado']),
    fase: z
      .string()
      .nullable()
      .meta({ description: 'Phase of the latest run: `preparando`, `pontuando`, `posicionando`, `concluido`; null before any run' }),
    origem: z.string().nullable().meta({ description: 'What started the latest run: `manual` or `agendado`; null before any run' }),
    limpar_antes: z
      .boolean()
      .nullable()
      .meta({ description: 'Whether the latest run cleared the stored ranking first; null before any run' }),
    processados: z.number().int().min(0).meta({ description: 'Persons scored so far' }),
    total: z.number().int().min(0).meta({ description: 'Persons to score (0 until the index is counted)' }),
    percentual: z.number().min(0).max(100).meta({ description: 'processados / total in percent, 1 decimal' }),
    iniciado_em: isoDateTime.nullable(),
    finalizado_em: isoDateTime.nullable(),
    ultimo_erro: z.string().nullable(),
    ultima_execucao_sucesso: isoDateTime.nullable().meta({ description: 'End of the last completed run' }),
    fonte: z.enum(['temporal', 'mysql']).meta({ description: "`temporal`: the running job's own progress; `mysql`: the recorded runs" }),
  })
  .meta({ id: 'RankingJobStatus' });
export type JobStatus = z.infer<typeof jobStatusSchema>;

export function percentOf(processed: number, total: number): number {
  if (total <= 0) return 0;
  return Math.min(100, Math.round((processed * 1000) / total) / 10);
}

function fromProgress(progress: RankingProgress, lastSuccess: JobRun | null): JobStatus {
  return {
    job_id: RANKING_JOB_WORKFLOW_ID,
    em_execucao: true,
    estado: 'em_execucao',
    fase: progress.fase,
    origem: progress.origem,
    limpar_antes: progress.limparAntes,
    processados: progress.processados,
    total: progress.total,
    percentual: percentOf(progress.processados, progress.total),
    iniciado_em: progress.iniciadoEm,
    finalizado_em: null,
    ultimo_erro: null,
    ultima_execucao_sucesso: lastSuccess?.finalizadoEm?.toISOString() ?? null,
    fonte: 'temporal',
  };
}

/**
 * `interrupted`: the run is recorded `em_execucao` but Temporal says no workflow of it is open; it is
 * answered as it ended until the reconciler records that (docs/ranking-job.md).
 */
function fromRun(
  run: JobRun | null,
  lastSuccess: JobRun | null,
  running: boolean,
  interrupted: InterruptedRunOutcome | null = null,
): JobStatus {
  return {
    job_id: RANKING_JOB_WORKFLOW_ID,
    em_execucao: running,
    estado: running ? 'em_execucao' : (interrupted?.estado ?? (run?.estado as JobStatus['estado'] | undefined) ?? 'nunca_executado'),
    fase: run?.fase ?? null,
    origem: run?.origem ?? null,
    limpar_antes: run?.limparAntes ?? null,
    processados: run?.processados ?? 0,
    total: run?.total ?? 0,
    percentual: percentOf(run?.processados ?? 0, run?.total ?? 0),
    iniciado_em: run?.iniciadoEm.toISOString() ?? null,
    finalizado_em: run?.finalizadoEm?.toISOString() ?? null,
    ultimo_erro: interrupted?.erro ?? run?.ultimoErro ?? null,
    ultima_execucao_sucesso: lastSuccess?.finalizadoEm?.toISOString() ?? null,
    fonte: 'mysql',
  };
}

/**
 * Starts workflow `ranking_job`. ConflictError while one runs; UnavailableError (with Temporal's
 * message) when Temporal does not accept the start: nothing was started, the job cannot run without it.
 */
export async function startRankingJob(
  deps: JobDeps,
  request: { limparAntes: boolean; origem: 'manual' },
): Promise<{ jobId: typeof RANKING_JOB_ID }> {
  let started: 'started' | 'already-running';
  try {
    started = await startRankingJobWorkflow(deps.temporal, request, START_DEADLINE_MS);
  } catch (error) {
    deps.logger.error({ err: error }, 'ranking job start failed');
    throw new UnavailableError(`${WORKFLOWS_UNAVAILABLE_DETAIL}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (started === 'already-running') throw new ConflictError(ALREADY_RUNNING_DETAIL);
  return { jobId: RANKING_JOB_WORKFLOW_ID };
}

/** From the running workflow's query when one runs; from MySQL otherwise (or when Temporal cannot answer). */
export async function rankingJobStatus(deps: JobDeps): Promise<JobStatus> {
  const { db } = deps;
  const [run, lastSuccess] = await Promise.all([latestRun(db), lastSuccessfulRun(db)]);
  let running = false;
  let latest: DescribedWorkflow | null = null; // null: Temporal did not answer
  try {
    const state = await rankingJobState(deps.temporal, deps.timeoutMs);
    if (state.running) {
      running = true;
      if (state.progress) return fromProgress(state.progress, lastSuccess);
      deps.logger.warn({ err: state.error }, 'ranking status: the running job did not answer its progress query; reporting from MySQL');
    } else {
      latest = state.latest;
    }
  } catch (error) {
    deps.logger.warn({ err: error }, 'ranking status: Temporal did not answer; reporting from MySQL');
  }
  if (latest && run?.estado === 'em_execucao') {
    // A run that ended between the first read and the describe has recorded its end: read again.
    const current = await latestRun(db);
    const interrupted = current?.estado === 'em_execucao' ? interruptedRunOutcome(current.runId, latest) : null;
    return fromRun(current, lastSuccess, running, interrupted);
  }
  return fromRun(run, lastSuccess, running);
}
