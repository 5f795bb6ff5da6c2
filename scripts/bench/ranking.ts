import './bench-env';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import type { estypes } from '@elastic/elasticsearch';
import { FIELDS_NOT_RANKED } from '../../activities/ranking';
import { createDatabase } from '../../db';
import { migrateDatabase } from '../../db/migrate';
import { storeRenderedPages } from '../../db/ranking-pages';
import { assignPositions, clearRanking, upsertRankingRows } from '../../db/ranking-store';
import { documentRevision } from '../../domain/document-revision';
import { PERSON_INDEX_BASE } from '../../domain/person-index';
import type { PersonDocument } from '../../domain/person-document';
import { toRankingRow } from '../../domain/ranking-row';
import { scorePerson } from '../../domain/scoring/score-person';
import { nameSearchKey } from '../../domain/text';
import { config } from '../../lib/config';
import { createElasticsearch, indexName } from '../../lib/elasticsearch';
import { RANKING_JOB_DEFAULTS } from '../../temporal/contracts/ranking-job';
import { ensureNamespace } from '../../temporal/namespace';
import { fmt, getOk, runLoad, type LoadResult } from './measure';
import { bareScan, profiledRun, type BareScan, type RunProfile } from './ranking-profile';
import { ensureBenchPersons, RANKING_WORKER_FLAGS, runRankingJobOnWorker, startApi, stopService } from './services';
import { generatePersonFor } from '../sample-data/generate-person';
import { todayUtc } from '../generate-persons';
import { connectTemporal } from '../../temporal/connection';

/**
 * Ranking benchmark (issue 3): ranks BENCH_PERSONS generated persons (default 300 000) and prints,
 * side by side from one run, the job's wall time, the floor for the same work without Temporal,
 * their ratio, the worker's peak memory, and p50/p99 of the main reads under concurrent load.
 *
 *   npm run bench:ranking     (builds first; BENCH_PERSONS, BENCH_CONCURRENCY (1,2,4), BENCH_REQUESTS to change;
 *                              BENCH_PARTS=reads measures the reads of the ranking already stored;
 *                              after other parts, the reads are measured from a fresh process of this script)
 */
const PERSONS = Number(process.env.BENCH_PERSONS ?? 300_000);
/**
 * Client counts to load the reads with: one client shows service time; two keep both of this
 * machine's cores busy; four queue behind them (closed loop, no think time).
 */
const CONCURRENCIES = (process.env.BENCH_CONCURRENCY ?? '1,2,4').split(',').map(Number);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2_000);
const BATCH = 2_000;
/**
 * `scan,job,unchanged,changed,reads` (default), or some of them, or `floor` (the same work without
 * Temporal, issue 3) or `profile` (each step of the job's work timed on its own, issue 27). `job` is a
 * first run on an empty ranking, `unchanged` a second run over the same index, `changed` a run after
 * CHANGED_SHARE of the documents changed; reads alone reuse the ranking stored by an earlier run.
 * The bare scan is the floor every other figure is a ratio to.
 */
const PARTS = new Set((process.env.BENCH_PARTS ?? 'scan,job,unchanged,changed,reads').split(','));
/** Every CHANGED_EVERY-th person is changed for the `changed` case: 1 %. */
const CHANGED_EVERY = 100;
const index = indexName(config.elasticsearch, PERSON_INDEX_BASE);
/** What browsers send; the load client reads the bytes as sent, as a browser's network layer does before decoding. */
const BROWSER_ENCODINGS = { 'accept-encoding': 'gzip, deflate, br' };
const say = (line: string) => process.stdout.write(`${line}\n`);

/** The same work as the job, in one plain loop: PIT scan with _source, score, bulk upsert, positions, pages. */
async function floorRun(pool: ReturnType<typeof createDatabase>['pool'], es: ReturnType<typeof createElasticsearch>): Promise<number> {
  const started = process.hrtime.bigint();
  const referenceDate = new Date().toISOString().slice(0, 10);
  let pitId = (await es.openPointInTime({ index, keep_alive: '5m' })).id;
  let after: estypes.SortResults | undefined;
  for (;;) {
    const page = await es.search<PersonDocument>({
      pit: { id: pitId, keep_alive: '5m' },
      size: BATCH,
      sort: [{ _shard_doc: 'asc' }],
      track_total_hits: false,
      _source_excludes: FIELDS_NOT_RANKED,
      seq_no_primary_term: true,
      ...(after ? { search_after: after } : {}),
    });
    pitId = page.pit_id ?? pitId;
    const hits = page.hits.hits;
    const rows = hits.flatMap((hit) =>
      hit._source ? [toRankingRow(scorePerson(hit._source, referenceDate), hit._source, 'floor', documentRevision(hit))] : [],
    );
    await upsertRankingRows(pool, rows);
    if (hits.length < BATCH) break;
    after = hits[hits.length - 1]?.sort;
  }
  await es.closePointInTime({ id: pitId });
  await assignPositions(pool);
  await storeRenderedPages(pool, { runId: 'floor', cvBaseUrl: config.ranking.cvBaseUrl, referenceDate });
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/**
 * Replaces every CHANGED_EVERY-th person's document with another generated person of the same id
 * (its curriculum, hence its score, changes as after an import) and returns a function that puts the
 * originals back, so the index is the same for the next benchmark.
 */
async function changeShareOfPersons(
  es: ReturnType<typeof createElasticsearch>,
): Promise<{ changed: number; restore: () => Promise<void> }> {
  const ids: string[] = [];
  for (let id = CHANGED_EVERY; id <= PERSONS; id += CHANGED_EVERY) ids.push(String(id));
  const originals: Array<{ id: string; source: unknown }> = [];
  for (let start = 0; start < ids.length; start += 1_000) {
    const found = await es.mget<PersonDocument>({ index, ids: ids.slice(start, start + 1_000) });
    for (const doc of found.docs) if ('found' in doc && doc.found) originals.push({ id: doc._id, source: doc._source });
  }
  const write = async (documents: Array<{ id: string; source: unknown }>) => {
    for (let start = 0; start < documents.length; start += 1_000) {
      const operations = documents.slice(start, start + 1_000).flatMap(({ id, source }) => [{ index: { _index: index, _id: id } }, source]);
      const result = await es.bulk({ operations, refresh: false });
      if (result.errors) throw new Error('bulk indexing of the changed persons failed');
    }
    await es.indices.refresh({ index });
  };
  const today = todayUtc();
  await write(originals.map(({ id }) => ({ id, source: generatePersonFor(301, Number(id), today) })));
  return { changed: originals.length, restore: () => write(originals) };
}

/**
 * Warm-up requests per endpoint: a fresh API process needs them to compile its hot paths, size its
 * heap and fill its connection pools. Measured with stored pages: one client's p99 stays near 20 ms
 * for the first ~4 000 page requests of a fresh process and is ~4.4 ms after.
 */
const WARM_UP = 4_000;

/** Per client count, each endpoint's latencies. */
type ReadFigures = Array<[number, Array<[string, LoadResult]>]>;

/** p50/p99 of the reads for each client count, from one API process warmed up first. */
async function readLatencies(pool: ReturnType<typeof createDatabase>['pool']): Promise<ReadFigures> {
  const { process: api, base } = await startApi();
  const [sample] = await pool.query('SELECT nome FROM ranking_entries ORDER BY RAND() LIMIT 500');
  const names = (sample as Array<{ nome: string }>).map((row) => nameSearchKey(row.nome).split(' '));
  const words = names.map((name) => name.find((w) => w.length >= 4) ?? 'silva');
  // The same query twice (issue 43 §10): the first and the last word of a name by their first four
  // letters (FULLTEXT's words) and by their first two (the table of name words'). Most are found in
  // the first positions (the walk); a rare pair turns to the index.
  const prefixes = (length: number) =>
    names.map((name) => `${(name[0] ?? 'maria').slice(0, length)} ${(name.at(-1) ?? 'silva').slice(0, length)}`);
  const [longPairs, shortPairs] = [prefixes(4), prefixes(2)];
  // And with a word nobody's name starts with (no generated word starts "wu"): the walk finds nobody
  // and the index answers, FULLTEXT for long words, the table when a word is short.
  const search = (query: string) => getOk(`${base}/ranking/busca?nome=${encodeURIComponent(query)}`);
  const pick = (list: string[], i: number) => list[i % list.length] as string;
  const pages = Math.ceil(PERSONS / 50);
  const random = (n: number) => 1 + Math.floor(Math.random() * n);
  const endpoints: Array<[string, (i: number) => Promise<boolean>]> = [
    // As a browser asks for it (stored pages go out compressed), and as a client that takes no compression.
    ['/ranking/paginado', () => getOk(`${base}/ranking/paginado?page=${random(pages)}`, 'application/json', BROWSER_ENCODINGS)],
    [
      '/ranking/paginado plain',
      () => getOk(`${base}/ranking/paginado?page=${random(pages)}`, 'application/json', { 'accept-encoding': 'identity' }),
    ],
    ['/ranking/busca', (i) => search(pick(words, i))],
    ['/ranking/busca 2 words', (i) => search(pick(longPairs, i))],
    ['/ranking/busca 2 short', (i) => search(pick(shortPairs, i))],
    ['/ranking/busca nobody', (i) => search(`${pick(longPairs, i)} wuxing`)],
    ['/ranking/busca nobody short', (i) => search(`${pick(shortPairs, i)} wu`)],
    ['/ranking/posicao/{id}', () => getOk(`${base}/ranking/posicao/${random(PERSONS)}`)],
  ];
  const results: ReadFigures = [];
  try {
    for (const [, call] of endpoints) await runLoad(2, WARM_UP, call);
    for (const concurrency of CONCURRENCIES) {
      const byEndpoint: Array<[string, LoadResult]> = [];
      for (const [name, call] of endpoints) byEndpoint.push([name, await runLoad(concurrency, REQUESTS, call)]);
      results.push([concurrency, byEndpoint]);
    }
  } finally {
    await stopService(api);
  }
  return results;
}

/**
 * The reads measured by a fresh process of this benchmark (BENCH_PARTS=reads), when this one ran
 * other parts first: the client's own process is part of what the latencies measure, and after the
 * scan and the runs it spent three times the CPU on the same load (12.6 against 4.2 CPU seconds at
 * 4 clients, 2026-11-27, docs/benchmarks.md), on the two cores the API and MariaDB share.
 */
async function readLatenciesInFreshProcess(): Promise<ReadFigures> {
  const resultFile = path.join(os.tmpdir(), `bench-ranking-reads-${process.pid}.json`);
  const child = spawn(process.execPath, [__filename], {
    env: { ...process.env, BENCH_PARTS: 'reads', [READS_RESULT_FILE]: resultFile },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const code = await new Promise<number | null>((resolve, reject) => child.once('error', reject).once('exit', resolve));
  if (code !== 0) throw new Error(`the reads process exited with ${code}`);
  try {
    return JSON.parse(fs.readFileSync(resultFile, 'utf8')) as ReadFigures;
  } finally {
    fs.rmSync(resultFile, { force: true });
  }
}

/** Set in the process readLatenciesInFreshProcess starts: where it writes its results. */
const READS_RESULT_FILE = 'BENCH_READS_RESULT_FILE';

/**
 * A store that has settled: InnoDB has purged the run's old row versions and written most of its
 * changes to disk (an idle InnoDB keeps a few thousand dirty pages indefinitely: no lower bound).
 */
const SETTLED = { historyListLength: 1_000, dirtyPages: 20_000 };
const SETTLE_LIMIT_MS = 300_000;

/**
 * Waits until MariaDB has settled after a job (a first run writes ~2 GB: old row versions to purge,
 * dirty pages to flush), so the scan and the reads are measured on a machine at rest, not in a run's aftermath.
 * At most SETTLE_LIMIT_MS; says how long it waited and where InnoDB stood.
 */
async function waitForSettledDatabase(pool: ReturnType<typeof createDatabase>['pool']): Promise<void> {
  const started = Date.now();
  for (;;) {
    const [rows] = await pool.query(
      "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_history_list_length', 'Innodb_buffer_pool_pages_dirty')",
    );
    const status = new Map((rows as Array<{ Variable_name: string; Value: string }>).map((row) => [row.Variable_name, Number(row.Value)]));
    const history = status.get('Innodb_history_list_length') ?? 0;
    const dirty = status.get('Innodb_buffer_pool_pages_dirty') ?? 0;
    const waited = Date.now() - started;
    if ((history <= SETTLED.historyListLength && dirty <= SETTLED.dirtyPages) || waited >= SETTLE_LIMIT_MS) {
      say(`waited ${fmt(waited / 1000)} s for MariaDB to settle (history list ${history}, dirty pages ${dirty})`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
}

async function main(): Promise<void> {
  const es = createElasticsearch(config.elasticsearch, 120_000);
  const database = createDatabase(config.mysql);
  const connection = await connectTemporal(config.temporal);
  const client = new Client({ connection, namespace: config.temporal.namespace });
  try {
    await migrateDatabase(config.mysql);
    await ensureNamespace(config.temporal, config.temporal.namespace);
    await ensureBenchPersons(es, index, PERSONS);

    let scan: BareScan | undefined;
    if (PARTS.has('scan')) {
      // The floor of every ratio: not measured while MariaDB still writes out an earlier run.
      await waitForSettledDatabase(database.pool);
      say(`scan: bare point-in-time scan of ${PERSONS} persons, _source fetched and parsed, nothing else ...`);
      scan = await bareScan(es, index);
    }
    const ratio = (seconds: number) => (scan ? `${fmt(seconds / scan.seconds, 2)} x scan` : '');

    const profiles: Array<[string, RunProfile]> = [];
    if (PARTS.has('profile')) {
      await clearRanking(database.pool);
      say("profile: the job's work step by step, each timed, no Temporal: a first run, then a run over the unchanged index ...");
      profiles.push(['first run, empty ranking', await profiledRun(es, index, database.pool, config.ranking.cvBaseUrl)]);
      profiles.push(['second run, index unchanged', await profiledRun(es, index, database.pool, config.ranking.cvBaseUrl)]);
    }

    let floor: number | undefined;
    if (PARTS.has('floor')) {
      await clearRanking(database.pool);
      say(`floor: plain PIT scan + score + bulk upsert + positions over ${PERSONS} persons ...`);
      floor = await floorRun(database.pool, es);
    }

    const runs: Array<{ name: string; seconds: number; peakMb: number; goal: number }> = [];
    if (PARTS.has('job')) {
      await clearRanking(database.pool);
      say('job: first run on an empty ranking, ranking_job on a separate worker process ...');
      runs.push({ name: 'first run, empty ranking', goal: 2.5, ...(await runRankingJobOnWorker(client, PERSONS)) });
    }
    if (PARTS.has('unchanged')) {
      say('unchanged: a second run over the same index ...');
      runs.push({ name: 'second run, index unchanged', goal: 1.5, ...(await runRankingJobOnWorker(client, PERSONS)) });
    }
    if (PARTS.has('changed')) {
      const { changed, restore } = await changeShareOfPersons(es);
      say(`changed: a run after ${changed} documents (1 in ${CHANGED_EVERY}) changed ...`);
      try {
        runs.push({ name: `run after ${changed} documents changed`, goal: 1.6, ...(await runRankingJobOnWorker(client, PERSONS)) });
      } finally {
        await restore();
      }
    }

    let reads: ReadFigures = [];
    if (PARTS.has('reads')) {
      const ranBefore = scan !== undefined || profiles.length > 0 || floor !== undefined || runs.length > 0;
      if (runs.length > 0) await waitForSettledDatabase(database.pool);
      say(`reads: API process, concurrent load${ranBefore ? ' from a fresh process' : ''} ...`);
      reads = ranBefore ? await readLatenciesInFreshProcess() : await readLatencies(database.pool);
      const resultFile = process.env[READS_RESULT_FILE];
      if (resultFile) fs.writeFileSync(resultFile, JSON.stringify(reads));
    }

    say('');
    if (scan) {
      say(`bare scan, ${PERSONS} persons (the floor of every ratio)`);
      say(
        `  ${fmt(scan.seconds)} s, ${scan.documents} documents, ${fmt(scan.megabytes, 0)} MB of answers, ${fmt(scan.documents / scan.seconds, 0)} documents/s`,
      );
    }
    for (const [name, profile] of profiles) {
      say(
        `profile, ${name}: ${profile.documents} documents (${fmt(profile.megabytes, 0)} MB of answers), ${profile.written} entries written: ${fmt(profile.total)} s  ${ratio(profile.total)}`,
      );
      say('  step                                                  seconds   share');
      for (const [step, seconds] of profile.steps)
        say(`  ${step.padEnd(52)}${fmt(seconds).padStart(8)} ${fmt((100 * seconds) / profile.total, 1).padStart(6)} %`);
    }
    if (floor !== undefined)
      say(`floor: PIT scan + score + bulk upsert + positions + pages, no Temporal: ${fmt(floor)} s  ${ratio(floor)}`);
    if (runs.length > 0) {
      const { batchSize, maxChildrenInFlight } = RANKING_JOB_DEFAULTS;
      say(
        `ranking job, ${PERSONS} persons, batches of ${batchSize} (Temporal workflow, child per batch, ${maxChildrenInFlight} in flight)`,
      );
      say('  case                                  seconds   ratio to the bare scan   goal   worker peak RSS');
      for (const run of runs) {
        const toScan = scan ? fmt(run.seconds / scan.seconds, 2) : '-';
        say(
          `  ${run.name.padEnd(36)}${fmt(run.seconds).padStart(9)} ${toScan.padStart(12)} x${`<= ${run.goal}`.padStart(17)} ${fmt(run.peakMb).padStart(9)} MB`,
        );
      }
      say(`  worker flags ${RANKING_WORKER_FLAGS.join(' ')}; peak RSS target < 512 MB`);
    }
    if (reads.length > 0) {
      say(`reads at ${PERSONS} rows, ${REQUESTS} requests per endpoint and client count (target: p99 under 25 ms)`);
      say(`  endpoint                    clients   p50 ms   p99 ms    req/s  errors`);
      for (const [concurrency, results] of reads) {
        for (const [name, result] of results) {
          say(
            `  ${name.padEnd(28)}${String(concurrency).padStart(3)} ${fmt(result.p50, 2)} ${fmt(result.p99, 2)} ${fmt(result.perSecond, 0)} ${String(result.errors).padStart(7)}`,
          );
        }
      }
      say('name search, the same words by 2 letters (the table of name words) against 4 (FULLTEXT), p50 and p99 ratios');
      say('  case                      clients   p50 ratio   p99 ratio');
      for (const [concurrency, results] of reads) {
        const figures = new Map(results);
        for (const [label, long, short] of [
          ['two words of a name', '/ranking/busca 2 words', '/ranking/busca 2 short'],
          ['nobody (the index plan)', '/ranking/busca nobody', '/ranking/busca nobody short'],
        ] as const) {
          const [l, sh] = [figures.get(long), figures.get(short)];
          if (l && sh)
            say(`  ${label.padEnd(28)}${String(concurrency).padStart(3)} ${fmt(sh.p50 / l.p50, 2)} x ${fmt(sh.p99 / l.p99, 2)} x`);
        }
      }
    }
  } finally {
    await Promise.allSettled([es.close(), database.pool.end(), connection.close()]);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:ranking failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
