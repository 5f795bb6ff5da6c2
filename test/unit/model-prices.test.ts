import fs from 'node:fs';
import path from 'node:path';
import { pricedRun } from '../../activities/agents/run-cost';
import { costOf, priceOf, type PriceTable } from '../../domain/model-prices';

/** The shipped price table (lib/model-prices.json, scripts/prices/update-model-prices.py) and the pricing of a run's tokens. */
const shipped = JSON.parse(fs.readFileSync(path.join(__dirname, '../../lib/model-prices.json'), 'utf8')) as {
  source: string;
  retrieved: string;
  models: PriceTable;
};

describe('the model price table', () => {
  test('is dated and says where it comes from', () => {
    expect(shipped.source).toMatch(/^litellm \d+\.\d+\.\d+ \(PyPI\)/);
    expect(shipped.retrieved).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  test("holds the models the three CLIs' defaults and the panel's list name, at the providers' list prices", () => {
    expect(priceOf(shipped.models, 'claude-opus-4-6')).toEqual({ input: 5e-6, output: 2.5e-5, cacheRead: 5e-7, cacheCreation: 6.25e-6 });
    expect(priceOf(shipped.models, 'gpt-5-codex')).toEqual({ input: 1.25e-6, output: 1e-5, cacheRead: 1.25e-7, cacheCreation: 0 });
    expect(priceOf(shipped.models, 'gemini-2.5-pro')).toEqual({ input: 1.25e-6, output: 1e-5, cacheRead: 1.25e-7, cacheCreation: 0 });
  });
});

describe('pricing a run', () => {
  const table: PriceTable = { 'gpt-5': { input: 1.25e-6, output: 1e-5, cacheRead: 1.25e-7, cacheCreation: 0 } };

  test('prices each kind of token at its own rate', () => {
    // 1 000 fresh input, 2 000 cached, 500 output: 0.00125 + 0.00025 + 0.005.
    expect(costOf({ input: 1000, cacheRead: 2000, output: 500, cacheCreation: 0 }, table['gpt-5']!)).toBe(0.0065);
  });

  test('finds a dated snapshot under its model, and nothing for an unknown model', () => {
    expect(priceOf(table, 'gpt-5-2025-08-07')).toBe(table['gpt-5']);
    expect(priceOf(table, 'gpt-5-20250807')).toBe(table['gpt-5']);
    expect(priceOf(table, 'stand-in-model')).toBeNull();
    expect(priceOf(table, 'toString')).toBeNull();
  });
});

describe('a run priced by the service (activities/agents/run-cost.ts)', () => {
  const tokens = { input: 1000, cacheRead: 2000, output: 500, cacheCreation: 0 };

  test("prices a CLI's tokens with the shipped table when the CLI reported no cost", () => {
    expect(pricedRun({ costUsd: null, tokens }, 'gpt-5')).toEqual({ costUsd: 0.0065, unpriced: null });
  });

  test('keeps a cost the CLI reported, and a run without tokens as it is', () => {
    expect(pricedRun({ costUsd: 0.12, tokens }, 'gpt-5')).toEqual({ costUsd: 0.12, unpriced: null });
    expect(pricedRun({ costUsd: null, tokens: null }, 'gpt-5')).toEqual({ costUsd: null, unpriced: null });
  });

  test('counts 0 for a model without a price, and names it (the CLI default when the agent names none)', () => {
    expect(pricedRun({ costUsd: null, tokens }, 'stand-in-model')).toEqual({ costUsd: 0, unpriced: 'stand-in-model' });
    expect(pricedRun({ costUsd: null, tokens }, '')).toEqual({ costUsd: 0, unpriced: 'o modelo padrão do CLI' });
  });
});
