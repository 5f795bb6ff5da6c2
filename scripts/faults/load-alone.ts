import { startStandInModel } from '../../test/support/stand-in-model';
import { FINAL_STATUSES } from './checks';
import { call, prepareFixture, read } from './load';
import { buckets, bucketsBetween, parseMetrics, quantile, total, type Sample } from './metrics-text';
import type { RoleName } from './roles';
import { judgeRunLines } from './run-lines';
import { FAULTS_TOKEN, startFaultService, type FaultService } from './service';
import { startWatcher, type Watcher } from './watcher';

/**
 * The service under a sustained load with no fault (docs/reliability.md, "Load, alone"): runs started
 * at a steady rate above what the slots absorb, WebSocket clients watching them, each client polling
 * what the panel's dashboard polls every 30 s. The figures come from the processes' own `/metrics`:
 * the queue and the slot wait, the live output's delay, the API's latency, each process's memory.
 */

export interface LoadAloneOptions {
  minutes: number;
  clients: number;
  /** Runs started per second, spread over the clients. */
  runsPerSecond: number;
  slots: number;
  lines: number;
  everyMs: number;
  log?: (line: string) => void;
}

export interface LoadAloneResult {
  options: Omit<LoadAloneOptions, 'log'>;
  runsStarted: number;
  refused: number;
  completed: number;
  notCompleted: string[];
  linesLost: number;
  linesDoubled: number;
  /** Output messages (chunks) the clients received on their sockets, against those the runs' records hold (the rest came by catch-up). */
  liveChunks: { received: number; written: number };
  /** Every 30 s: seconds since the start, runs waiting for a slot, runs running (the API's gauges). */
  queue: Array<{ atSeconds: number; waiting: number | null; running: number | null }>;
  slotWaitSeconds: { p50: number | null; p99: number | null };
  liveDelaySeconds: { p50: number | null; p99: number | null };
  apiSeconds: { p50: number | null; p99: number | null; requests: number };
  /** The five routes with the highest p99, with their request counts. */
  slowestRoutes: Array<{ route: string; p99: number | null; requests: number }>;
  /** Resident memory of each process in MB, every 30 s. */
  memoryMb: Record<RoleName, number[]>;
  seconds: number;
}

const SAMPLE_EVERY_MS = 30_000;
const PANEL_POLL_MS = 30_000;
const PANEL_CALLS = ['/api/executions/active', '/api/system/status', '/api/executions/recent?limit=10', '/api/stats/charts?days=7'];

export async function runLoadAlone(options: LoadAloneOptions): Promise<LoadAloneResult> {
  const log = options.log ?? ((line: string) => process.stdout.write(`load: ${line}\n`));
  const started = Date.now();
  const model = await startStandInModel();
  let service: FaultService | undefined;
  const watchers: Watcher[] = [];
  const timers: NodeJS.Timeout[] = [];
  try {
    service = await startFaultService({ persons: 1_000, log });
    const fixture = await prepareFixture(service, model, options.slots);
    for (let i = 0; i < options.clients; i += 1) {
      watchers.push(
        startWatcher(`load-client-${i}`, {
          wsUrl: () => service!.wsUrl,
          readRecord: (id) => read(service!, `/api/executions/history/${id}`),
        }),
      );
    }
    const scrape = async (): Promise<Record<RoleName, Sample[]>> => {
      const entries = await Promise.all(
        (Object.keys(service!.roles) as RoleName[]).map(async (name) => [name, parseMetrics(await metricsOf(service!, name))] as const),
      );
      return Object.fromEntries(entries) as Record<RoleName, Sample[]>;
    };
    const first = await scrape();
    const queue: LoadAloneResult['queue'] = [];
    const memoryMb = Object.fromEntries(Object.keys(service.roles).map((name) => [name, [] as number[]])) as Record<RoleName, number[]>;
    const sample = async () => {
      const now = await scrape();
      queue.push({
        atSeconds: Math.round((Date.now() - loadStart) / 1000),
        waiting: total(now.api, 'agent_runs_waiting_slot'),
        running: total(now.api, 'agent_runs_running'),
      });
      for (const name of Object.keys(now) as RoleName[])
        memoryMb[name].push(Math.round((total(now[name], 'process_resident_memory_bytes') ?? 0) / 1e6));
      log(
        `${queue.at(-1)!.atSeconds} s: waiting ${queue.at(-1)!.waiting}, running ${queue.at(-1)!.running}, memory ${JSON.stringify(Object.fromEntries(Object.entries(memoryMb).map(([name, values]) => [name, values.at(-1)])))}`,
      );
    };
    const loadStart = Date.now();
    await sample();
    timers.push(setInterval(() => void sample().catch(() => undefined), SAMPLE_EVERY_MS));

    // Each client polls as the panel's dashboard does, the clients spread over the period.
    watchers.forEach((_, i) => {
      const poll = () => void Promise.all(PANEL_CALLS.map((route) => call(service!, 'GET', route)));
      timers.push(setTimeout(() => timers.push(setInterval(poll, PANEL_POLL_MS)), (i * PANEL_POLL_MS) / options.clients));
    });

    const runs: Array<{ executionId: string; tag: string }> = [];
    let refused = 0;
    const submissions: Promise<void>[] = [];
    const count = Math.round(options.minutes * 60 * options.runsPerSecond);
    for (let n = 0; n < count; n += 1) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, loadStart + (n * 1000) / options.runsPerSecond - Date.now())));
      const watcher = watchers[n % watchers.length]!;
      const tag = `load${n}`;
      submissions.push(
        call(
          service,
          'POST',
          `/api/agents/${n % 2 === 0 ? fixture.agents.a : fixture.agents.b}/execute`,
          { task: `stand-in:lines count=${options.lines} every=${options.everyMs} tag=${tag}`, instructions: '' },
          { 'x-client-id': watcher.clientId },
        ).then((answer) => {
          if (answer.status !== 202) {
            refused += 1;
            return;
          }
          watcher.follow(answer.body.executionId);
          runs.push({ executionId: answer.body.executionId, tag });
        }),
      );
    }
    await Promise.all(submissions);
    log(
      `${runs.length} runs started in ${Math.round((Date.now() - loadStart) / 1000)} s (${refused} refused); waiting for the queue to drain`,
    );
    const statuses = new Map<string, string>();
    for (const run of runs) {
      const record = await untilFinal(service, run.executionId);
      statuses.set(run.executionId, record.status);
    }
    for (const timer of timers) clearInterval(timer);
    await sample();
    for (const watcher of watchers) await watcher.settle();
    const last = await scrape();

    let linesLost = 0;
    let linesDoubled = 0;
    const views = new Map(watchers.flatMap((watcher) => watcher.views().map((view) => [view.executionId, view] as const)));
    for (const run of runs) {
      const judged = judgeRunLines(
        views.get(run.executionId)?.lines ?? [],
        run.tag,
        options.lines,
        statuses.get(run.executionId) ?? 'unknown',
      );
      linesLost += judged.lost;
      linesDoubled += judged.doubled + judged.outOfOrder;
    }
    const between = (
      samplesBefore: Sample[],
      samplesAfter: Sample[],
      histogram: string,
      filter?: (labels: Record<string, string>) => boolean,
    ) => bucketsBetween(buckets(samplesBefore, histogram, filter), buckets(samplesAfter, histogram, filter));
    // The slot is taken in the agents workers' activity: their histograms, both hosts together.
    const slotWait = between(
      [...first['agents-a'], ...first['agents-b']],
      [...last['agents-a'], ...last['agents-b']],
      'agent_run_slot_wait_seconds',
    );
    const delay = between(first.api, last.api, 'live_output_delay_seconds');
    // The panel's and the clients' calls; not /metrics, which the suite itself reads.
    const api = between(first.api, last.api, 'http_server_request_duration_seconds', (labels) => labels.route !== '/metrics');
    const routes = [
      ...new Set(
        last.api
          .filter((sample) => sample.name === 'http_server_request_duration_seconds_bucket')
          .map((sample) => sample.labels.route ?? ''),
      ),
    ];
    const slowestRoutes = routes
      .filter((route) => route !== '/metrics')
      .map((route) => {
        const counts = between(first.api, last.api, 'http_server_request_duration_seconds', (labels) => labels.route === route);
        return { route, p99: quantile(0.99, counts), requests: counts.get(Infinity) ?? 0 };
      })
      .sort((a, b) => (b.p99 ?? 0) - (a.p99 ?? 0))
      .slice(0, 5);
    const received = watchers.reduce((sum, watcher) => sum + watcher.views().reduce((inner, view) => inner + view.liveChunks, 0), 0);
    const { log: _log, ...shown } = options;
    return {
      options: shown,
      runsStarted: runs.length,
      refused,
      completed: [...statuses.values()].filter((status) => status === 'completed').length,
      notCompleted: runs
        .filter((run) => statuses.get(run.executionId) !== 'completed')
        .map((run) => `${run.executionId} ${statuses.get(run.executionId)}`),
      linesLost,
      linesDoubled,
      liveChunks: {
        received,
        written: watchers.reduce((sum, watcher) => sum + watcher.views().reduce((inner, view) => inner + view.shownSeq, 0), 0),
      },
      queue,
      slotWaitSeconds: { p50: quantile(0.5, slotWait), p99: quantile(0.99, slotWait) },
      liveDelaySeconds: { p50: quantile(0.5, delay), p99: quantile(0.99, delay) },
      apiSeconds: {
        p50: quantile(0.5, api),
        p99: quantile(0.99, api),
        requests: [...api.values()].reduce((max, value) => Math.max(max, value), 0),
      },
      slowestRoutes,
      memoryMb,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    for (const timer of timers) clearInterval(timer);
    for (const watcher of watchers) watcher.close();
    await service?.stop();
    await model.close();
  }
}

/** A process's `/metrics`: the API's on its HTTP port (with the token), a worker's on its METRICS_PORT. */
async function metricsOf(service: FaultService, role: RoleName): Promise<string> {
  const url = role === 'api' ? `${service.origin}/metrics` : `http://127.0.0.1:${service.roles[role].spec.env.METRICS_PORT}/metrics`;
  const response = await fetch(url, { headers: { authorization: `Bearer ${FAULTS_TOKEN}` }, signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return response.text();
}

async function untilFinal(service: FaultService, executionId: string): Promise<{ status: string }> {
  const deadline = Date.now() + 30 * 60_000;
  for (;;) {
    const record = await read(service, `/api/executions/history/${executionId}`);
    if (FINAL_STATUSES.includes(record.status) || Date.now() > deadline) return record;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}
