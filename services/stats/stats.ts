import { z } from 'zod';
import type { Database } from '../../db';
import {
  agentsByRuns,
  costsByAgent,
  costsByDay,
  costsByPipeline,
  runsByDayAndStatus,
  type StatsWindow,
  type TokenTotals,
} from '../../db/stats-queries';
import { budgetsOverview, budgetsOverviewSchema } from '../budgets';

/**
 * The dashboard's statistics (contract 3.9; docs/statistics.md): GET /stats/charts and GET
 * /stats/costs. The database groups (db/stats-queries.ts); this module lays the rows out on the
 * window's days and rounds money to 4 decimals, as numbers.
 */

export interface StatsDeps {
  db: Database;
  /** AGENT_WORKDIR_ROOTS: the settings (the global budget) are read with them. */
  workdirRoots: readonly string[];
}

const DAY_MS = 86_400_000;
/** The charts' top agents (the panel's five colours) and the costs' (the legacy bound). */
const CHART_TOP_AGENTS = 5;
const COST_TOP_AGENTS = 10;
/** Rows of the per-agent and per-pipeline breakdowns of /stats/costs: every agent of a real installation, bounded. */
const BREAKDOWN_MAX = 100;

const round4 = (value: number) => Math.round(value * 10_000) / 10_000;
const isoDay = (date: Date) => date.toISOString().slice(0, 10);

/** The last `days` UTC days up to `now`'s: their labels (oldest first) and the window [first day 00:00, tomorrow 00:00). */
export function statsWindow(days: number, now: Date = new Date()): StatsWindow & { labels: string[] } {
  const tomorrow = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + DAY_MS;
  const start = new Date(tomorrow - days * DAY_MS);
  const labels = Array.from({ length: days }, (_, i) => isoDay(new Date(start.getTime() + i * DAY_MS)));
  return { start, end: new Date(tomorrow), labels };
}

const day = z.iso.date();
const count = z.number().int();

export const chartStatsSchema = z
  .object({
    labels: z.array(day).meta({ description: 'Os dias da janela (UTC), do mais antigo ao de hoje' }),
    successCounts: z.array(count).meta({ description: 'Por dia, execuções `completed`' }),
    errorCounts: z.array(count).meta({ description: 'Por dia, execuções `error`' }),
    /** Every run of the day, whatever its status. */
    executionCounts: z.array(count).meta({ description: 'Por dia, todas as execuções, qualquer que seja o status' }),
    costData: z
      .array(z.number())
      .meta({ description: 'Por dia, o custo (USD, 4 casas) dos registros de agente, passos de pipeline incluídos' }),
    statusDistribution: z.record(z.string(), count).meta({ description: 'Status → execuções na janela, só os presentes' }),
    topAgents: z.array(z.object({ name: z.string(), count })).meta({ description: 'Os 5 agentes com mais registros na janela' }),
  })
  .meta({ id: 'ChartStats' });
export type ChartStats = z.infer<typeof chartStatsSchema>;

/** The order statuses are listed in (the doughnut's legend); a status not listed comes after them. */
const STATUS_ORDER = ['completed', 'error', 'canceled', 'rejected', 'running', 'awaiting_approval', 'retrying', 'queued'];

/** GET /stats/charts: runs per day by outcome, cost per day, statuses and top agents, all over the window. */
export async function chartStats(deps: StatsDeps, days: number, now: Date = new Date()): Promise<ChartStats> {
  const window = statsWindow(days, now);
  const [byDay, agents] = await Promise.all([runsByDayAndStatus(deps.db, window), agentsByRuns(deps.db, window, CHART_TOP_AGENTS)]);
  const index = new Map(window.labels.map((label, i) => [label, i]));
  const zeros = () => window.labels.map(() => 0);
  const successCounts = zeros();
  const errorCounts = zeros();
  const executionCounts = zeros();
  const costs = zeros();
  const statuses = new Map<string, number>();
  for (const row of byDay) {
    const i = index.get(row.day);
    if (i === undefined) continue;
    if (row.status === 'completed') successCounts[i]! += row.runs;
    if (row.status === 'error') errorCounts[i]! += row.runs;
    executionCounts[i]! += row.runs;
    costs[i]! += row.cost;
    if (row.runs > 0) statuses.set(row.status, (statuses.get(row.status) ?? 0) + row.runs);
  }
  const rank = (status: string) => (STATUS_ORDER.includes(status) ? STATUS_ORDER.indexOf(status) : STATUS_ORDER.length);
  const statusDistribution = Object.fromEntries([...statuses].sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b)));
  return {
    labels: window.labels,
    successCounts,
    errorCounts,
    executionCounts,
    costData: costs.map(round4),
    statusDistribution,
    topAgents: agents.map(({ name, count }) => ({ name, count })),
  };
}

/** Token counts as the CLI reports them, summed. */
export const tokenTotalsSchema = z
  .object({ input: count, output: count, cacheRead: count, cacheCreation: count })
  .meta({ id: 'StatsTokenTotals' }) satisfies z.ZodType<TokenTotals>;

export const costStatsSchema = z
  .object({
    totalCost: z.number().meta({ description: 'USD, 4 casas' }),
    /** Agent records (pipeline steps included) with a cost. */
    totalExecutions: count.meta({ description: 'Registros de agente (passos de pipeline incluídos) com custo' }),
    period: z.object({ days: count, from: day, to: day }).meta({ description: 'A janela: seu primeiro e último dia (UTC)' }),
    topAgents: z.array(z.object({ name: z.string(), cost: z.number(), count })).meta({ description: 'Os 10 agentes mais caros' }),
    /** Every day of the window, 0 when nothing cost anything. */
    dailyCosts: z.record(z.string(), z.number()).meta({ description: 'AAAA-MM-DD → custo, para cada dia da janela (0 sem custo)' }),
    tokens: tokenTotalsSchema,
    byDay: z
      .array(z.object({ date: day, cost: z.number(), count, tokens: tokenTotalsSchema }))
      .meta({ description: 'Só os dias com custo, do mais antigo' }),
    byAgent: z
      .array(z.object({ agentId: z.string().nullable(), name: z.string(), cost: z.number(), count, tokens: tokenTotalsSchema }))
      .meta({ description: 'Os mais caros primeiro, no máximo 100' }),
    byPipeline: z
      .array(
        z.object({
          pipelineId: z.string().nullable(),
          name: z.string(),
          cost: z.number(),
          runs: count.meta({ description: 'Execuções distintas com um passo com custo na janela' }),
          steps: count.meta({ description: 'Esses passos' }),
          tokens: tokenTotalsSchema,
        }),
      )
      .meta({ description: 'Os mais caros primeiro, no máximo 100' }),
    /** Each daily budget beside what is spent today, whatever the window (docs/budgets.md). */
    budgets: budgetsOverviewSchema,
  })
  .meta({ id: 'CostStats' });
export type CostStats = z.infer<typeof costStatsSchema>;

/** GET /stats/costs: what the agent records of the window cost, in total, per day, per agent and per pipeline, with their tokens. */
export async function costStats(deps: StatsDeps, days: number, now: Date = new Date()): Promise<CostStats> {
  const window = statsWindow(days, now);
  const [byDay, byAgent, byPipeline, budgets] = await Promise.all([
    costsByDay(deps.db, window),
    costsByAgent(deps.db, window, BREAKDOWN_MAX),
    costsByPipeline(deps.db, window, BREAKDOWN_MAX),
    budgetsOverview(deps, now),
  ]);
  const dailyCosts: Record<string, number> = Object.fromEntries(window.labels.map((label) => [label, 0]));
  const tokens: TokenTotals = { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 };
  let totalCost = 0;
  let totalExecutions = 0;
  for (const row of byDay) {
    dailyCosts[row.day] = round4(row.cost);
    totalCost += row.cost;
    totalExecutions += row.count;
    for (const key of Object.keys(tokens) as Array<keyof TokenTotals>) tokens[key] += row.tokens[key];
  }
  const agents = byAgent.map(({ agentId, name, cost, count, tokens: used }) => ({
    agentId,
    name,
    cost: round4(cost),
    count,
    tokens: used,
  }));
  return {
    totalCost: round4(totalCost),
    totalExecutions,
    period: { days, from: window.labels[0]!, to: window.labels[window.labels.length - 1]! },
    topAgents: agents.slice(0, COST_TOP_AGENTS).map(({ name, cost, count }) => ({ name, cost, count })),
    dailyCosts,
    tokens,
    byDay: byDay.map((row) => ({ date: row.day, cost: round4(row.cost), count: row.count, tokens: row.tokens })),
    byAgent: agents,
    byPipeline: byPipeline.map(({ pipelineId, name, cost, runs, count, tokens: used }) => ({
      pipelineId,
      name,
      cost: round4(cost),
      runs,
      steps: count,
      tokens: used,
    })),
    budgets,
  };
}
