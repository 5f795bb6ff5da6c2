/**
 * What a run cost, from its tokens and a price table (lib/model-prices.json, from PyPI's litellm;
 * an operator's table over it): Codex CLI and Gemini CLI report tokens but no cost, so the service
 * prices them, and the daily budgets, statistics and reports hold for every CLI (docs/agent-clis.md).
 */

/** USD per token. `input` is the input not read from the cache; cache reads and writes are priced apart. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheCreation: number;
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;

export interface PricedTokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheCreation: number;
}

/** A dated snapshot's suffix (`gpt-5-2025-08-07`, `claude-sonnet-4-5-20250929`): priced as its model when not listed itself. */
const DATE_SUFFIX = /-(\d{4}-\d{2}-\d{2}|\d{8})$/;

/** The price of `model`: its own entry, else the entry of its name without a date suffix; null when unknown. */
export function priceOf(table: PriceTable, model: string): ModelPrice | null {
  const own = Object.hasOwn(table, model) ? table[model] : undefined;
  if (own !== undefined) return own;
  const undated = model.replace(DATE_SUFFIX, '');
  return undated !== model && Object.hasOwn(table, undated) ? table[undated]! : null;
}

/** The cost in USD, rounded to a billionth of a dollar (the sum of products leaves float noise). */
export function costOf(tokens: PricedTokens, price: ModelPrice): number {
  const usd =
    tokens.input * price.input +
    tokens.output * price.output +
    tokens.cacheRead * price.cacheRead +
    tokens.cacheCreation * price.cacheCreation;
  return Math.round(usd * 1e9) / 1e9;
}
