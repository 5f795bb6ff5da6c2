import modelPrices from '../../lib/model-prices.json';
import { costOf, priceOf, type PriceTable } from '../../domain/model-prices';
import type { AgentRunSummary } from './process/run-summary';

/** Said once in the output of a run whose model has no known price (its cost counts 0). */
export const UNPRICED_LINE = 'custo desconhecido: o modelo não tem preço na tabela (lib/model-prices.json); a execução conta 0 USD';

/** The price table shipped with the service (scripts/prices/update-model-prices.py: litellm's list, dated). */
export const SHIPPED_PRICES: PriceTable = modelPrices.models;

/**
 * The run's cost when its CLI reported none (Codex CLI, Gemini CLI: tokens only), from the price of
 * its model; `unpriced` names the model when the table has no price for it (the cost then counts 0,
 * said once in the run's output). A cost the CLI reported, or a run without tokens, is left as it is.
 */
export function pricedRun(
  summary: Pick<AgentRunSummary, 'costUsd' | 'tokens'>,
  model: string | null,
  prices: PriceTable = SHIPPED_PRICES,
): { costUsd: number | null; unpriced: string | null } {
  if (summary.costUsd !== null || summary.tokens === null) return { costUsd: summary.costUsd, unpriced: null };
  const price = model === null || model === '' ? null : priceOf(prices, model);
  if (price === null) return { costUsd: 0, unpriced: model === null || model === '' ? 'o modelo padrão do CLI' : model };
  return { costUsd: costOf(summary.tokens, price), unpriced: null };
}
