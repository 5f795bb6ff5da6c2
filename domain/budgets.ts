/**
 * Daily cost budgets (docs/budgets.md): a global one (the settings' `dailyBudgetUsd`) and one per
 * agent (`config.dailyBudgetUsd`). Spent is what the agent records started in the current UTC day
 * cost (domain/utc-day.ts), pipeline steps included; an agent's budget counts only its own runs. A
 * budget is exhausted when spent ≥ amount. Pure: the use cases read the amounts and the sums.
 */

/** Bounds of a budget: more than 0, at most this many USD a day. */
export const DAILY_BUDGET_USD_MAX = 1_000_000;
/** A budget past this share of its amount raises one notification a day. */
export const BUDGET_WARNING_SHARE = 0.8;

export interface DailyBudget {
  scope: 'global' | 'agent';
  /** The agent's, for an agent's budget. */
  agentId: string | null;
  agentName: string | null;
  limitUsd: number;
  spentUsd: number;
}

/** The first exhausted budget (the global one first), or null. */
export function exhaustedBudget(budgets: readonly DailyBudget[]): DailyBudget | null {
  const ordered = [...budgets].sort((a, b) => (a.scope === b.scope ? 0 : a.scope === 'global' ? -1 : 1));
  return ordered.find((budget) => budget.spentUsd >= budget.limitUsd) ?? null;
}

/** Past BUDGET_WARNING_SHARE of its amount (exhausted ones included). */
export function nearBudget(budget: DailyBudget): boolean {
  return budget.spentUsd >= budget.limitUsd * BUDGET_WARNING_SHARE;
}

/** Budget amounts are kept to a millionth of a dollar: a run of a small model costs fractions of a cent. */
export const roundUsd = (amount: number): number => Math.round(amount * 1_000_000) / 1_000_000;

/** A US$ amount for a person: at least 2 decimals, up to 6 (US$ 5.00, US$ 0.00015). */
export function usd(amount: number): string {
  const [whole, decimals = ''] = roundUsd(amount).toFixed(6).split('.');
  return `US$ ${whole}.${decimals.replace(/0+$/, '').padEnd(2, '0')}`;
}

/** Which budget, in the panel's language. */
export function budgetName(budget: Pick<DailyBudget, 'scope' | 'agentName' | 'agentId'>): string {
  return budget.scope === 'global' ? 'o orçamento diário global' : `o orçamento diário do agente ${budget.agentName ?? budget.agentId}`;
}

/** Why a run is refused or paused: the budget, what was spent today and when it resets. */
export function budgetExhaustedText(budget: DailyBudget, resetsAt: Date): string {
  return (
    `${capitalised(budgetName(budget))} de ${usd(budget.limitUsd)} foi atingido: ${usd(budget.spentUsd)} gastos hoje; ` +
    `renova em ${resetsAt.toISOString()} (00:00 UTC)`
  );
}

/** The 80 % warning's message. */
export function budgetWarningText(budget: DailyBudget): string {
  const share = Math.floor((budget.spentUsd / budget.limitUsd) * 100);
  return `${capitalised(budgetName(budget))} está em ${share}%: ${usd(budget.spentUsd)} de ${usd(budget.limitUsd)} gastos hoje`;
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
