import { parseArgs } from 'node:util';
import type { Client } from '@elastic/elasticsearch';
import { PERSON_INDEX_BASE, personIndexMappings, personIndexSettings } from '../domain/person-index';
import type { PersonDocument } from '../domain/person-document';
import { generatePerson, personRandom } from './sample-data/generate-person';

/**
 * Loads sample person documents into the person index through the bulk API.
 *
 *   node --import tsx scripts/generate-persons.ts --count 300000 [--seed 42] [--index <name>]
 *        [--recreate] [--start-id 1] [--reference-date YYYY-MM-DD]
 *
 * Documents are generated while earlier requests are in flight and never held all at once: memory
 * stays bounded by (concurrent requests + 1) bulk bodies, whatever the count. Each document depends
 * only on (seed, id_pessoa, reference date), so id ranges can be loaded separately or in parallel.
 */

/**
 * ~5 MB bodies, 3 requests in flight: Elasticsearch has 2 write threads here, and the third request
 * is ready when one finishes, while this process builds the next body (measurements in docs/index-document.md).
 */
const FLUSH_BYTES = 5 * 1024 * 1024;
const CONCURRENT_REQUESTS = 3;
export const DEFAULT_SEED = 42;
const DEFAULT_PROGRESS_EVERY = 50_000;

export interface GeneratePersonsOptions {
  es: Client;
  index: string;
  count: number;
  seed?: number;
  /** First id_pessoa; ids are startId .. startId + count - 1. */
  startId?: number;
  /** Delete the index first (otherwise documents with the same ids are overwritten). */
  recreate?: boolean;
  /** Day the data is "as of" (open periods, current grants, anos_atuacao); default today (UTC). */
  referenceDate?: Date;
  onProgress?: (generated: number, seconds: number) => void;
  progressEvery?: number;
}

export interface GeneratePersonsResult {
  count: number;
  seconds: number;
}

export class BulkLoadError extends Error {
  override name = 'BulkLoadError';
}

/** Today at 00:00 UTC: the default reference date, so a day's runs agree with each other. */
export function todayUtc(): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

export async function generatePersons(options: GeneratePersonsOptions): Promise<GeneratePersonsResult> {
  const { es, index, count } = options;
  const seed = options.seed ?? DEFAULT_SEED;
  const startId = options.startId ?? 1;
  const referenceDate = options.referenceDate ?? todayUtc();
  const progressEvery = options.progressEvery ?? DEFAULT_PROGRESS_EVERY;
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`count must be a non-negative integer, got ${count}`);
  if (!Number.isSafeInteger(startId) || startId < 1) throw new RangeError(`startId must be a positive integer, got ${startId}`);

  const started = process.hrtime.bigint();
  const elapsed = (): number => Number(process.hrtime.bigint() - started) / 1e9;

  if (options.recreate) await es.indices.delete({ index, ignore_unavailable: true });
  await ensurePersonIndex(es, index);

  // No refreshes while loading: each would write a small segment that merges then rewrite.
  await es.indices.putSettings({ index, settings: { refresh_interval: '-1' } });
  try {
    await bulkIndex(
      es,
      index,
      personDocuments(seed, startId, count, referenceDate, (generated) => {
        if (generated % progressEvery === 0) options.onProgress?.(generated, elapsed());
      }),
    );
  } finally {
    await es.indices.putSettings({ index, settings: { refresh_interval: personIndexSettings.refresh_interval ?? '1s' } });
  }
  await es.indices.refresh({ index });
  return { count, seconds: elapsed() };
}

/** Documents one at a time, pulled by the bulk helper as it needs them (back-pressure, bounded memory). */
async function* personDocuments(
  seed: number,
  startId: number,
  count: number,
  referenceDate: Date,
  onGenerated: (generated: number) => void,
): AsyncGenerator<PersonDocument> {
  for (let offset = 0; offset < count; offset += 1) {
    const id = startId + offset;
    yield generatePerson(personRandom(seed, id), id, referenceDate);
    onGenerated(offset + 1);
  }
}

/**
 * Indexes with `_id` = String(id_pessoa), so a rerun overwrites instead of duplicating. The helper
 * retries documents rejected with 429 (node busy); any other rejection is a mapping or data problem:
 * stop at once and say which document and why.
 */
async function bulkIndex(es: Client, index: string, documents: AsyncGenerator<PersonDocument>): Promise<void> {
  const rejections: string[] = [];
  const helper = es.helpers.bulk<PersonDocument>({
    datasource: documents,
    onDocument: (document) => ({ index: { _index: index, _id: String(document.id_pessoa) } }),
    onDrop: (dropped) => {
      const reason = dropped.error ? `${dropped.error.type}: ${dropped.error.reason ?? ''}` : `status ${dropped.status}`;
      rejections.push(`id_pessoa ${dropped.document.id_pessoa}: ${reason}`);
      void helper.abort();
    },
    flushBytes: FLUSH_BYTES,
    concurrency: CONCURRENT_REQUESTS,
    refreshOnCompletion: false,
  });
  const stats = await helper;
  if (rejections.length > 0 || stats.failed > 0) {
    throw new BulkLoadError(`${stats.failed} document(s) rejected by ${index}; first: ${rejections[0] ?? 'unknown'}`);
  }
}

/** Creates the index with the person mapping unless it exists (a parallel loader may win the race). */
export async function ensurePersonIndex(es: Client, index: string): Promise<void> {
  if (await es.indices.exists({ index })) return;
  try {
    await es.indices.create({ index, settings: personIndexSettings, mappings: personIndexMappings });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
}

function isAlreadyExists(error: unknown): boolean {
  const body = (error as { meta?: { body?: { error?: { type?: string } } } }).meta?.body;
  return body?.error?.type === 'resource_already_exists_exception';
}

function parseCli(argv: string[]): {
  count: number;
  seed: number;
  index: string | undefined;
  recreate: boolean;
  startId: number;
  referenceDate: Date;
} {
  const { values } = parseArgs({
    args: argv,
    options: {
      count: { type: 'string' },
      seed: { type: 'string', default: String(DEFAULT_SEED) },
      index: { type: 'string' },
      recreate: { type: 'boolean', default: false },
      'start-id': { type: 'string', default: '1' },
      'reference-date': { type: 'string' },
    },
    strict: true,
  });
  const integer = (name: string, text: string | undefined, min: number): number => {
    const value = Number(text);
    if (text === undefined || !/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min) {
      throw new Error(`--${name} must be an integer >= ${min}`);
    }
    return value;
  };
  const referenceText = values['reference-date'];
  const referenceDate = referenceText ? new Date(`${referenceText}T00:00:00Z`) : todayUtc();
  if (Number.isNaN(referenceDate.getTime()) || (referenceText && referenceDate.toISOString().slice(0, 10) !== referenceText)) {
    throw new Error('--reference-date must be a valid YYYY-MM-DD date');
  }
  return {
    count: integer('count', values.count, 0),
    seed: integer('seed', values.seed, 0),
    index: values.index,
    recreate: values.recreate,
    startId: integer('start-id', values['start-id'], 1),
    referenceDate,
  };
}

async function main(): Promise<void> {
  const options = parseCli(process.argv.slice(2));
  // Loaded here, not at the top: importing generatePersons must not require a valid environment.
  const { config } = await import('../lib/config');
  const { createElasticsearch, indexName } = await import('../lib/elasticsearch');
  const index = options.index ?? indexName(config.elasticsearch, PERSON_INDEX_BASE);
  const es = createElasticsearch(config.elasticsearch, 120_000);
  const referenceDay = options.referenceDate.toISOString().slice(0, 10);
  console.log(
    `generating ${options.count} persons (ids ${options.startId}..${options.startId + options.count - 1}, seed ${options.seed}, reference date ${referenceDay}) into ${index}`,
  );
  try {
    const result = await generatePersons({
      es,
      index,
      count: options.count,
      seed: options.seed,
      startId: options.startId,
      recreate: options.recreate,
      referenceDate: options.referenceDate,
      onProgress: (generated, seconds) => console.log(`  ${generated} persons, ${seconds.toFixed(1)} s`),
    });
    const rate = result.seconds > 0 ? Math.round(result.count / result.seconds) : result.count;
    console.log(`generated ${result.count} persons into ${index} in ${result.seconds.toFixed(1)} s (${rate} docs/s)`);
  } finally {
    await es.close();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(`generate-persons: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
