import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadModelPrices, MAX_PRICE_FILE_BYTES, ModelPricesFileError, pricedRun, SHIPPED_PRICES } from '../../activities/agents/run-cost';
import { mergePriceTables, parsePriceTable, priceOf, PriceTableError, type ModelPrice } from '../../domain/model-prices';
import { loadConfig } from '../../lib/config';
import { repoRoot } from '../../lib/paths';
import { PRODUCTION_VALUES, renderChart, rendered, roleOf, workloads, type K8sObject } from '../support/chart';

/**
 * The operator's price table over the shipped one (issue 42 §1 "Cost", docs/agent-clis.md "Cost"):
 * MODEL_PRICES_FILE, a JSON file shaped as lib/model-prices.json, read once by the agents worker at
 * its start; its entries replace or add to the shipped ones; a bad file stops the start with one
 * line naming the file and the entry.
 */

const SHIPPED_FILE = path.join(repoRoot, 'lib/model-prices.json');
const shippedDocument = JSON.parse(fs.readFileSync(SHIPPED_FILE, 'utf8')) as { models: Record<string, ModelPrice> };

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'model-prices-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let files = 0;
/** A price file holding `content` (a string as it is, anything else as JSON); its path. */
function priceFile(content: unknown): string {
  files += 1;
  const file = path.join(dir, `prices-${files}.json`);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

const price = (input: number, output: number, cacheRead: number, cacheCreation: number) => ({ input, output, cacheRead, cacheCreation });

describe('an operator price file merged over the shipped table', () => {
  test("replaces a shipped model's whole entry, adds a model the shipped table lacks, and keeps every other shipped entry", () => {
    const file = priceFile({
      source: 'our contract with OpenAI, 2026-12-01',
      retrieved: '2026-12-01',
      unit: 'USD per token',
      models: { 'gpt-5.5': price(4e-6, 2.4e-5, 4e-7, 0), 'our-gateway-model': price(1e-6, 2e-6, 0, 0) },
    });
    const loaded = loadModelPrices(file);
    expect(loaded.fromFile).toBe(2);
    expect(loaded.table['gpt-5.5']).toEqual({ input: 4e-6, output: 2.4e-5, cacheRead: 4e-7, cacheCreation: 0 });
    expect(loaded.table['our-gateway-model']).toEqual({ input: 1e-6, output: 2e-6, cacheRead: 0, cacheCreation: 0 });
    expect(Object.keys(loaded.table)).toHaveLength(Object.keys(SHIPPED_PRICES).length + 1);
    expect(loaded.table['gemini-2.5-flash']).toEqual({ input: 3e-7, output: 2.5e-6, cacheRead: 3e-8, cacheCreation: 0 });
    // The shipped table itself is left as it was.
    expect(SHIPPED_PRICES['gpt-5.5']).toEqual({ input: 5e-6, output: 3e-5, cacheRead: 5e-7, cacheCreation: 0 });
  });

  test('prices a run with the merged table: the operator price for its model, the shipped one for the others', () => {
    const { table } = loadModelPrices(priceFile({ models: { 'gpt-5.5': price(1e-6, 2e-6, 5e-7, 0) } }));
    const tokens = { input: 1000, cacheRead: 2000, output: 500, cacheCreation: 0 };
    // 1000 × 1e-6 + 500 × 2e-6 + 2000 × 5e-7 (the shipped price would give 0.021).
    expect(pricedRun({ costUsd: null, tokens }, 'gpt-5.5', table)).toEqual({ costUsd: 0.003, unpriced: null });
    expect(pricedRun({ costUsd: null, tokens }, 'gpt-5.5')).toEqual({ costUsd: 0.021, unpriced: null });
    // gpt-5 is not in the file: its shipped price.
    expect(pricedRun({ costUsd: null, tokens }, 'gpt-5', table)).toEqual({ costUsd: 0.0065, unpriced: null });
    // A model only the file prices is priced; without the file it counts 0 and is named.
    const added = loadModelPrices(priceFile({ models: { 'our-gateway-model': price(1e-6, 2e-6, 0, 0) } })).table;
    expect(pricedRun({ costUsd: null, tokens }, 'our-gateway-model', added)).toEqual({ costUsd: 0.002, unpriced: null });
    expect(pricedRun({ costUsd: null, tokens }, 'our-gateway-model')).toEqual({ costUsd: 0, unpriced: 'our-gateway-model' });
  });

  test('an entry prices its own name: a dated snapshot without an entry follows it, one the shipped table lists keeps the shipped price', () => {
    const { table } = loadModelPrices(priceFile({ models: { 'gpt-5': price(1e-6, 1e-6, 0, 0), 'gpt-5.5': price(2e-6, 2e-6, 0, 0) } }));
    expect(priceOf(table, 'gpt-5.5-2026-01-15')).toEqual({ input: 2e-6, output: 2e-6, cacheRead: 0, cacheCreation: 0 });
    expect(priceOf(table, 'gpt-5-2025-08-07')).toEqual({ input: 1.25e-6, output: 1e-5, cacheRead: 1.25e-7, cacheCreation: 0 });
  });

  test('takes prices per million tokens when the file says so, as the same numbers per token', () => {
    const { table } = loadModelPrices(
      priceFile({
        unit: 'USD per million tokens',
        models: { 'gpt-5.5': price(1.25, 10, 0.4, 0), 'gemini-2.5-flash': price(0.3, 2.5, 0.03, 0) },
      }),
    );
    // Shifted in decimal: 0.4 per million is 4e-7 per token as written (0.4 / 1e6 would be 4.0000000000000003e-7).
    expect(table['gpt-5.5']).toEqual({ input: 1.25e-6, output: 1e-5, cacheRead: 4e-7, cacheCreation: 0 });
    expect(table['gemini-2.5-flash']).toEqual({ input: 3e-7, output: 2.5e-6, cacheRead: 3e-8, cacheCreation: 0 });
  });

  test('accepts the example of docs/agent-clis.md ("The operator\'s prices") with the prices it shows', () => {
    const doc = fs.readFileSync(path.join(repoRoot, 'docs/agent-clis.md'), 'utf8');
    const section = doc.slice(doc.indexOf("### The operator's prices"));
    const example = /```json\n([\s\S]*?)```/.exec(section)![1]!;
    const { table, fromFile } = loadModelPrices(priceFile(example));
    expect(fromFile).toBe(2);
    expect(table['gpt-5.5']).toEqual({ input: 4e-6, output: 2.4e-5, cacheRead: 4e-7, cacheCreation: 0 });
    expect(table['our-gateway-model']).toEqual({ input: 5e-7, output: 1.5e-6, cacheRead: 0, cacheCreation: 0 });
    // The refusal the doc quotes is the one given.
    const bad = priceFile({ models: { 'gpt-5.5': price(-1, 0, 0, 0) } });
    expect(() => loadModelPrices(bad)).toThrow(`${bad}: models."gpt-5.5".input: -1 is not a price (a number ≥ 0, USD per token)`);
    expect(section.replace(/\s+/g, ' ')).toContain('models."gpt-5.5".input: -1 is not a price (a number ≥ 0, USD per token)');
  });

  test('accepts the shipped file itself (the same shape), which changes nothing', () => {
    const loaded = loadModelPrices(SHIPPED_FILE);
    expect(loaded.fromFile).toBe(Object.keys(shippedDocument.models).length);
    expect(loaded.table).toEqual(SHIPPED_PRICES);
  });

  test('without a file, the shipped table as it is; an empty `models` changes nothing', () => {
    expect(loadModelPrices(null)).toEqual({ table: SHIPPED_PRICES, fromFile: 0 });
    expect(loadModelPrices(priceFile({ models: {} }))).toEqual({ table: SHIPPED_PRICES, fromFile: 0 });
  });

  test(`accepts ${10_000} entries (the bound)`, () => {
    const models = Object.fromEntries(Array.from({ length: 10_000 }, (_, index) => [`model-${index}`, price(1e-6, 2e-6, 0, 0)]));
    expect(loadModelPrices(priceFile({ models })).fromFile).toBe(10_000);
  });

  test('merges entry by entry, the second table winning (domain/model-prices.ts mergePriceTables)', () => {
    const merged = mergePriceTables({ a: price(1, 1, 1, 1), b: price(2, 2, 2, 2) }, { b: price(3, 3, 3, 3), c: price(4, 4, 4, 4) });
    expect(merged).toEqual({ a: price(1, 1, 1, 1), b: price(3, 3, 3, 3), c: price(4, 4, 4, 4) });
  });
});

describe('a bad price file stops the start with one line naming the file and the entry', () => {
  const refused = (file: string) => {
    try {
      loadModelPrices(file);
    } catch (error) {
      expect(error).toBeInstanceOf(ModelPricesFileError);
      const message = (error as Error).message;
      expect(message).not.toContain('\n');
      return message;
    }
    throw new Error(`${file} was accepted`);
  };
  const entry = (value: unknown) => ({ models: { 'gpt-5.5': value } });

  test.each([
    ['not JSON', '{"models": {', /^not JSON \(.+\)$/],
    ['an empty object', {}, 'no "models" (the shape of lib/model-prices.json)'],
    ['a list', [], 'not a JSON object with "models" (the shape of lib/model-prices.json)'],
    [
      'no `models`',
      { 'gpt-5.5': price(1e-6, 1e-6, 0, 0) },
      'unknown key "gpt-5.5" (the file holds "models" and optionally "unit", "source", "retrieved")',
    ],
    ['a misspelt key', { model: {} }, 'unknown key "model" (the file holds "models" and optionally "unit", "source", "retrieved")'],
    ['`models` a list', { models: [] }, '"models": [] is not an object of models and their prices'],
    [
      'another unit',
      { unit: 'EUR per token', models: {} },
      '"unit": "EUR per token" is not one of "USD per token", "USD per million tokens"',
    ],
    ['a source that is no text', { source: 1, models: {} }, '"source": 1 is not a string'],
    ['an entry that is a number', entry(5e-6), 'models."gpt-5.5": 0.000005 is not an object of input, output, cacheRead, cacheCreation'],
    [
      'a price missing',
      entry({ input: 1e-6, output: 1e-6, cacheRead: 0 }),
      'models."gpt-5.5".cacheCreation: missing (every entry has input, output, cacheRead, cacheCreation)',
    ],
    [
      'an unknown price',
      entry({ ...price(1e-6, 1e-6, 0, 0), cache_read: 0 }),
      'models."gpt-5.5": unknown price "cache_read" (input, output, cacheRead, cacheCreation)',
    ],
    ['a negative price', entry(price(-1e-6, 1e-6, 0, 0)), 'models."gpt-5.5".input: -0.000001 is not a price (a number ≥ 0, USD per token)'],
    [
      'a price as text',
      entry(price(1e-6, '0.00001' as unknown as number, 0, 0)),
      'models."gpt-5.5".output: "0.00001" is not a price (a number ≥ 0, USD per token)',
    ],
    [
      'a null price',
      entry(price(1e-6, 1e-6, null as unknown as number, 0)),
      'models."gpt-5.5".cacheRead: null is not a price (a number ≥ 0, USD per token)',
    ],
    [
      'a price per million written as per token',
      entry(price(1.25, 10, 0.125, 0)),
      'models."gpt-5.5".input: 1.25 USD per token is more than 0.01 USD per token: a price per million tokens? (say "unit": "USD per million tokens")',
    ],
    [
      'a price per million above the bound',
      { unit: 'USD per million tokens', models: { 'gpt-5.5': price(1, 20_000, 0, 0) } },
      'models."gpt-5.5".output: 20000 USD per million tokens is more than 0.01 USD per token (10000 per million)',
    ],
    ['an empty model name', { models: { '': price(1e-6, 1e-6, 0, 0) } }, 'models."": a model name of 1 to 256 characters'],
  ])('%s', (_name, content, why) => {
    const file = priceFile(content);
    const message = refused(file);
    const prefix = `invalid environment: MODEL_PRICES_FILE: ${file}: `;
    expect(message.startsWith(prefix)).toBe(true);
    if (typeof why === 'string') expect(message.slice(prefix.length)).toBe(why);
    else expect(message.slice(prefix.length)).toMatch(why);
  });

  test(`more than ${10_000} entries`, () => {
    const models = Object.fromEntries(Array.from({ length: 10_001 }, (_, index) => [`model-${index}`, price(1e-6, 2e-6, 0, 0)]));
    const file = priceFile({ models });
    expect(refused(file)).toBe(`invalid environment: MODEL_PRICES_FILE: ${file}: "models": 10001 entries, more than 10000`);
  });

  test('a file that is missing, a directory, or larger than the bound', () => {
    const missing = path.join(dir, 'missing.json');
    expect(refused(missing)).toBe(`invalid environment: MODEL_PRICES_FILE: ${missing}: cannot read it (ENOENT)`);
    expect(refused(dir)).toBe(`invalid environment: MODEL_PRICES_FILE: ${dir}: not a file`);
    const large = priceFile('');
    fs.truncateSync(large, MAX_PRICE_FILE_BYTES + 1);
    expect(refused(large)).toBe(`invalid environment: MODEL_PRICES_FILE: ${large}: 8388609 bytes, more than 8388608`);
  });

  test('the domain check alone names the entry without the file (PriceTableError)', () => {
    expect(() => parsePriceTable(entry(price(1e-6, Number.NaN, 0, 0)))).toThrow(PriceTableError);
    expect(() => parsePriceTable(entry(price(1e-6, Number.NaN, 0, 0)))).toThrow(
      'models."gpt-5.5".output: NaN is not a price (a number ≥ 0, USD per token)',
    );
    expect(() => parsePriceTable(entry(price(1e-6, Number.POSITIVE_INFINITY, 0, 0)))).toThrow(
      'models."gpt-5.5".output: Infinity is not a price (a number ≥ 0, USD per token)',
    );
  });
});

describe('MODEL_PRICES_FILE (lib/config.ts)', () => {
  test('is unset by default, relative to the repository, or an absolute path as given', () => {
    expect(loadConfig({}).orchestration.modelPricesFile).toBeNull();
    expect(loadConfig({ MODEL_PRICES_FILE: 'config/prices.json' }).orchestration.modelPricesFile).toBe(
      path.join(repoRoot, 'config/prices.json'),
    );
    expect(loadConfig({ MODEL_PRICES_FILE: '/etc/consultores/model-prices.json' }).orchestration.modelPricesFile).toBe(
      '/etc/consultores/model-prices.json',
    );
  });

  test('is a path of at most 4096 characters', () => {
    expect(() => loadConfig({ MODEL_PRICES_FILE: `/${'a'.repeat(4096)}` })).toThrow(/^invalid environment: MODEL_PRICES_FILE: /);
  });
});

describe('the Helm chart (agentsWorker.modelPrices)', () => {
  // The pinned Helm is built the first time (test/support/chart.ts): minutes.
  jest.setTimeout(15 * 60_000);

  const agentsContainer = (objects: K8sObject[]) =>
    workloads(objects).find((workload) => roleOf(workload) === 'agents-worker')!.spec.template.spec.containers[0];

  test("gives the agents worker the production example's prices as a file its start reads: per million, over the shipped ones", () => {
    const objects = rendered([PRODUCTION_VALUES]);
    const worker = workloads(objects).find((workload) => roleOf(workload) === 'agents-worker')!;
    const container = agentsContainer(objects);
    const setting = container.env.find((entry: { name: string }) => entry.name === 'MODEL_PRICES_FILE').value as string;
    expect(setting).toBe('/etc/consultores/model-prices/model-prices.json');
    // The file is the ConfigMap's key, in the volume mounted at the setting's directory.
    const mount = container.volumeMounts.find((item: { mountPath: string }) => item.mountPath === path.dirname(setting));
    expect(mount.readOnly).toBe(true);
    const volume = worker.spec.template.spec.volumes.find((item: { name: string }) => item.name === mount.name);
    expect(volume.configMap.items).toEqual([{ key: 'model-prices.json', path: path.basename(setting) }]);
    const map = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name === volume.configMap.name)!;
    // Read as the worker reads it: the example's gpt-5.5 (4 / 24 / 0.4 USD per million) over the shipped table.
    const { table, fromFile } = loadModelPrices(priceFile(map.data['model-prices.json']));
    expect(fromFile).toBe(1);
    expect(table['gpt-5.5']).toEqual({ input: 4e-6, output: 2.4e-5, cacheRead: 4e-7, cacheCreation: 0 });
    expect(table['gpt-5']).toEqual(SHIPPED_PRICES['gpt-5']);
    // A change of the prices restarts the pods (the file is read once at start).
    expect(worker.spec.template.metadata.annotations['checksum/model-prices']).toMatch(/^[0-9a-f]{64}$/);
    // Only the agents worker reads it.
    for (const other of workloads(objects).filter((workload) => roleOf(workload) !== 'agents-worker')) {
      expect(other.spec.template.spec.containers[0].env.map((entry: { name: string }) => entry.name)).not.toContain('MODEL_PRICES_FILE');
    }
  });

  test('sets nothing by default; mounts an existing ConfigMap as it is', () => {
    const defaults = rendered();
    expect(agentsContainer(defaults).env.map((entry: { name: string }) => entry.name)).not.toContain('MODEL_PRICES_FILE');
    expect(defaults.filter((object) => object.metadata.name.endsWith('-model-prices'))).toEqual([]);
    const existing = rendered([], ['agentsWorker.modelPrices.existingConfigMap=our-prices']);
    const worker = workloads(existing).find((workload) => roleOf(workload) === 'agents-worker')!;
    expect(worker.spec.template.spec.volumes.find((item: { name: string }) => item.name === 'model-prices').configMap).toEqual({
      name: 'our-prices',
      items: [{ key: 'model-prices.json', path: 'model-prices.json' }],
    });
    expect(existing.filter((object) => object.kind === 'ConfigMap' && object.metadata.name.endsWith('-model-prices'))).toEqual([]);
  });

  test.each([
    ['agentsWorker.modelPrices.models.gpt-5\\.5.input=-1', /minimum: got -1, want 0/],
    ['agentsWorker.modelPrices.unit=EUR per token', /value must be one of 'USD per token', 'USD per million tokens'/],
    ['config.MODEL_PRICES_FILE=/x', /invalid propertyName 'MODEL_PRICES_FILE'/],
  ])('refuses %s at install (values.schema.json)', (set, message) => {
    const result = renderChart([], [set]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/values don't meet the specifications of the schema/);
    expect(result.stderr).toMatch(message);
  });

  test('refuses both an existing ConfigMap and entries', () => {
    const result = renderChart([PRODUCTION_VALUES], ['agentsWorker.modelPrices.existingConfigMap=our-prices']);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('agentsWorker.modelPrices: give `models` or `existingConfigMap`, not both');
  });
});
