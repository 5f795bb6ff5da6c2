import { budgetExhaustedText, budgetWarningText, exhaustedBudget, nearBudget, usd, type DailyBudget } from '../../domain/budgets';

const global = (limitUsd: number, spentUsd: number): DailyBudget => ({
  scope: 'global',
  agentId: null,
  agentName: null,
  limitUsd,
  spentUsd,
});
const agent = (limitUsd: number, spentUsd: number): DailyBudget => ({
  scope: 'agent',
  agentId: 'a1',
  agentName: 'revisor',
  limitUsd,
  spentUsd,
});

describe('daily budgets (domain/budgets.ts)', () => {
  it('a budget is exhausted when spent reaches its amount; the global one is named first', () => {
    expect(exhaustedBudget([])).toBeNull();
    expect(exhaustedBudget([agent(1, 0.9999)])).toBeNull();
    expect(exhaustedBudget([agent(1, 1)])).toEqual(agent(1, 1));
    expect(exhaustedBudget([agent(1, 2), global(5, 5)])).toEqual(global(5, 5));
    expect(exhaustedBudget([agent(1, 2), global(5, 4)])).toEqual(agent(1, 2));
  });

  it('warns from 80 % of the amount', () => {
    expect(nearBudget(global(10, 7.99))).toBe(false);
    expect(nearBudget(global(10, 8))).toBe(true);
    expect(nearBudget(global(10, 12))).toBe(true);
  });

  it.each([
    [5, 'US$ 5.00'],
    [25.5, 'US$ 25.50'],
    [0.00015, 'US$ 0.00015'],
    [0.123456789, 'US$ 0.123457'],
    [0, 'US$ 0.00'],
    [1234.5678, 'US$ 1234.5678'],
  ])('writes %p as %s', (amount, text) => {
    expect(usd(amount)).toBe(text);
  });

  it('says which budget, what was spent today and when it resets, in the panel language', () => {
    const resets = new Date('2026-11-27T00:00:00.000Z');
    expect(budgetExhaustedText(global(5, 5.25), resets)).toBe(
      'O orçamento diário global de US$ 5.00 foi atingido: US$ 5.25 gastos hoje; renova em 2026-11-27T00:00:00.000Z (00:00 UTC)',
    );
    expect(budgetExhaustedText(agent(1, 1), resets)).toBe(
      'O orçamento diário do agente revisor de US$ 1.00 foi atingido: US$ 1.00 gastos hoje; renova em 2026-11-27T00:00:00.000Z (00:00 UTC)',
    );
    expect(budgetWarningText(agent(10, 8.5))).toBe('O orçamento diário do agente revisor está em 85%: US$ 8.50 de US$ 10.00 gastos hoje');
  });
});
