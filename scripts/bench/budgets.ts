import './budgets-env';
import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { createDatabase, type Database } from '../../db';
import { createAgent } from '../../db/agents-store';
import { readExecutionSettings, updateExecutionSettings } from '../../db/execution-settings';
import { migrateDatabase } from '../../db/migrate';
import { agentDailyCosts, agents, executions } from '../../db/schema';
import { utcDay } from '../../domain/utc-day';
import { config } from '../../lib/config';
import { budgetRefusal, type BudgetDeps } from '../../services/budgets';
import { fmt, percentile } from './measure';

/**
 * The daily budgets' check at each run start (issue 23; docs/budgets.md), at BENCH_BUDGET_RECORDS
 * agent records started today (default 100 000: a very busy day) spread over 50 agents, each case
 * BENCH_BUDGET_CHECKS times (default 1 000), alternating, beside what a run start already does:
 * - reference: the settings' read every start makes (executeAgent reads them for its defaults);
 * - no budget set: the check itself (the settings' read, no sum);
 * - an agent's budget: the settings and that agent's counter of the day;
 * - the global and the agent's budget: the day's counters (agent_daily_costs);
 * - what the counters replace: a SUM over the day's records, as the check first did.
 * Each answer of the check is verified against that SUM first.
 *
 *   npm run bench:budgets   (BENCH_BUDGET_RECORDS, BENCH_BUDGET_CHECKS)
 */
const RECORDS = Number(process.env.BENCH_BUDGET_RECORDS ?? 100_000);
const CHECKS = Number(process.env.BENCH_BUDGET_CHECKS ?? 1_000);
const AGENTS = 50;
const INSERT_BATCH = 2_000;

const say = (line: string) => process.stdout.write(`${line}\n`);
const ms = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e6;

async function seed(db: Database): Promise<Array<{ id: string; name: string }>> {
  const existing = await db
    .select({ id: agents.id, name: agents.name })
    .from(agents)
    .where(sql`${agents.name} LIKE 'bench budgets %'`);
  const { start } = utcDay(new Date());
  const [today] = await db
    .select({ n: sql<number>`COUNT(*)` })
    .from(executions)
    .where(sql`${executions.startedAt} >= ${start}`);
  if (existing.length === AGENTS && Number(today?.n) >= RECORDS) return existing;
  await db.delete(executions);
  await db.delete(agents);
  const created: Array<{ id: string; name: string }> = [];
  for (let i = 0; i < AGENTS; i++) {
    const agent = await createAgent(
      db,
      {
        name: `bench budgets ${i}`,
        description: '',
        model: null,
        instructions: '',
        workingDirectory: null,
        permissionMode: '',
        maxTurns: 0,
      },
      { agents: 1_000 },
    );
    created.push({ id: agent.id, name: agent.name });
  }
  const started = process.hrtime.bigint();
  // Spread over today up to now; a cost of up to 5 cents each.
  const span = Math.max(1, Date.now() - start.getTime() - 1_000);
  for (let i = 0; i < RECORDS; i += INSERT_BATCH) {
    await db.insert(executions).values(
      Array.from({ length: Math.min(INSERT_BATCH, RECORDS - i) }, (_, j) => {
        const n = i + j;
        const agent = created[n % AGENTS]!;
        const startedAt = new Date(start.getTime() + ((n * 7_919) % span));
        return {
          id: randomUUID(),
          kind: 'agent' as const,
          agentId: agent.id,
          agentName: agent.name,
          status: 'completed' as const,
          source: 'manual' as const,
          task: 'bench:budgets',
          instructions: '',
          workingDirectory: '/home/projetos',
          model: 'sonnet',
          output: 'OK',
          costUsd: ((n * 37) % 500) / 10_000,
          createdAt: startedAt,
          startedAt,
          finishedAt: new Date(startedAt.getTime() + 1_000),
        };
      }),
    );
  }
  // The day's counters, as the migration that made them fills them (finishExecution keeps them after).
  await db.delete(agentDailyCosts);
  await db.execute(sql`
    INSERT INTO ${agentDailyCosts} (day, agent_id, cost_usd)
    SELECT DATE(started_at), COALESCE(agent_id, ''), SUM(cost_usd) FROM ${executions}
    WHERE kind = 'agent' AND cost_usd > 0 AND started_at IS NOT NULL GROUP BY DATE(started_at), COALESCE(agent_id, '')`);
  say(`seeded ${RECORDS} records of ${AGENTS} agents started today in ${fmt(ms(started) / 1000)} s`);
  return created;
}

interface Case {
  name: string;
  prepare: () => Promise<void>;
  run: () => Promise<unknown>;
  times: number[];
}

async function main(): Promise<void> {
  await migrateDatabase(config.mysql);
  const database = createDatabase(config.mysql);
  const { db } = database;
  const roots = config.orchestration.workdirRoots;
  const deps: BudgetDeps = { db, workdirRoots: roots };
  try {
    const seeded = await seed(db);
    const agent = { ...seeded[0]!, dailyBudgetUsd: null as number | null };
    const setGlobal = (dailyBudgetUsd: number | null) => updateExecutionSettings(db, roots, { dailyBudgetUsd });
    const setOwn = async (dailyBudgetUsd: number | null) => {
      agent.dailyBudgetUsd = dailyBudgetUsd;
      await db.update(agents).set({ dailyBudgetUsd }).where(eq(agents.id, agent.id));
    };

    // Correctness first: the sums the check compares are those of the records.
    await setGlobal(1_000_000);
    await setOwn(1_000_000);
    const { start } = utcDay(new Date());
    const sumOfRecords = () =>
      db
        .select({
          all: sql<string>`SUM(${executions.costUsd})`,
          own: sql<string>`SUM(CASE WHEN ${executions.agentId} = ${agent.id} THEN ${executions.costUsd} END)`,
        })
        .from(executions)
        .where(sql`${executions.kind} = 'agent' AND ${executions.startedAt} >= ${start}`);
    const [plain] = await sumOfRecords();
    const ownLimit = Number(plain!.own) / 2;
    await setOwn(ownLimit);
    const refusal = await budgetRefusal(deps, agent);
    if (refusal?.budget.scope !== 'agent' || Math.abs(refusal.budget.spentUsd - Number(plain!.own)) > 1e-6) {
      throw new Error(`the check's sum ${refusal?.budget.spentUsd} differs from the records' ${plain!.own}`);
    }
    await setGlobal(Number(plain!.all) / 2);
    const global = await budgetRefusal(deps, agent);
    if (global?.budget.scope !== 'global' || Math.abs(global.budget.spentUsd - Number(plain!.all)) > 1e-6) {
      throw new Error(`the check's global sum ${global?.budget.spentUsd} differs from the records' ${plain!.all}`);
    }
    say(`check verified: agent spent ${fmt(Number(plain!.own))} USD today of ${fmt(Number(plain!.all))} USD for all agents`);

    const cases: Case[] = [
      {
        name: 'reference: settings read',
        prepare: async () => {
          await setGlobal(null);
          await setOwn(null);
        },
        run: () => readExecutionSettings(db, roots),
        times: [],
      },
      {
        name: 'check, no budget set',
        prepare: async () => {
          await setGlobal(null);
          await setOwn(null);
        },
        run: () => budgetRefusal(deps, agent),
        times: [],
      },
      {
        name: "check, the agent's budget",
        prepare: async () => {
          await setGlobal(null);
          await setOwn(ownLimit);
        },
        run: () => budgetRefusal(deps, agent),
        times: [],
      },
      {
        name: 'check, global and agent',
        prepare: async () => {
          await setGlobal(1_000_000);
          await setOwn(ownLimit);
        },
        run: () => budgetRefusal(deps, agent),
        times: [],
      },
      { name: "a SUM of the day's records", prepare: async () => undefined, run: sumOfRecords, times: [] },
    ];
    // Warm-up, then the cases alternate in rounds so the machine's drift is shared.
    for (const item of cases) {
      await item.prepare();
      for (let i = 0; i < 20; i++) await item.run();
    }
    const rounds = 10;
    for (let round = 0; round < rounds; round++) {
      for (const item of cases) {
        await item.prepare();
        for (let i = 0; i < CHECKS / rounds; i++) {
          const t0 = process.hrtime.bigint();
          await item.run();
          item.times.push(ms(t0));
        }
      }
    }
    const reference = cases[0]!;
    const p = (item: Case, q: number) =>
      percentile(
        [...item.times].sort((a, b) => a - b),
        q,
      );
    say(`\n${RECORDS} records today, ${CHECKS} calls each`);
    say(`${'case'.padEnd(28)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'p50 ratio'.padStart(10)} ${'adds p50 ms'.padStart(12)}`);
    for (const item of cases) {
      const ratio = p(item, 50) / p(reference, 50);
      say(
        `${item.name.padEnd(28)} ${fmt(p(item, 50)).padStart(8)} ${fmt(p(item, 99)).padStart(8)} ${ratio.toFixed(2).padStart(10)} ${fmt(p(item, 50) - p(reference, 50)).padStart(12)}`,
      );
    }
    await setGlobal(null);
  } finally {
    await database.pool.end();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:budgets: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
