import { and, eq, inArray, sql, sum } from 'drizzle-orm';
import type { Database } from './index';
import { agentDailyCosts, agents } from './schema';

/**
 * What the agent records started in a day cost (docs/budgets.md): pipeline steps included (they are
 * agent records), pipeline runs never (their cost is their steps'). Read from the day's counters
 * (agent_daily_costs, kept by finishExecution with each cost), at most one row per agent: the check at
 * each run start does not grow with the day's records.
 */

export interface Day {
  start: Date;
  end: Date;
}

const dayOf = (day: Day) => day.start.toISOString().slice(0, 10);

/** Spent by every agent's runs in `day`. */
export async function spentByAll(db: Database, day: Day): Promise<number> {
  const [row] = await db
    .select({ total: sum(agentDailyCosts.costUsd) })
    .from(agentDailyCosts)
    .where(eq(agentDailyCosts.day, dayOf(day)));
  return Number(row?.total ?? 0);
}

/** Spent by the runs of each of `agentIds` in `day` (an agent that spent nothing is absent). */
export async function spentByAgents(db: Database, day: Day, agentIds: readonly string[]): Promise<Map<string, number>> {
  if (agentIds.length === 0) return new Map();
  const rows = await db
    .select({ agentId: agentDailyCosts.agentId, total: agentDailyCosts.costUsd })
    .from(agentDailyCosts)
    .where(and(eq(agentDailyCosts.day, dayOf(day)), inArray(agentDailyCosts.agentId, [...agentIds])));
  return new Map(rows.map((row) => [row.agentId, Number(row.total)]));
}

export interface BudgetedAgent {
  id: string;
  name: string;
  dailyBudgetUsd: number;
}

/** The agents with a budget of their own, by name (bounded: AGENTS_MAX). */
export async function budgetedAgents(db: Database): Promise<BudgetedAgent[]> {
  const rows = await db
    .select({ id: agents.id, name: agents.name, dailyBudgetUsd: agents.dailyBudgetUsd })
    .from(agents)
    .where(sql`${agents.dailyBudgetUsd} IS NOT NULL`)
    .orderBy(agents.name);
  return rows.map((row) => ({ ...row, dailyBudgetUsd: Number(row.dailyBudgetUsd) }));
}
