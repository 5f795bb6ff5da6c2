import { and, eq, gte, inArray, lt, sql, sum } from 'drizzle-orm';
import type { Database } from './index';
import { agents, executions } from './schema';

/**
 * What the agent records started in a day cost (docs/budgets.md): pipeline steps included (they are
 * agent records), pipeline runs never (their cost is their steps'). Each sum is one range of an index
 * holding every column it reads (executions_budget for all agents, executions_agent_budget for one).
 */

export interface Day {
  start: Date;
  end: Date;
}

const startedIn = (day: Day) => and(eq(executions.kind, 'agent'), gte(executions.startedAt, day.start), lt(executions.startedAt, day.end));

/** Spent by every agent's runs in `day`. */
export async function spentByAll(db: Database, day: Day): Promise<number> {
  const [row] = await db.select({ total: sum(executions.costUsd) }).from(executions).where(startedIn(day));
  return Number(row?.total ?? 0);
}

/** Spent by the runs of each of `agentIds` in `day` (an agent that spent nothing is absent). */
export async function spentByAgents(db: Database, day: Day, agentIds: readonly string[]): Promise<Map<string, number>> {
  if (agentIds.length === 0) return new Map();
  const rows = await db
    .select({ agentId: executions.agentId, total: sum(executions.costUsd) })
    .from(executions)
    .where(and(inArray(executions.agentId, [...agentIds]), startedIn(day)))
    .groupBy(executions.agentId);
  return new Map(rows.map((row) => [row.agentId ?? '', Number(row.total ?? 0)]));
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
