import fs from 'node:fs';
import modelPrices from '../../lib/model-prices.json';
import { costOf, mergePriceTables, parsePriceTable, priceOf, PriceTableError, type PriceTable } from '../../domain/model-prices';
import type { AgentRunSummary } from './process/run-summary';

/** Said once in the output of a run whose model has no known price (its cost counts 0). */
export const UNPRICED_LINE =
  'custo desconhecido: o modelo não tem preço na tabela (lib/model-prices.json, MODEL_PRICES_FILE); a execução conta 0 USD';

/** The price table shipped with the service (scripts/prices/update-model-prices.py: litellm's list, dated). */
export const SHIPPED_PRICES: PriceTable = modelPrices.models;

/** The shipped table's date and source, said in the worker's start log beside the operator's file. */
export const SHIPPED_PRICES_SOURCE = { source: modelPrices.source, retrieved: modelPrices.retrieved } as const;

/** A price file larger than this is refused unread (10 000 entries take about 1.5 MB). */
export const MAX_PRICE_FILE_BYTES = 8 * 1024 * 1024;

/** Why the operator's price file (MODEL_PRICES_FILE) is refused: one line naming the setting, the file and the entry. */
export class ModelPricesFileError extends Error {
  override name = 'ModelPricesFileError';
}

/** The prices a worker computes costs with: the shipped table, and how many entries the operator's file put over it. */
export interface LoadedPrices {
  table: PriceTable;
  /** The file's entries (0 without a file). */
  fromFile: number;
}

/**
 * The price table of an agents worker, read once at its start (workers/agents.ts): the shipped table,
 * with the entries of the operator's file (MODEL_PRICES_FILE, docs/agent-clis.md "Cost") over it. A
 * file that cannot be read, is not JSON or is not a price table (domain/model-prices.ts parsePriceTable)
 * stops the start with a ModelPricesFileError: `invalid environment: MODEL_PRICES_FILE: <file>: <why>`.
 */
export function loadModelPrices(file: string | null, shipped: PriceTable = SHIPPED_PRICES): LoadedPrices {
  if (file === null) return { table: shipped, fromFile: 0 };
  const refuse = (why: string) => new ModelPricesFileError(`invalid environment: MODEL_PRICES_FILE: ${file}: ${why.replace(/\s+/g, ' ')}`);
  let text: string;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) throw refuse('not a file');
    if (stat.size > MAX_PRICE_FILE_BYTES) throw refuse(`${stat.size} bytes, more than ${MAX_PRICE_FILE_BYTES}`);
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof ModelPricesFileError) throw error;
    throw refuse(`cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw refuse(`not JSON (${(error as Error).message})`);
  }
  try {
    const operator = parsePriceTable(document);
    return { table: mergePriceTables(shipped, operator), fromFile: Object.keys(operator).length };
  } catch (error) {
    if (error instanceof PriceTableError) throw refuse(error.message);
    throw error;
  }
}

/**
 * The run's cost when its CLI reported none (Codex CLI, Gemini CLI: tokens only), from the price of
 * its model in `prices` (the worker's table: loadModelPrices); `unpriced` names the model when the table
 * has no price for it (the cost then counts 0, said once in the run's output). A cost the CLI reported,
 * or a run without tokens, is left as it is.
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
