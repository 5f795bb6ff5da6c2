import './bench-env';
import { Client } from '@temporalio/client';
import { createDatabase } from '../../db';
import { migrateDatabase } from '../../db/migrate';
import { rankingTotals } from '../../db/ranking-queries';
import { PERSON_INDEX_BASE } from '../../domain/person-index';
import { config } from '../../lib/config';
import { createElasticsearch, indexName } from '../../lib/elasticsearch';
import { ensureNamespace } from '../../temporal/namespace';
import { startStandInModel } from '../../test/support/stand-in-model';
import { startAgentServices, streamAtOnce, waitUntilIdle, type FailedRun } from './live-streams';
import { fmt, getOk, percentile, runLoad } from './measure';
import { ensureBenchPersons, freePort, runRankingJobOnWorker, startApi, stopService } from './services';
import { connectTemporal } from '../../temporal/connection';

/**
 * What the metrics cost on the hottest paths (issue 24): the service with its metrics on (the
 * default) and off (`METRICS_ENABLED=false`: no /metrics, no HTTP request histogram, no live-output
 * delay histogram, no Temporal SDK exporter, no prom-client default collectors), side by side in one run:
 *
 * 1. GET /api/v1/ranking/paginado from BENCH_CLIENTS (4) clients at BENCH_PERSONS (300 000) indexed and
 *    ranked persons (generated and ranked first when missing, reused otherwise), as a browser asks for
 *    it (gzip) and plain: one API process per side, both warmed up, then BENCH_ROUNDS rounds of
 *    BENCH_REQUESTS requests per side and endpoint, the sides' order alternating from round to round,
 *    so the machine's noise falls on both alike. p50/p99 over all of a side's requests.
 * 2. Live-output delay with the real Claude Code CLI against the stand-in model, as bench:live-output
 *    measures it (from the stand-in writing a text delta to the WebSocket client receiving its line):
 *    BENCH_STREAMS executions of BENCH_CHUNKS lines, one every BENCH_LINE_MS, per round; an agents
 *    worker and an API per side and round (both with the side's METRICS_ENABLED; the two sides cannot run
 *    at once, their workers would share the task queue), BENCH_LIVE_ROUNDS rounds per side, alternating.
 *
 * On the "on" side /metrics is scraped every BENCH_SCRAPE_S seconds of its measured time (the API's,
 * and the worker's in part 2), as Prometheus would (0: never). Ratios are on / off. No timing
 * thresholds: it exits 1 only when something fails to run (an error answer, a run that did not
 * complete, a line that never arrived, or a side whose /metrics does not answer as its switch says).
 *
 *   npm run bench:metrics   (BENCH_PERSONS, BENCH_CLIENTS, BENCH_ROUNDS, BENCH_REQUESTS, BENCH_WARM_UP,
 *                            BENCH_STREAMS, BENCH_CHUNKS, BENCH_LINE_MS, BENCH_LIVE_ROUNDS, BENCH_SCRAPE_S,
 *                            BENCH_PARTS=ranking,live; BENCH_PARTS=prepare only generates and ranks the persons,
 *                            for a run whose measurement should not follow the ranking job's writes at once)
 */
const PERSONS = Number(process.env.BENCH_PERSONS ?? 300_000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2_000);
/** Per endpoint and API process, as bench:ranking warms up (a fresh process needs ~4 000 page requests). */
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 4_000);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 20);
const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 100);
const LINE_MS = Number(process.env.BENCH_LINE_MS ?? 100);
const LIVE_ROUNDS = Number(process.env.BENCH_LIVE_ROUNDS ?? 3);
const SCRAPE_S = Number(process.env.BENCH_SCRAPE_S ?? 15);
const PARTS = new Set((process.env.BENCH_PARTS ?? 'ranking,live').split(','));
const index = indexName(config.elasticsearch, PERSON_INDEX_BASE);
/** What browsers send; the load client reads the bytes as sent (scripts/bench/ranking.ts). */
const BROWSER_ENCODINGS = { 'accept-encoding': 'gzip, deflate, br' };
const say = (line: string) => process.stdout.write(`${line}\n`);

type Side = 'on' | 'off';
/** Round r runs "on" first when r is even, "off" first when odd. */
const sidesOf = (round: number): Side[] => (round % 2 === 0 ? ['on', 'off'] : ['off', 'on']);

/** The environment of a side's processes; "on" serves a worker's metrics on a port of its own (not the default 9464 someone may hold). */
async function sideEnv(side: Side): Promise<Record<string, string>> {
  return side === 'on' ? { METRICS_ENABLED: 'true', METRICS_PORT: String(await freePort()) } : { METRICS_ENABLED: 'false' };
}

/**
 * Scrapes metric addresses every SCRAPE_S seconds of the time it runs (resumed while the "on" side
 * is measured, paused otherwise), so the "on" side carries Prometheus's load at its rate.
 */
class Scraper {
  private urls: string[] = [];
  private sinceLast = 0;
  private resumedAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private pending: Promise<void>[] = [];
  scrapes = 0;
  failures: string[] = [];

  resume(urls: string[]): void {
    if (SCRAPE_S <= 0) return;
    this.urls = urls;
    this.resumedAt = Date.now();
    this.schedule(Math.max(0, SCRAPE_S * 1000 - this.sinceLast));
  }

  async pause(): Promise<void> {
    if (this.timer === null) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.sinceLast += Date.now() - this.resumedAt;
    await Promise.all(this.pending);
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      this.sinceLast = 0;
      this.resumedAt = Date.now();
      this.pending = this.urls.map((url) => this.scrape(url));
      this.schedule(SCRAPE_S * 1000);
    }, ms);
  }

  private async scrape(url: string): Promise<void> {
    const response = await fetch(url).catch((error: unknown) => error as Error);
    if (response instanceof Error) this.failures.push(`${url}: ${response.message}`);
    else if (!response.ok) this.failures.push(`${url}: ${response.status}`);
    else {
      await response.text();
      this.scrapes += 1;
    }
  }
}

/** That a side's process serves /metrics when on (with the family it is about) and nothing when off. */
async function checkSwitch(side: Side, url: string, family: string): Promise<void> {
  const response = await fetch(url);
  const text = await response.text();
  if (side === 'on' && !(response.ok && text.includes(family)))
    throw new Error(`metrics on, but ${url} answered ${response.status} without ${family}`);
  if (side === 'off' && response.status !== 404) throw new Error(`metrics off, but ${url} answered ${response.status}`);
}

async function ensureRankedPersons(): Promise<void> {
  const es = createElasticsearch(config.elasticsearch, 120_000);
  const database = createDatabase(config.mysql);
  const connection = await connectTemporal(config.temporal);
  try {
    await migrateDatabase(config.mysql);
    await ensureNamespace(config.temporal, config.temporal.namespace);
    const indexed = (await es.indices.exists({ index })) ? (await es.count({ index })).count : 0;
    await ensureBenchPersons(es, index, PERSONS);
    // A regenerated index is ranked again even if the stored ranking happens to hold as many rows.
    if (indexed !== PERSONS || (await rankingTotals(database.pool)).total !== PERSONS) {
      say(`ranking the ${PERSONS} persons first ...`);
      const job = await runRankingJobOnWorker(new Client({ connection, namespace: config.temporal.namespace }), PERSONS);
      say(`ranked in ${fmt(job.seconds)} s`);
    }
  } finally {
    await Promise.allSettled([es.close(), database.pool.end(), connection.close()]);
  }
}

interface SideFigures {
  latencies: number[];
  errors: number;
  seconds: number;
  /** p99 of each round, for the spread of the per-round ratios. */
  roundP99: number[];
}

const emptyFigures = (): SideFigures => ({ latencies: [], errors: 0, seconds: 0, roundP99: [] });

interface PageFigures {
  name: string;
  sides: Record<Side, SideFigures>;
}

async function rankingPages(scraper: Scraper): Promise<PageFigures[]> {
  await ensureRankedPersons();
  const apis = {} as Record<Side, { process: Awaited<ReturnType<typeof startApi>>['process']; base: string; metrics: string }>;
  try {
    for (const side of ['on', 'off'] as const) {
      const api = await startApi(await sideEnv(side));
      apis[side] = { ...api, metrics: api.base.replace(/\/api\/v1$/, '/metrics') };
      await checkSwitch(side, apis[side].metrics, 'http_server_request_duration_seconds');
    }
    const pages = Math.ceil(PERSONS / 50);
    const page = () => 1 + Math.floor(Math.random() * pages);
    const endpoints: Array<[string, Record<string, string>]> = [
      ['/ranking/paginado', BROWSER_ENCODINGS],
      ['/ranking/paginado plain', { 'accept-encoding': 'identity' }],
    ];
    const call = (side: Side, headers: Record<string, string>) => () =>
      getOk(`${apis[side].base}/ranking/paginado?page=${page()}`, 'application/json', headers);

    say(`paginado: warming up both API processes, ${WARM_UP} requests per endpoint each ...`);
    for (const [, headers] of endpoints) for (const side of ['on', 'off'] as const) await runLoad(2, WARM_UP, call(side, headers));

    const figures: PageFigures[] = endpoints.map(([name]) => ({ name, sides: { on: emptyFigures(), off: emptyFigures() } }));
    for (let round = 0; round < ROUNDS; round += 1) {
      say(`paginado: round ${round + 1} of ${ROUNDS} (${sidesOf(round).join(', then ')}) ...`);
      for (const [e, [, headers]] of endpoints.entries()) {
        for (const side of sidesOf(round)) {
          const into = (figures[e] as PageFigures).sides[side];
          const latencies: number[] = [];
          const timed = async () => {
            const t0 = process.hrtime.bigint();
            const ok = await call(side, headers)();
            latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
            return ok;
          };
          if (side === 'on') scraper.resume([apis.on.metrics]);
          const load = await runLoad(CLIENTS, REQUESTS, timed);
          if (side === 'on') await scraper.pause();
          into.latencies.push(...latencies);
          into.errors += load.errors;
          into.seconds += REQUESTS / load.perSecond;
          into.roundP99.push(load.p99);
        }
      }
    }
    return figures;
  } finally {
    await Promise.allSettled(Object.values(apis).map((api) => stopService(api.process)));
  }
}

interface LiveFigures {
  delays: number[];
  expected: number;
  roundP99: number[];
  failed: FailedRun[];
}

async function liveOutput(scraper: Scraper): Promise<Record<Side, LiveFigures>> {
  await migrateDatabase(config.mysql);
  await ensureNamespace(config.temporal, config.temporal.namespace);
  const sentAt = new Map<string, number>();
  // Each delta of `stand-in:lines` is one line; the client receives it without its line end.
  const model = await startStandInModel({ onTextDelta: (text) => sentAt.set(text.trimEnd(), Date.now()) });
  const figures: Record<Side, LiveFigures> = {
    on: { delays: [], expected: 0, roundP99: [], failed: [] },
    off: { delays: [], expected: 0, roundP99: [], failed: [] },
  };
  try {
    for (let round = 0; round < LIVE_ROUNDS; round += 1) {
      for (const side of sidesOf(round)) {
        say(
          `live output: round ${round + 1} of ${LIVE_ROUNDS}, metrics ${side}: ${STREAMS} executions at once, ${CHUNKS} lines each, one every ${LINE_MS} ms ...`,
        );
        const env = await sideEnv(side);
        const services = await startAgentServices(env);
        try {
          await checkSwitch(side, `${services.origin}/metrics`, 'live_output_delay_seconds');
          if (side === 'on') await checkSwitch(side, `http://127.0.0.1:${env.METRICS_PORT}/metrics`, 'temporal_');
          await services.api.call('PUT', '/settings', { maxConcurrent: Math.max(STREAMS, 20) });
          await waitUntilIdle(services.api);
          // Unmeasured: the fresh processes' first runs.
          await streamAtOnce(services.api, model, sentAt, services.wsBase, {
            streams: 2,
            chunks: 10,
            intervalMs: LINE_MS,
            label: `warm${side}${round}`,
          });
          await waitUntilIdle(services.api);
          if (side === 'on') scraper.resume([`${services.origin}/metrics`, `http://127.0.0.1:${env.METRICS_PORT}/metrics`]);
          const run = await streamAtOnce(services.api, model, sentAt, services.wsBase, {
            streams: STREAMS,
            chunks: CHUNKS,
            intervalMs: LINE_MS,
            label: `${side}${round}`,
          });
          if (side === 'on') await scraper.pause();
          await waitUntilIdle(services.api);
          const into = figures[side];
          into.delays.push(...run.delays);
          into.expected += STREAMS * CHUNKS;
          into.roundP99.push(
            percentile(
              [...run.delays].sort((a, b) => a - b),
              99,
            ),
          );
          into.failed.push(...run.failed);
        } finally {
          await scraper.pause();
          await services.stop();
        }
      }
    }
  } finally {
    await model.close();
  }
  return figures;
}

const ratio = (on: number, off: number) => fmt(on / off, 2);
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
/** The spread of the per-round on/off ratios of p99 (round i of each side). */
function roundSpread(on: number[], off: number[]): string {
  const ratios = on.map((value, i) => value / (off[i] as number)).sort((a, b) => a - b);
  return `${(ratios[0] ?? Number.NaN).toFixed(2)}–${(ratios[ratios.length - 1] ?? Number.NaN).toFixed(2)}`;
}

async function main(): Promise<void> {
  const scraper = new Scraper();
  // The ranking worker started for a missing ranking serves its metrics on a port of its own too.
  process.env.METRICS_PORT = String(await freePort());
  if (PARTS.has('prepare')) {
    await ensureRankedPersons();
    say(`${PERSONS} persons indexed and ranked`);
    return;
  }
  const pages = PARTS.has('ranking') ? await rankingPages(scraper) : [];
  const live = PARTS.has('live') ? await liveOutput(scraper) : null;

  say('');
  say(`metrics on (default) vs off (METRICS_ENABLED=false), one run, sides interleaved, ratios on / off`);
  say(`on: /metrics scraped every ${SCRAPE_S} s of the on side's measured time (${scraper.scrapes} scrapes)`);
  const closing: string[] = [];
  if (pages.length > 0) {
    say(`GET /api/v1/ranking/paginado at ${PERSONS} ranked persons, ${CLIENTS} clients, ${ROUNDS} rounds of ${REQUESTS} requests per side`);
    say(`  endpoint                 metrics   p50 ms   p99 ms    req/s  errors   round p99 on/off`);
    for (const { name, sides } of pages) {
      const s = { on: sorted(sides.on.latencies), off: sorted(sides.off.latencies) };
      for (const side of ['on', 'off'] as const) {
        const f = sides[side];
        say(
          `  ${name.padEnd(24)}${side.padStart(8)} ${fmt(percentile(s[side], 50), 2)} ${fmt(percentile(s[side], 99), 2)} ${fmt(s[side].length / f.seconds, 0)} ${String(f.errors).padStart(7)}`,
        );
      }
      const [p50, p99] = [ratio(percentile(s.on, 50), percentile(s.off, 50)), ratio(percentile(s.on, 99), percentile(s.off, 99))];
      const rate = ratio(s.on.length / sides.on.seconds, s.off.length / sides.off.seconds);
      say(
        `  ${name.padEnd(24)}${'on/off'.padStart(8)} ${p50} ${p99} ${rate}          ${roundSpread(sides.on.roundP99, sides.off.roundP99)}`,
      );
      closing.push(`${name} p50 ${p50.trim()}, p99 ${p99.trim()}`);
    }
  }
  if (live) {
    say(
      `live output, real Claude Code CLI against the stand-in model: ${STREAMS} executions at once, ${CHUNKS} lines each, one every ${LINE_MS} ms, ${LIVE_ROUNDS} rounds per side`,
    );
    say('delay from the stand-in writing a text delta to the client at / receiving its execution_output');
    say(`  metrics   lines received   p50 ms   p99 ms   round p99 on/off`);
    const s = { on: sorted(live.on.delays), off: sorted(live.off.delays) };
    for (const side of ['on', 'off'] as const) {
      say(
        `  ${side.padEnd(8)} ${`${s[side].length}/${live[side].expected}`.padStart(15)} ${fmt(percentile(s[side], 50), 1)} ${fmt(percentile(s[side], 99), 1)}`,
      );
    }
    const [p50, p99] = [ratio(percentile(s.on, 50), percentile(s.off, 50)), ratio(percentile(s.on, 99), percentile(s.off, 99))];
    say(`  ${'on/off'.padEnd(8)} ${''.padStart(15)} ${p50} ${p99}   ${roundSpread(live.on.roundP99, live.off.roundP99)}`);
    closing.push(`live-output delay p50 ${p50.trim()}, p99 ${p99.trim()}`);
  }
  say(`ratios metrics on / off: ${closing.join('; ')}`);

  // Figures beside an error answer, a lost run or line, or a failed scrape mean nothing.
  const problems = [
    ...pages.flatMap(({ name, sides }) =>
      (['on', 'off'] as const).filter((side) => sides[side].errors > 0).map((side) => `${name} (${side}): ${sides[side].errors} errors`),
    ),
    ...(live
      ? (['on', 'off'] as const).flatMap((side) => [
          ...live[side].failed.map((run) => `live output (${side}): ${run.executionId}: ${run.error}`),
          ...(live[side].delays.length < live[side].expected
            ? [`live output (${side}): ${live[side].delays.length} of ${live[side].expected} lines arrived`]
            : []),
        ])
      : []),
    ...scraper.failures.map((failure) => `scrape ${failure}`),
  ];
  if (problems.length > 0) {
    say('');
    say(`FAILED: ${problems.length} problem(s)`);
    for (const problem of problems) say(`  ${problem}`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:metrics failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
