import { randomUUID } from 'node:crypto';
import { and, asc, count, eq, inArray, isNull } from 'drizzle-orm';
import { ACTIVE_STATUSES } from '../domain/execution-status';
import type { Execution } from './executions-store';
import type { Database } from './index';
import { executions, pipelines, type StoredPipelineStep } from './schema';

/** The pipelines and their steps (contract 3.6 and 5.4; docs/pipelines.md). */

export type Pipeline = typeof pipelines.$inferSelect;
export type { StoredPipelineStep };

/**
 * A step as a caller gives it: the stored step (db/schema.ts), but `id` and `order`, kept when given,
 * else made here. Derived, not listed: a field added to StoredPipelineStep is a field of this type.
 */
export type PipelineStepInput = Omit<StoredPipelineStep, 'id' | 'order'> & { id?: string; order?: number };

/**
 * A pipeline as a caller gives it: every column of `pipelines` (db/schema.ts) but those the store sets
 * itself, with the steps as given. Derived from the table, so a new column is a field here, stored by
 * createPipeline and updatePipeline without a line of theirs (the request schema must name it too:
 * api/orchestration/pipelines-input.ts checks the two have the same keys).
 */
export type PipelineInput = Omit<typeof pipelines.$inferInsert, 'id' | 'steps' | 'createdAt' | 'updatedAt'> & {
  steps: PipelineStepInput[];
};

/**
 * The steps as stored, in the legacy server's way: ids kept or made, `order` given or the index, the
 * first step never waits for an approval; then sorted by `order` (and renumbered 0..n-1, so `order`
 * is always the step's index). Every other field of a step is stored as given.
 */
export function storedSteps(steps: readonly PipelineStepInput[]): StoredPipelineStep[] {
  return (
    steps
      .map((step, index) => ({ step, index, order: step.order ?? index }))
      .sort((a, b) => a.order - b.order || a.index - b.index)
      // agentId named only to keep the stored key order of before (id, agentId, order, then the rest).
      .map(({ step: { id, agentId, order: _order, approvalTimeoutSeconds, ...fields } }, index) => ({
        id: id ?? randomUUID(),
        agentId,
        order: index,
        ...fields,
        inputTemplate: fields.inputTemplate === '' ? null : fields.inputTemplate,
        requiresApproval: index === 0 ? false : fields.requiresApproval,
        ...(approvalTimeoutSeconds ? { approvalTimeoutSeconds } : {}),
      }))
  );
}

export async function listPipelines(db: Database): Promise<Pipeline[]> {
  return db.select().from(pipelines).orderBy(asc(pipelines.createdAt), asc(pipelines.id));
}

export async function findPipeline(db: Database, id: string): Promise<Pipeline | null> {
  const rows = await db.select().from(pipelines).where(eq(pipelines.id, id));
  return rows[0] ?? null;
}

export async function countPipelines(db: Database): Promise<{ total: number; active: number }> {
  const rows = await db.select({ status: pipelines.status, n: count() }).from(pipelines).groupBy(pipelines.status);
  const total = rows.reduce((sum, row) => sum + Number(row.n), 0);
  const active = Number(rows.find((row) => row.status === 'active')?.n ?? 0);
  return { total, active };
}

export async function createPipeline(db: Database, input: PipelineInput): Promise<Pipeline> {
  const now = new Date();
  const id = randomUUID();
  await db.insert(pipelines).values({ ...input, id, steps: storedSteps(input.steps), createdAt: now, updatedAt: now });
  const stored = await findPipeline(db, id);
  if (!stored) throw new Error(`pipeline ${id} vanished right after its insert`);
  return stored;
}

/** A partial update (the fields given); null when the pipeline does not exist. */
export async function updatePipeline(db: Database, id: string, changes: Partial<PipelineInput>): Promise<Pipeline | null> {
  const { steps, ...fields } = changes;
  const set: Partial<typeof pipelines.$inferInsert> = {
    // Every field given (a key left out, or undefined, keeps its stored value).
    ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)),
    ...(steps !== undefined ? { steps: storedSteps(steps) } : {}),
    updatedAt: new Date(),
  };
  // Found rows, not changed rows: an update that changes nothing still answers the pipeline.
  if ((await findPipeline(db, id)) === null) return null;
  await db.update(pipelines).set(set).where(eq(pipelines.id, id));
  return findPipeline(db, id);
}

export async function deletePipeline(db: Database, id: string): Promise<boolean> {
  const [result] = await db.delete(pipelines).where(eq(pipelines.id, id));
  return result.affectedRows > 0;
}

/* Pipeline runs: execution records of kind `pipeline`; their steps are agent records with pipeline_execution_id. */

/** queued or awaiting_approval -> running; the first call sets `startedAt`. False when the run is finished or unknown. */
export async function markRunRunning(db: Database, runId: string, startedAt = new Date()): Promise<boolean> {
  const [result] = await db
    .update(executions)
    .set({ status: 'running' })
    .where(and(eq(executions.id, runId), inArray(executions.status, ['queued', 'running', 'awaiting_approval'])));
  await db
    .update(executions)
    .set({ startedAt })
    .where(and(eq(executions.id, runId), isNull(executions.startedAt)));
  return result.affectedRows > 0;
}

export async function markRunAwaitingApproval(db: Database, runId: string): Promise<boolean> {
  const [result] = await db
    .update(executions)
    .set({ status: 'awaiting_approval' })
    .where(and(eq(executions.id, runId), inArray(executions.status, ['running', 'awaiting_approval'])));
  return result.affectedRows > 0;
}

/** The input the current step was given (resume starts there), and the run's cost so far. */
export async function setRunProgress(
  db: Database,
  runId: string,
  progress: { lastStepInput?: string; costUsd?: number; failedAtStep?: number },
): Promise<void> {
  await db
    .update(executions)
    .set(progress)
    .where(and(eq(executions.id, runId), isNull(executions.finishedAt)));
}

/** The agent records of one run's steps, by step. */
export async function stepRecordsOfRun(db: Database, runId: string): Promise<Execution[]> {
  return db
    .select()
    .from(executions)
    .where(eq(executions.pipelineExecutionId, runId))
    .orderBy(asc(executions.stepIndex), asc(executions.createdAt));
}

/** Active runs of a pipeline (not its steps), oldest first; `status` narrows them. */
export async function activeRunsOfPipeline(db: Database, pipelineId: string, status?: Execution['status']): Promise<Execution[]> {
  return db
    .select()
    .from(executions)
    .where(
      and(
        eq(executions.kind, 'pipeline'),
        eq(executions.pipelineId, pipelineId),
        isNull(executions.pipelineExecutionId),
        status ? eq(executions.status, status) : inArray(executions.status, [...ACTIVE_STATUSES]),
      ),
    )
    .orderBy(asc(executions.createdAt), asc(executions.id));
}

/** How many pipeline runs are active now (GET /system). */
export async function countRunningPipelines(db: Database): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(executions)
    .where(and(eq(executions.kind, 'pipeline'), inArray(executions.status, [...ACTIVE_STATUSES])));
  return Number(row?.n ?? 0);
}
