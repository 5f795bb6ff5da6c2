import { and, asc, eq, sql } from 'drizzle-orm';
import type { Database } from './index';
import { executionAttempts, executions } from './schema';

/**
 * The attempts of an agent record (`retryOnFailure` runs a failed run again on the same record;
 * docs/executions.md, "Attempts"): what each cost, so that every attempt's cost counts in the record's
 * `cost_usd` and in the day's counters (`agent_daily_costs`, docs/budgets.md), and how each ended, for
 * the record's detail. Written as each attempt ends:
 *
 * - the run activity, when its agent failed after reporting a cost: the attempt's cost (recordAttemptCost);
 * - planRetry, when the failed attempt will be tried again: its end (`error`, why), its cost added to the
 *   day's counter before the budget check of the next attempt, the record's cost the sum so far
 *   (recordFailedAttempt);
 * - finishExecution (db/executions-store.ts), for the last attempt of a record run more than once
 *   (closeLastAttempt), and the record's total from them (attemptCosts).
 *
 * A cost is added to the day's counter once: `counted` says it was.
 */

export type ExecutionAttempt = typeof executionAttempts.$inferSelect;

type Writer = Pick<Database, 'select' | 'insert' | 'update' | 'execute'>;

/**
 * Adds `costUsd` to the counter of record `executionId`'s agent for the UTC day the record's current
 * attempt started (db/schema.ts, agentDailyCosts): agent records only, pipeline steps included.
 */
export async function addToDailyCost(tx: Pick<Database, 'execute'>, executionId: string, costUsd: number): Promise<void> {
  await tx.execute(sql`
    INSERT INTO agent_daily_costs (day, agent_id, cost_usd)
    SELECT DATE(started_at), COALESCE(agent_id, ''), ${costUsd} FROM ${executions}
    WHERE id = ${executionId} AND kind = 'agent' AND started_at IS NOT NULL
    ON DUPLICATE KEY UPDATE cost_usd = agent_daily_costs.cost_usd + VALUES(cost_usd)`);
}

/**
 * The cost the run activity's agent reported (or its tokens priced) before its attempt failed, kept
 * for the step that records the attempt's end (the workflow's failure carries it only to the close).
 * A cost counted already is not changed. Repeatable.
 */
export async function recordAttemptCost(
  db: Pick<Database, 'execute'>,
  executionId: string,
  attempt: number,
  costUsd: number,
  endedAt: Date = new Date(),
): Promise<void> {
  await db.execute(sql`
    INSERT INTO execution_attempts (execution_id, attempt, cost_usd, started_at, ended_at)
    SELECT id, ${attempt}, ${costUsd}, IF(attempt = ${attempt}, started_at, NULL), ${endedAt} FROM ${executions} WHERE id = ${executionId}
    ON DUPLICATE KEY UPDATE
      cost_usd = IF(counted, execution_attempts.cost_usd, VALUES(cost_usd)),
      ended_at = COALESCE(execution_attempts.ended_at, VALUES(ended_at))`);
}

/** Adds attempt `attempt`'s cost to the day's counter, unless it was added already; then it is `counted`. */
async function countAttempt(tx: Writer, executionId: string, attempt: number): Promise<void> {
  const where = and(eq(executionAttempts.executionId, executionId), eq(executionAttempts.attempt, attempt));
  const [row] = await tx
    .select({ costUsd: executionAttempts.costUsd, counted: executionAttempts.counted })
    .from(executionAttempts)
    .where(where);
  if (!row || row.counted) return;
  if (row.costUsd !== null && row.costUsd > 0) await addToDailyCost(tx, executionId, row.costUsd);
  await tx.update(executionAttempts).set({ counted: true }).where(where);
}

/**
 * Attempt `attempt` of a `running` record failed and will be tried again (planRetry, before the next
 * attempt's budget check): its row ends `error` with why, its cost goes to the day's counter (once),
 * and the record's `cost_usd` becomes what its attempts cost so far. False (nothing written) when the
 * record is not running that attempt any more (a retried call after the record moved on).
 */
export async function recordFailedAttempt(
  db: Database,
  executionId: string,
  attempt: number,
  error: string,
  endedAt: Date = new Date(),
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [record] = await tx
      .select({ status: executions.status, attempt: executions.attempt, startedAt: executions.startedAt })
      .from(executions)
      .where(eq(executions.id, executionId))
      .for('update');
    if (!record || record.status !== 'running' || record.attempt !== attempt) return false;
    await tx
      .insert(executionAttempts)
      .values({ executionId, attempt, status: 'error', error, startedAt: record.startedAt, endedAt })
      .onDuplicateKeyUpdate({
        set: {
          status: 'error',
          error,
          startedAt: sql`COALESCE(${executionAttempts.startedAt}, VALUES(started_at))`,
          endedAt: sql`COALESCE(${executionAttempts.endedAt}, VALUES(ended_at))`,
        },
      });
    await countAttempt(tx, executionId, attempt);
    await tx.execute(sql`
      UPDATE ${executions} SET cost_usd = (SELECT SUM(cost_usd) FROM execution_attempts WHERE execution_id = ${executionId})
      WHERE id = ${executionId} AND EXISTS (SELECT 1 FROM execution_attempts WHERE execution_id = ${executionId} AND cost_usd IS NOT NULL)`);
    return true;
  });
}

/** What finishExecution stores of a record's attempts. */
export interface AttemptCosts {
  /** The record's `cost_usd`: every attempt's; undefined: keep the stored value (nothing is known of any attempt). */
  total: number | null | undefined;
  /** The last attempt's own cost (the run's outcome, else what its run activity kept). */
  own: number | null;
  /** `own` is in the day's counter already. */
  counted: boolean;
  /** The last attempt gets a row of its own: the record ran more than once, or its attempt has a row already. */
  closesRow: boolean;
}

/**
 * The costs of a record being finished at attempt `current`, from its attempts' rows and the
 * outcome's cost (undefined: none given).
 */
export function attemptCosts(
  current: number,
  rows: ReadonlyArray<Pick<ExecutionAttempt, 'attempt' | 'costUsd' | 'counted'>>,
  outcomeCost: number | null | undefined,
): AttemptCosts {
  const last = rows.find((row) => row.attempt === current);
  const earlier = rows.filter((row) => row.attempt < current && row.costUsd !== null);
  const own = outcomeCost ?? last?.costUsd ?? null;
  const closesRow = current > 1 || last !== undefined;
  const counted = last?.counted === true;
  if (earlier.length === 0 && (last?.costUsd ?? null) === null) return { total: outcomeCost, own, counted, closesRow };
  const earlierSum = earlier.reduce((sum, row) => sum + (row.costUsd ?? 0), 0);
  return { total: earlierSum + (own ?? 0), own, counted, closesRow };
}

/**
 * The row of a record's last attempt, from the record just finished: its status, error and end, its own
 * cost (counted: finishExecution added it), and its start when it had started (`started`: the record
 * was running it). `retriedOnly`: only when the record ran more than once. Repeatable.
 */
export async function closeLastAttempt(
  tx: Pick<Database, 'execute'>,
  executionId: string,
  own: number | null,
  started: boolean,
  options: { retriedOnly?: boolean } = {},
): Promise<void> {
  await tx.execute(sql`
    INSERT INTO execution_attempts (execution_id, attempt, status, error, cost_usd, counted, started_at, ended_at)
    SELECT id, attempt, status, error, ${own}, TRUE, ${started ? sql`started_at` : sql`NULL`}, finished_at FROM ${executions}
    WHERE id = ${executionId}${options.retriedOnly ? sql` AND attempt > 1` : sql``}
    ON DUPLICATE KEY UPDATE
      status = VALUES(status),
      error = VALUES(error),
      cost_usd = VALUES(cost_usd),
      counted = TRUE,
      started_at = COALESCE(execution_attempts.started_at, VALUES(started_at)),
      ended_at = VALUES(ended_at)`);
}

/** The attempts of record `executionId` that have a row, first first. */
export async function attemptsOf(db: Pick<Database, 'select'>, executionId: string): Promise<ExecutionAttempt[]> {
  return db.select().from(executionAttempts).where(eq(executionAttempts.executionId, executionId)).orderBy(asc(executionAttempts.attempt));
}
