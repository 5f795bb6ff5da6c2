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

/** The units a price file may state its prices in, as the power of ten of tokens each price is for; a table here is always USD per token. */
export const PRICE_UNITS = { 'USD per token': 0, 'USD per million tokens': 6 } as const;

/** `value` / 10^`power`, shifted in decimal (0.4 per million is 4e-7 as written per token, not 0.4 / 1e6's 4.0000000000000003e-7). */
function shiftedDown(value: number, power: number): number {
  if (power === 0) return value;
  const [mantissa, exponent = '0'] = String(value).split('e');
  return Number(`${mantissa}e${Number(exponent) - power}`);
}

/** Most entries an operator's price table may hold (the shipped one has a few hundred). */
export const MAX_PRICE_ENTRIES = 10_000;

/**
 * The highest price per token believed: 0.01 USD (10 000 USD per million tokens; the shipped table's
 * highest is 0.0006). Above it the number is almost surely a price per million tokens written as per token.
 */
export const MAX_PRICE_PER_TOKEN = 0.01;

const PRICE_FIELDS = ['input', 'output', 'cacheRead', 'cacheCreation'] as const;
const FILE_FIELDS = new Set(['source', 'retrieved', 'unit', 'models']);
const MODEL_NAME_MAX = 256;

/** Why a price table (a parsed JSON document) is refused: one line naming the entry and the value. */
export class PriceTableError extends Error {
  override name = 'PriceTableError';
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const shown = (value: unknown): string => {
  const text = typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));
  return text.length > 40 ? `${text.slice(0, 40)}...` : text;
};

/**
 * A price table written as lib/model-prices.json is: `{ "unit"?, "source"?, "retrieved"?, "models":
 * { "<model>": { "input", "output", "cacheRead", "cacheCreation" } } }`, each price a number ≥ 0 in
 * `unit` (USD per token unless it says `USD per million tokens`); returned in USD per token. Anything
 * else is refused with a PriceTableError naming the first wrong entry: an unknown key, a missing or
 * unknown price, a negative, non-number or implausibly high price, more than MAX_PRICE_ENTRIES models.
 */
export function parsePriceTable(document: unknown): PriceTable {
  if (!isRecord(document)) throw new PriceTableError('not a JSON object with "models" (the shape of lib/model-prices.json)');
  const unknown = Object.keys(document).filter((key) => !FILE_FIELDS.has(key));
  if (unknown.length > 0) {
    throw new PriceTableError(`unknown key ${shown(unknown[0])} (the file holds "models" and optionally "unit", "source", "retrieved")`);
  }
  for (const key of ['source', 'retrieved'] as const) {
    if (document[key] !== undefined && typeof document[key] !== 'string')
      throw new PriceTableError(`"${key}": ${shown(document[key])} is not a string`);
  }
  const unit = document.unit ?? 'USD per token';
  if (typeof unit !== 'string' || !Object.hasOwn(PRICE_UNITS, unit)) {
    throw new PriceTableError(
      `"unit": ${shown(unit)} is not one of ${Object.keys(PRICE_UNITS)
        .map((name) => `"${name}"`)
        .join(', ')}`,
    );
  }
  const power = PRICE_UNITS[unit as keyof typeof PRICE_UNITS];
  const models = document.models;
  if (models === undefined) throw new PriceTableError('no "models" (the shape of lib/model-prices.json)');
  if (!isRecord(models)) throw new PriceTableError(`"models": ${shown(models)} is not an object of models and their prices`);
  const names = Object.keys(models);
  if (names.length > MAX_PRICE_ENTRIES) throw new PriceTableError(`"models": ${names.length} entries, more than ${MAX_PRICE_ENTRIES}`);
  const table: Record<string, ModelPrice> = {};
  for (const name of names) {
    const where = `models.${JSON.stringify(name)}`;
    if (name.trim() === '' || name.length > MODEL_NAME_MAX)
      throw new PriceTableError(`${where}: a model name of 1 to ${MODEL_NAME_MAX} characters`);
    const entry = models[name];
    if (!isRecord(entry))
      throw new PriceTableError(`${where}: ${shown(entry)} is not an object of input, output, cacheRead, cacheCreation`);
    const extra = Object.keys(entry).filter((key) => !(PRICE_FIELDS as readonly string[]).includes(key));
    if (extra.length > 0) throw new PriceTableError(`${where}: unknown price ${shown(extra[0])} (input, output, cacheRead, cacheCreation)`);
    const price = {} as ModelPrice;
    for (const field of PRICE_FIELDS) {
      const value = entry[field];
      if (value === undefined)
        throw new PriceTableError(`${where}.${field}: missing (every entry has input, output, cacheRead, cacheCreation)`);
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
        throw new PriceTableError(`${where}.${field}: ${shown(value)} is not a price (a number ≥ 0, ${unit})`);
      }
      const usd = shiftedDown(value, power);
      if (usd > MAX_PRICE_PER_TOKEN) {
        throw new PriceTableError(
          `${where}.${field}: ${value} ${unit} is more than ${MAX_PRICE_PER_TOKEN} USD per token${
            power === 0
              ? ': a price per million tokens? (say "unit": "USD per million tokens")'
              : ` (${MAX_PRICE_PER_TOKEN * 1e6} per million)`
          }`,
        );
      }
      price[field] = usd;
    }
    table[name] = price;
  }
  return table;
}

/** The operator's entries over the shipped table: a model listed in both takes the operator's whole entry. */
export function mergePriceTables(shipped: PriceTable, operator: PriceTable): PriceTable {
  return Object.fromEntries([...Object.entries(shipped), ...Object.entries(operator)]);
}
