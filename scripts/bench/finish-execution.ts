import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { and, eq, inArray, isNull, like, sql } from 'drizzle-orm';
import type { RowDataPacket } from 'mysql2';
import { createDatabase, type Database } from '../../db';
import { finishExecution, getExecution, type Execution, type ExecutionResult } from '../../db/executions-store';
import { migrateDatabase } from '../../db/migrate';
import { agentDailyCosts, executionAttempts, executions } from '../../db/schema';
import { fmt, percentile } from './measure';

/**
 * What closing an agent run costs since issue 43 §16 (commit 70e88f1; docs/benchmarks.md): the real
 * `finishExecution` (one transaction: the record's row locked with SELECT … FOR UPDATE, its attempts
 * read after it, their costs summed, the record ended, the day's counter moved, a retried record's last attempt
 * row written) beside what it replaced, re-created below, each on its own set of `running` agent
 * records, at 1 and at 8 closes in flight, in interleaved rounds so the machine's other load falls on
 * every variant alike:
 * - single UPDATE (before 70e88f1): the old close of a run without a cost, one conditional statement;
 * - UPDATE + counter, tx (before 70e88f1): the old close of a run with a cost (the record's update and
 *   the day's counter in one transaction, no lock read first);
 * - finishExecution (now): a record run once, with a cost;
 * - finishExecution, 2 attempts: a retried record (attempt 2, its failed first attempt's row in
 *   execution_attempts), so an attempt row is read and the last attempt's row is written too;
 * - finishExecution, mixed: every other record a retried one, closed among records run once.
 * Every variant ends with the record's re-read, as finishExecution did before and does now. Each record is
 * closed once, with the same outcome (a completed run's status, cost, tokens, result). A close that
 * InnoDB ends as a deadlock victim is counted and made again at once, as its activity's retry would
 * (BOOKKEEPING_RETRY, after 1 s there); its time includes both. Its own database
 * (`consultores_bench_finish`); only the benchmark's records and counters are deleted, at the start.
 * No thresholds: it exits 1 only when a close fails for another reason or the records and counters
 * are not as expected.
 *
 *   node --import tsx scripts/bench/finish-execution.ts [--records 2000] [--rounds 10] [--agents 1]
 *   npm run bench:finish-execution -- [--records 2000] …   (built, as the other benchmarks)
 *
 * --records: closes per variant and concurrency; --agents: how many agents the records belong to
 * (1: every close moves the same counter row, the most contended case).
 */
const { values: options } = parseArgs({
  options: {
    records: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '10' },
    agents: { type: 'string', default: '1' },
  },
});
const RECORDS = Number(options.records);
const ROUNDS = Number(options.rounds);
const AGENTS = Number(options.agents);
const CONCURRENCIES = [1, 8];
const WARM_UP = 50;
const TASK = 'bench:finish-execution';
const AGENT_PREFIX = 'bench-finish-';
/** What each close's run cost, and what a retried record's failed first attempt cost. */
const COST_USD = 0.0125;
const EARLIER_COST_USD = 0.004;
const INSERT_BATCH = 1_000;

const say = (line: string) => process.stdout.write(`${line}\n`);
const ms = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e6;

/** The outcome every close stores: a completed run, as closeExecution's finishExecutionRecord passes it. */
const outcome = (): ExecutionResult => ({
  status: 'completed',
  error: null,
  sessionId: randomUUID(),
  costUsd: COST_USD,
  durationMs: 42_000,
  turns: 3,
  result: 'OK',
  exitCode: 0,
  tokens: { input: 1_200, output: 340, cacheRead: 15_000, cacheCreation: 2_100 },
});

/** The columns the old close set for this outcome (the same as finishExecution's, cost included). */
const endColumns = (result: ExecutionResult) => ({
  status: result.status,
  finishedAt: new Date(),
  error: result.error ?? null,
  sessionId: result.sessionId ?? null,
  costUsd: result.costUsd ?? null,
  durationMs: result.durationMs ?? null,
  turns: result.turns ?? null,
  result: result.result ?? null,
  exitCode: result.exitCode ?? null,
  inputTokens: result.tokens?.input ?? null,
  outputTokens: result.tokens?.output ?? null,
  cacheReadTokens: result.tokens?.cacheRead ?? null,
  cacheCreationTokens: result.tokens?.cacheCreation ?? null,
});

/**
 * The close before commit 70e88f1 (issue 43 §16) for a run without a cost: one conditional UPDATE,
 * the first close wins, then the record's re-read. Re-created here; the cost is stored too, so the row
 * written is the same as the other variants'.
 */
async function singleUpdateBefore70e88f1(
  db: Database,
  id: string,
  result: ExecutionResult,
): Promise<{ execution: Execution; changed: boolean } | null> {
  const [update] = await db
    .update(executions)
    .set(endColumns(result))
    .where(and(eq(executions.id, id), isNull(executions.finishedAt)));
  const execution = await getExecution(db, id);
  return execution ? { execution, changed: update.affectedRows > 0 } : null;
}

/**
 * The close before commit 70e88f1 for a run with a cost: the same UPDATE and the day's counter, in one
 * transaction, with no lock read first (the old addToDailyCost read the cost from the record). Re-created here.
 */
async function updateAndCounterBefore70e88f1(
  db: Database,
  id: string,
  result: ExecutionResult,
): Promise<{ execution: Execution; changed: boolean } | null> {
  const changed = await db.transaction(async (tx) => {
    const [update] = await tx
      .update(executions)
      .set(endColumns(result))
      .where(and(eq(executions.id, id), isNull(executions.finishedAt)));
    if (update.affectedRows === 0) return false;
    await tx.execute(sql`
      INSERT INTO ${agentDailyCosts} (day, agent_id, cost_usd)
      SELECT DATE(started_at), COALESCE(agent_id, ''), cost_usd FROM ${executions}
      WHERE id = ${id} AND kind = 'agent' AND cost_usd > 0 AND started_at IS NOT NULL
      ON DUPLICATE KEY UPDATE cost_usd = ${agentDailyCosts.costUsd} + VALUES(cost_usd)`);
    return true;
  });
  const execution = await getExecution(db, id);
  return execution ? { execution, changed } : null;
}

interface Variant {
  name: string;
  /** Which of its records are retried ones (attempt 2, the first attempt's row stored): none, all, every other. */
  retried: 'none' | 'all' | 'half';
  /** Its closes add their cost to the day's counter. */
  counts: boolean;
  close: (db: Database, id: string, result: ExecutionResult) => Promise<{ execution: Execution; changed: boolean } | null>;
}

const VARIANTS: Variant[] = [
  { name: 'single UPDATE (before 70e88f1)', retried: 'none', counts: false, close: singleUpdateBefore70e88f1 },
  { name: 'UPDATE + counter, tx (before 70e88f1)', retried: 'none', counts: true, close: updateAndCounterBefore70e88f1 },
  { name: 'finishExecution (now)', retried: 'none', counts: true, close: finishExecution },
  { name: 'finishExecution, 2 attempts', retried: 'all', counts: true, close: finishExecution },
  { name: 'finishExecution, mixed', retried: 'half', counts: true, close: finishExecution },
];

interface Cell {
  variant: Variant;
  concurrency: number;
  ids: string[];
  retriedIds: string[];
  latencies: number[];
  totalMs: number;
  errors: Map<string, number>;
  lockWaits: number;
  /** Closes made again after InnoDB chose them as a deadlock's victim. */
  deadlocks: number;
}

/** How many times a close is made again after a deadlock before it counts as failed. */
const DEADLOCK_TRIES = 5;

/** Stores `count` running agent records (a retried one: attempt 2 and its first attempt's row); their ids and the retried ones'. */
async function seed(db: Database, count: number, retried: Variant['retried']): Promise<{ ids: string[]; retriedIds: string[] }> {
  const ids = Array.from({ length: count }, () => randomUUID());
  const isRetried = (n: number) => retried === 'all' || (retried === 'half' && n % 2 === 1);
  const retriedIds = ids.filter((_, n) => isRetried(n));
  const now = Date.now();
  for (let i = 0; i < count; i += INSERT_BATCH) {
    const batch = ids.slice(i, i + INSERT_BATCH);
    await db.insert(executions).values(
      batch.map((id, j) => {
        const agent = (i + j) % AGENTS;
        return {
          id,
          kind: 'agent' as const,
          agentId: `${AGENT_PREFIX}${agent}`,
          agentName: `bench finish ${agent}`,
          status: 'running' as const,
          source: 'manual' as const,
          task: TASK,
          instructions: '',
          workingDirectory: '/home/projetos',
          model: 'sonnet',
          attempt: isRetried(i + j) ? 2 : 1,
          output: 'bench output line\n'.repeat(100),
          outputSeq: 100,
          createdAt: new Date(now - 120_000),
          startedAt: new Date(now - 60_000),
        };
      }),
    );
    const retriedBatch = batch.filter((_, j) => isRetried(i + j));
    if (retriedBatch.length > 0) {
      await db.insert(executionAttempts).values(
        retriedBatch.map((id) => ({
          executionId: id,
          attempt: 1,
          status: 'error' as const,
          error: 'bench: the first attempt failed',
          costUsd: EARLIER_COST_USD,
          counted: true,
          startedAt: new Date(now - 110_000),
          endedAt: new Date(now - 70_000),
        })),
      );
    }
  }
  return { ids, retriedIds };
}

/** InnoDB's count of row lock waits so far, the server's (other sessions' work included). */
async function innodbLockWaits(db: Database): Promise<number> {
  const [rows] = (await db.execute(sql`SHOW GLOBAL STATUS LIKE 'Innodb_row_lock_waits'`)) as unknown as [RowDataPacket[]];
  return Number(rows[0]?.Value ?? 0);
}

/** Closes `ids` with `concurrency` closes in flight; each close's time goes to the cell. Returns the wall time. */
async function closeAll(db: Database, cell: Cell, ids: string[], record: boolean): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next]!;
      next += 1;
      const t0 = process.hrtime.bigint();
      for (let tries = 1; ; tries++) {
        try {
          const closed = await cell.variant.close(db, id, outcome());
          if (!closed?.changed || closed.execution.status !== 'completed') throw new Error(`record ${id} was not closed by this call`);
          break;
        } catch (error) {
          const code = (error as { cause?: { code?: string } }).cause?.code ?? (error as { code?: string }).code ?? 'error';
          if (code === 'ER_LOCK_DEADLOCK' && tries < DEADLOCK_TRIES) {
            cell.deadlocks += 1;
            continue;
          }
          cell.errors.set(code, (cell.errors.get(code) ?? 0) + 1);
          if ([...cell.errors.values()].reduce((a, b) => a + b, 0) === 1) process.stderr.write(`${cell.variant.name}: ${String(error)}\n`);
          break;
        }
      }
      if (record) cell.latencies.push(ms(t0));
    }
  };
  await Promise.all(Array.from({ length: cell.concurrency }, worker));
  return ms(started);
}

async function main(): Promise<void> {
  if (
    !Number.isInteger(RECORDS) ||
    RECORDS < ROUNDS ||
    !Number.isInteger(ROUNDS) ||
    ROUNDS < 1 ||
    !Number.isInteger(AGENTS) ||
    AGENTS < 1
  ) {
    throw new Error('--records, --rounds and --agents are whole numbers, --records at least --rounds');
  }
  // The benchmark's own database; set before the config module reads the environment.
  if (!process.env.MYSQL_DATABASE) process.env.MYSQL_DATABASE = 'consultores_bench_finish';
  await import('./bench-env');
  const { config } = await import('../../lib/config');
  await migrateDatabase(config.mysql);
  const database = createDatabase(config.mysql);
  const { db } = database;
  try {
    // Only what this benchmark wrote (the cascade takes the attempts' rows).
    await db.delete(executions).where(eq(executions.task, TASK));
    await db.delete(agentDailyCosts).where(like(agentDailyCosts.agentId, `${AGENT_PREFIX}%`));

    const seeding = process.hrtime.bigint();
    const cells: Cell[] = [];
    const warmUps: Array<{ cell: Cell; ids: string[]; retriedIds: string[] }> = [];
    for (const variant of VARIANTS) {
      for (const concurrency of CONCURRENCIES) {
        const seeded = await seed(db, RECORDS, variant.retried);
        cells.push({ variant, concurrency, ...seeded, latencies: [], totalMs: 0, errors: new Map(), lockWaits: 0, deadlocks: 0 });
      }
      const warmUp = await seed(db, WARM_UP, variant.retried);
      warmUps.push({ cell: cells[cells.length - 1]!, ...warmUp });
    }
    say(
      `pool of ${config.mysql.poolSize} connections; seeded ${cells.length * RECORDS + warmUps.length * WARM_UP} running records in ${fmt(ms(seeding) / 1000, 1).trim()} s (database ${config.mysql.database})`,
    );

    // Warm-up (not measured): each variant closes a few records of its own, at the higher concurrency.
    for (const { cell, ids } of warmUps) await closeAll(db, cell, ids, false);
    for (const cell of cells) {
      cell.errors.clear();
      cell.deadlocks = 0;
    }

    // Rounds: each cell closes 1/ROUNDS of its records, the cells' order turning from round to round.
    const chunk = Math.ceil(RECORDS / ROUNDS);
    const measuring = process.hrtime.bigint();
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < cells.length; k++) {
        const cell = cells[(k + round) % cells.length]!;
        const ids = cell.ids.slice(round * chunk, (round + 1) * chunk);
        if (ids.length === 0) continue;
        const before = await innodbLockWaits(db);
        cell.totalMs += await closeAll(db, cell, ids, true);
        cell.lockWaits += (await innodbLockWaits(db)) - before;
      }
    }
    const measuredS = ms(measuring) / 1000;

    // What the closes should have left: every record ended, a retried one with both attempts' costs and rows,
    // the day's counters moved once per paid close.
    const [open] = await db
      .select({ n: sql<number>`COUNT(*)` })
      .from(executions)
      .where(and(eq(executions.task, TASK), isNull(executions.finishedAt)));
    const retriedIds = [...cells, ...warmUps].flatMap((set) => set.retriedIds);
    const [retriedRows] = await db
      .select({ n: sql<number>`COUNT(*)`, total: sql<string>`SUM(${executions.costUsd})` })
      .from(executions)
      .where(inArray(executions.id, retriedIds));
    const [attemptRows] = await db
      .select({ n: sql<number>`COUNT(*)` })
      .from(executionAttempts)
      .where(inArray(executionAttempts.executionId, retriedIds));
    const [counter] = await db
      .select({ total: sql<string>`SUM(${agentDailyCosts.costUsd})` })
      .from(agentDailyCosts)
      .where(like(agentDailyCosts.agentId, `${AGENT_PREFIX}%`));
    const paidCloses =
      cells.filter((cell) => cell.variant.counts).length * RECORDS + warmUps.filter(({ cell }) => cell.variant.counts).length * WARM_UP;
    const problems = [
      Number(open?.n) === 0 ? '' : `${open?.n} records left open`,
      Math.abs(Number(retriedRows?.total) - retriedIds.length * (COST_USD + EARLIER_COST_USD)) < 1e-6
        ? ''
        : `retried records' cost ${retriedRows?.total}`,
      Number(attemptRows?.n) === 2 * retriedIds.length ? '' : `${attemptRows?.n} attempt rows for ${retriedIds.length} retried records`,
      Math.abs(Number(counter?.total) - paidCloses * COST_USD) < 1e-6
        ? ''
        : `the day's counters hold ${counter?.total}, expected ${paidCloses * COST_USD}`,
    ].filter(Boolean);
    say(
      problems.length === 0
        ? `checked: every record ended, retried ones with both attempts, the day's counters moved once per paid close (${paidCloses})`
        : `NOT AS EXPECTED: ${problems.join('; ')}`,
    );

    say(
      `\nclosing ${RECORDS} running agent records per variant and concurrency, ${ROUNDS} interleaved rounds (${fmt(measuredS, 1).trim()} s), ${AGENTS} agent(s)`,
    );
    say(
      `${'variant'.padEnd(38)} ${'conc'.padStart(4)} ${'records'.padStart(7)} ${'total ms'.padStart(9)} ${'p50 ms'.padStart(7)} ${'p95 ms'.padStart(7)} ${'closes/s'.padStart(8)} ${'ratio'.padStart(6)} ${'lock waits'.padStart(10)} ${'deadlocks'.padStart(9)}  failed`,
    );
    let failed = problems.length > 0;
    for (const concurrency of CONCURRENCIES) {
      const row = cells.filter((cell) => cell.concurrency === concurrency);
      const reference = row[0]!;
      for (const cell of row) {
        const sorted = [...cell.latencies].sort((a, b) => a - b);
        const errors = [...cell.errors].map(([code, n]) => `${code} ${n}`).join(', ') || '0';
        if (cell.errors.size > 0) failed = true;
        say(
          `${cell.variant.name.padEnd(38)} ${String(concurrency).padStart(4)} ${String(cell.latencies.length).padStart(7)} ${cell.totalMs.toFixed(0).padStart(9)} ${percentile(sorted, 50).toFixed(2).padStart(7)} ${percentile(sorted, 95).toFixed(2).padStart(7)} ${(cell.latencies.length / (cell.totalMs / 1000)).toFixed(0).padStart(8)} ${(cell.totalMs / reference.totalMs).toFixed(2).padStart(6)} ${String(cell.lockWaits).padStart(10)} ${String(cell.deadlocks).padStart(9)}  ${errors}`,
        );
      }
    }
    say(
      "ratio: total ms / single UPDATE's at the same concurrency; lock waits: InnoDB's (the server's) over the cell's closes; deadlocks: closes made again",
    );
    if (failed) process.exitCode = 1;
  } finally {
    await database.pool.end();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:finish-execution: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
