import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Database } from '../db';
import { budgetedAgents, spentByAgents, spentByAll } from '../db/budget-queries';
import { readExecutionSettings } from '../db/execution-settings';
import { insertNotificationOnce } from '../db/notifications-store';
import { budgetExhaustedText, budgetWarningText, exhaustedBudget, nearBudget, roundUsd, type DailyBudget } from '../domain/budgets';
import { utcDay } from '../domain/utc-day';
import { ConflictError } from './errors';
import { isoDateTime } from './view-schema';

/**
 * The daily cost budgets' use cases (docs/budgets.md): the check every run start makes, whatever
 * starts it (refused with 409 for a person's or a caller's start, an `error` record for a start by a
 * schedule, a delegation or a retry, a pause for a pipeline step), the 80 % warning, and the view the
 * statistics and the system status show.
 */

export interface BudgetDeps {
  db: Database;
  /** AGENT_WORKDIR_ROOTS: the settings are read with them. */
  workdirRoots: readonly string[];
}

/** The agent a run is of: its own budget, if any. */
export type BudgetedRunAgent = { id: string; name: string; dailyBudgetUsd: number | null };

/** A run refused because a daily budget is exhausted: 409 with the budget, today's spending and the reset. */
export class BudgetExhaustedError extends ConflictError {
  override name = 'BudgetExhaustedError';
  constructor(
    message: string,
    readonly budget: DailyBudget,
  ) {
    super(message);
  }
}

/**
 * The budgets that apply to a run of `agent` now, with today's spending: the global one and the
 * agent's, those set. No budget set: no query of the records (a run start without budgets costs only
 * the settings' read, or nothing when the caller passes them).
 */
export async function budgetsOfRun(
  deps: BudgetDeps,
  agent: BudgetedRunAgent,
  now: Date = new Date(),
  globalBudgetUsd?: number | null,
): Promise<DailyBudget[]> {
  const global = globalBudgetUsd !== undefined ? globalBudgetUsd : (await readExecutionSettings(deps.db, deps.workdirRoots)).dailyBudgetUsd;
  const own = agent.dailyBudgetUsd;
  if (global === null && own === null) return [];
  const day = utcDay(now);
  const [all, byAgent] = await Promise.all([
    global !== null ? spentByAll(deps.db, day) : Promise.resolve(0),
    own !== null ? spentByAgents(deps.db, day, [agent.id]) : Promise.resolve(new Map<string, number>()),
  ]);
  const budgets: DailyBudget[] = [];
  if (global !== null) budgets.push({ scope: 'global', agentId: null, agentName: null, limitUsd: global, spentUsd: all });
  if (own !== null)
    budgets.push({ scope: 'agent', agentId: agent.id, agentName: agent.name, limitUsd: own, spentUsd: byAgent.get(agent.id) ?? 0 });
  return budgets;
}

/** Why a run of `agent` may not start now (an exhausted budget's text), or null. */
export async function budgetRefusal(
  deps: BudgetDeps,
  agent: BudgetedRunAgent,
  now: Date = new Date(),
  globalBudgetUsd?: number | null,
): Promise<BudgetExhaustedError | null> {
  const exhausted = exhaustedBudget(await budgetsOfRun(deps, agent, now, globalBudgetUsd));
  return exhausted === null ? null : new BudgetExhaustedError(budgetExhaustedText(exhausted, utcDay(now).end), exhausted);
}

/** Throws BudgetExhaustedError when a budget of a run of `agent` is exhausted: nothing is to be created or started. */
export async function refuseOverBudget(deps: BudgetDeps, agent: BudgetedRunAgent, globalBudgetUsd?: number | null): Promise<void> {
  const refusal = await budgetRefusal(deps, agent, new Date(), globalBudgetUsd);
  if (refusal !== null) throw refusal;
}

/**
 * After a run of `agent` cost something: a notification for each of its budgets past 80 % of its
 * amount, once a UTC day per budget (the notification's id is derived from the day and the budget, so
 * a second close, a retried activity or another worker inserts nothing).
 */
export async function warnNearBudgets(
  deps: BudgetDeps & { notificationsKept: number },
  agent: BudgetedRunAgent,
  now: Date = new Date(),
): Promise<void> {
  const day = utcDay(now).start.toISOString().slice(0, 10);
  for (const budget of await budgetsOfRun(deps, agent, now)) {
    if (!nearBudget(budget)) continue;
    const key = `budget-warning:${day}:${budget.scope}:${budget.agentId ?? ''}`;
    await insertNotificationOnce(
      deps.db,
      { id: uuidOf(key), kind: 'budget.warning', title: 'Orçamento diário em 80%', message: budgetWarningText(budget), createdAt: now },
      deps.notificationsKept,
    );
  }
}

/** A stable UUID-shaped id for a key. */
function uuidOf(key: string): string {
  const hex = createHash('sha256').update(key).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** One daily budget beside what is spent today (USD, rounded as the records' costs). */
export const budgetViewSchema = z.object({
  limitUsd: z.number(),
  spentUsd: z.number().meta({ description: 'Gasto hoje (dia UTC)' }),
  /** Left today, never below 0. */
  remainingUsd: z.number().meta({ description: 'O que resta hoje, nunca abaixo de 0' }),
  exhausted: z.boolean().meta({ description: 'Verdadeiro: novas execuções são recusadas até resetsAt' }),
});
export type BudgetView = z.infer<typeof budgetViewSchema>;

export const budgetsOverviewSchema = z
  .object({
    /** The UTC day spent is counted in, and when the budgets reset. */
    day: z.iso.date().meta({ description: 'O dia UTC em que o gasto é contado (AAAA-MM-DD)' }),
    resetsAt: isoDateTime.meta({ description: 'Quando os orçamentos recomeçam (a meia-noite UTC seguinte)' }),
    global: budgetViewSchema.nullable().meta({ description: 'O orçamento global (configurações); null: nenhum' }),
    agents: z
      .array(budgetViewSchema.extend({ agentId: z.string(), name: z.string() }))
      .meta({ description: 'Cada agente com orçamento próprio' }),
  })
  .meta({ id: 'BudgetsOverview' });
export type BudgetsOverview = z.infer<typeof budgetsOverviewSchema>;

const viewOf = (limitUsd: number, spentUsd: number): BudgetView => ({
  limitUsd,
  spentUsd: roundUsd(spentUsd),
  remainingUsd: roundUsd(Math.max(0, limitUsd - spentUsd)),
  exhausted: spentUsd >= limitUsd,
});

/** Every budget beside what is spent today: GET /stats/costs and GET /system/status show it. */
export async function budgetsOverview(deps: BudgetDeps, now: Date = new Date()): Promise<BudgetsOverview> {
  const day = utcDay(now);
  const [settings, agents] = await Promise.all([readExecutionSettings(deps.db, deps.workdirRoots), budgetedAgents(deps.db)]);
  const [all, byAgent] = await Promise.all([
    settings.dailyBudgetUsd !== null ? spentByAll(deps.db, day) : Promise.resolve(0),
    spentByAgents(
      deps.db,
      day,
      agents.map((agent) => agent.id),
    ),
  ]);
  return {
    day: day.start.toISOString().slice(0, 10),
    resetsAt: day.end.toISOString(),
    global: settings.dailyBudgetUsd !== null ? viewOf(settings.dailyBudgetUsd, all) : null,
    agents: agents.map((agent) => ({ agentId: agent.id, name: agent.name, ...viewOf(agent.dailyBudgetUsd, byAgent.get(agent.id) ?? 0) })),
  };
}
