import './bench-env';
import { Client } from '@temporalio/client';
import { createDatabase } from '../../db';
import { migrateDatabase } from '../../db/migrate';
import { rankingTotals } from '../../db/ranking-queries';
import { PERSON_INDEX_BASE } from '../../domain/person-index';
import { config } from '../../lib/config';
import { createElasticsearch, indexName } from '../../lib/elasticsearch';
import { ensureNamespace } from '../../temporal/namespace';
import { ASSESSMENT_AREAS } from '../sample-data/vocabulary';
import { fmt, getOk, processTreeMemory, runLoad, type LoadResult } from './measure';
import { ensureBenchPersons, runRankingJobOnWorker, startApi, stopService } from './services';
import { connectTemporal } from '../../temporal/connection';

/**
 * Consultant endpoints benchmark (issue 4): at BENCH_PERSONS indexed and ranked persons (default
 * 300 000; generated and ranked first when missing), p50/p99 of GET /consultores/sugerir and of
 * GET /consultor/{id}/pdf under concurrent load, and the API's memory (alone, and with its Chromium)
 * while it renders BENCH_PDF_SHEETS consultant sheets, sampled as it goes, so growth without bound would show.
 *
 *   npm run bench:consultants   (BENCH_PERSONS, BENCH_CONCURRENCY (1,4), BENCH_SUGGESTIONS, BENCH_PDFS, BENCH_PDF_SHEETS)
 */
const PERSONS = Number(process.env.BENCH_PERSONS ?? 300_000);
const CONCURRENCIES = (process.env.BENCH_CONCURRENCY ?? '1,4').split(',').map(Number);
const SUGGESTIONS = Number(process.env.BENCH_SUGGESTIONS ?? 1_000);
const PDFS = Number(process.env.BENCH_PDFS ?? 200);
const PDF_SHEETS = Number(process.env.BENCH_PDF_SHEETS ?? 1_000);
const index = indexName(config.elasticsearch, PERSON_INDEX_BASE);
const say = (line: string) => process.stdout.write(`${line}\n`);

/** Themes users would type: assessment-area topics, knowledge areas and short words. */
const THEMES = ASSESSMENT_AREAS.flatMap((area) => [...area.topics, ...area.knowledgeAreas.slice(0, 2)]);

async function ensureRankedPersons(): Promise<void> {
  const es = createElasticsearch(config.elasticsearch, 120_000);
  const database = createDatabase(config.mysql);
  const connection = await connectTemporal(config.temporal);
  try {
    await migrateDatabase(config.mysql);
    await ensureNamespace(config.temporal, config.temporal.namespace);
    await ensureBenchPersons(es, index, PERSONS);
    if ((await rankingTotals(database.pool)).total !== PERSONS) {
      say('ranking the persons first ...');
      await runRankingJobOnWorker(new Client({ connection, namespace: config.temporal.namespace }), PERSONS);
    }
  } finally {
    await Promise.allSettled([es.close(), database.pool.end(), connection.close()]);
  }
}

const random = (n: number) => 1 + Math.floor(Math.random() * n);

async function main(): Promise<void> {
  await ensureRankedPersons();
  const { process: api, base } = await startApi();
  const suggest = (i: number) =>
    getOk(`${base}/consultores/sugerir?tema=${encodeURIComponent(THEMES[i % THEMES.length] as string)}&quantidade=20`, 'application/json');
  const sheet = () => getOk(`${base}/consultor/${random(PERSONS)}/pdf`, 'application/pdf');
  const results: Array<[string, number, LoadResult]> = [];
  const memory: Array<[number, ReturnType<typeof processTreeMemory>]> = [];
  try {
    say('warm-up ...');
    await runLoad(2, 100, suggest);
    await runLoad(2, 20, sheet);
    for (const concurrency of CONCURRENCIES) {
      say(`load with ${concurrency} client(s) ...`);
      results.push(['/consultores/sugerir', concurrency, await runLoad(concurrency, SUGGESTIONS, suggest)]);
      results.push(['/consultor/{id}/pdf', concurrency, await runLoad(concurrency, PDFS, sheet)]);
    }
    say(`memory over ${PDF_SHEETS} sheets ...`);
    const step = Math.max(1, Math.floor(PDF_SHEETS / 10));
    memory.push([0, processTreeMemory(api.pid as number)]);
    for (let done = 0; done < PDF_SHEETS; done += step) {
      const load = await runLoad(2, Math.min(step, PDF_SHEETS - done), sheet);
      if (load.errors > 0) throw new Error(`${load.errors} sheets failed`);
      memory.push([done + Math.min(step, PDF_SHEETS - done), processTreeMemory(api.pid as number)]);
    }
  } finally {
    await stopService(api);
  }

  say('');
  say(`consultant endpoints at ${PERSONS} indexed and ranked persons`);
  say(`  endpoint                 clients  requests   p50 ms   p99 ms    req/s  errors`);
  for (const [name, concurrency, result] of results) {
    say(
      `  ${name.padEnd(24)}${String(concurrency).padStart(7)} ${String(result.requests).padStart(9)} ${fmt(result.p50, 1)} ${fmt(result.p99, 1)} ${fmt(result.perSecond, 1)} ${String(result.errors).padStart(7)}`,
    );
  }
  say(`memory while rendering ${PDF_SHEETS} sheets (2 clients), MiB`);
  say(`  sheets            ${memory.map(([sheets]) => String(sheets).padStart(7)).join('')}`);
  say(`  API process RSS   ${memory.map(([, m]) => m.processRssMb.toFixed(0).padStart(7)).join('')}`);
  say(`  API + Chromium PSS${memory.map(([, m]) => m.treePssMb.toFixed(0).padStart(7)).join('')}`);
  const [firstSheets, first] = memory[1] ?? [0, { treePssMb: 0 }];
  const [, last] = memory[memory.length - 1] ?? [0, { treePssMb: 0 }];
  say(`  ratio API + Chromium, last / after the first ${firstSheets} sheets: ${(last.treePssMb / first.treePssMb).toFixed(2)}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:consultants failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
