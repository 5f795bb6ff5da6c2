import { and, asc, desc, eq } from 'drizzle-orm';
import type { Database } from './index';
import { rankingJobRuns } from './schema';

export type RunState = 'em_execucao' | 'concluido' | 'falhou' | 'cancelado';
export type RunPhase = 'preparando' | 'pontuando' | 'posicionando' | 'concluido';
export type RunOrigin = 'manual' | 'agendado';

export type JobRun = typeof rankingJobRuns.$inferSelect;

/** Records the start of a run; idempotent (a retried activity finds the row already there). */
export async function recordRunStart(
  db: Database,
  run: { runId: string; origem: RunOrigin; limparAntes: boolean; startedAt: Date },
): Promise<void> {
  await db
    .insert(rankingJobRuns)
    .values({
      runId: run.runId,
      origem: run.origem,
      limparAntes: run.limparAntes,
      estado: 'em_execucao',
      fase: 'preparando',
      iniciadoEm: run.startedAt,
    })
    .onDuplicateKeyUpdate({ set: { runId: run.runId } });
}

export async function recordRunProgress(
  db: Database,
  runId: string,
  progress: { fase: RunPhase; processados: number; total: number },
): Promise<void> {
  await db.update(rankingJobRuns).set(progress).where(eq(rankingJobRuns.runId, runId));
}

/**
 * Records a run's end. Returns when the run started and whether it was still open (`em_execucao`)
 * before this call, so a repeated end (a retried activity) is not counted twice; null for an unknown run.
 */
export async function recordRunEnd(
  db: Database,
  runId: string,
  end: { estado: Exclude<RunState, 'em_execucao'>; fase: RunPhase; finishedAt: Date; erro?: string | null; processados?: number },
): Promise<{ wasOpen: boolean; startedAt: Date } | null> {
  const [before] = await db
    .select({ estado: rankingJobRuns.estado, iniciadoEm: rankingJobRuns.iniciadoEm })
    .from(rankingJobRuns)
    .where(eq(rankingJobRuns.runId, runId))
    .limit(1);
  await db
    .update(rankingJobRuns)
    .set({
      estado: end.estado,
      fase: end.fase,
      finalizadoEm: end.finishedAt,
      ultimoErro: end.erro ?? null,
      ...(end.processados === undefined ? {} : { processados: end.processados }),
    })
    .where(eq(rankingJobRuns.runId, runId));
  return before ? { wasOpen: before.estado === 'em_execucao', startedAt: before.iniciadoEm } : null;
}

export async function openRuns(db: Database, limit: number): Promise<JobRun[]> {
  return db
    .select()
    .from(rankingJobRuns)
    .where(eq(rankingJobRuns.estado, 'em_execucao'))
    .orderBy(asc(rankingJobRuns.iniciadoEm))
    .limit(limit);
}

/**
 * Records the end of a run whose workflow was stopped from outside, only while it is still
 * `em_execucao` (a run that recorded its own end meanwhile keeps it). True when this call changed it.
 */
export async function recordRunInterrupted(
  db: Database,
  runId: string,
  end: { estado: 'falhou' | 'cancelado'; erro: string; finishedAt: Date },
): Promise<boolean> {
  const [result] = await db
    .update(rankingJobRuns)
    .set({ estado: end.estado, finalizadoEm: end.finishedAt, ultimoErro: end.erro })
    .where(and(eq(rankingJobRuns.runId, runId), eq(rankingJobRuns.estado, 'em_execucao')));
  return result.affectedRows > 0;
}

export async function latestRun(db: Database): Promise<JobRun | null> {
  const rows = await db.select().from(rankingJobRuns).orderBy(desc(rankingJobRuns.iniciadoEm)).limit(1);
  return rows[0] ?? null;
}

export async function lastSuccessfulRun(db: Database): Promise<JobRun | null> {
  const rows = await db
    .select()
    .from(rankingJobRuns)
    .where(eq(rankingJobRuns.estado, 'concluido'))
    .orderBy(desc(rankingJobRuns.finalizadoEm))
    .limit(1);
  return rows[0] ?? null;
}
