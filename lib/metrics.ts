import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics (docs/observability.md): one registry per process, with
 * prom-client's default process metrics (CPU, memory, event loop lag, handles), served at
 * `GET /metrics` by the API process. Names follow Prometheus's conventions: base units (seconds,
 * bytes), `_total` for counters, labels from bounded sets only (a route template, never a raw path or
 * an id).
 */
export const metricsRegistry = new Registry();

let defaultMetrics = false;

/** prom-client's default process metrics (its event-loop monitor among them), once, by a process that serves metrics. */
export function collectProcessMetrics(): void {
  if (defaultMetrics) return;
  collectDefaultMetrics({ register: metricsRegistry });
  defaultMetrics = true;
}

/** Request durations of both HTTP services, by method, route template and status code. */
export const httpRequestDuration = new Histogram({
  name: 'http_server_request_duration_seconds',
  help: 'Duration of HTTP requests served, from the first middleware to the answer, by method, route template and status code.',
  labelNames: ['method', 'route', 'status_code'] as const,
  // From a cached page read (about 1 ms) to a PDF sheet or a slow export (seconds).
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

/** Agent runs whose process started (each attempt of a retried run counts), by the record's source, whether it is a pipeline step and its CLI. */
export const agentRunsStarted = new Counter({
  name: 'agent_runs_started_total',
  help: "Agent run attempts whose process started, by the record's source, whether the run is a pipeline step and the coding-agent CLI (claude-code, codex, gemini).",
  labelNames: ['source', 'pipeline_step', 'cli'] as const,
  registers: [metricsRegistry],
});

/** Agent run records that ended, by source, pipeline step, CLI, final status and the kind of failure (domain/run-outcomes.ts). */
export const agentRunsFinished = new Counter({
  name: 'agent_runs_finished_total',
  help: 'Agent run records that ended, by source, pipeline step, coding-agent CLI, final status and a bounded reason (none, timeout, budget, worker, engine, canceled, agent).',
  labelNames: ['source', 'pipeline_step', 'cli', 'status', 'reason'] as const,
  registers: [metricsRegistry],
});

/** From a run's start (its slot) to its end. */
export const agentRunDuration = new Histogram({
  name: 'agent_run_duration_seconds',
  help: 'Duration of agent runs from the start of their first attempt to their end, by final status.',
  labelNames: ['status'] as const,
  buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400],
  registers: [metricsRegistry],
});

/** What agent runs cost, as the CLI reported it or as the service priced its tokens (docs/agent-clis.md, "Cost"). */
export const agentRunCost = new Counter({
  name: 'agent_run_cost_usd_total',
  help: 'Cost of the agent runs that ended, in US dollars, as the agent CLI reported it or priced from its tokens when it reports none.',
  registers: [metricsRegistry],
});

/** The live-output WebSockets this process holds open. */
export const websocketClients = new Gauge({
  name: 'websocket_clients',
  help: 'Live-output WebSocket connections open on this process.',
  registers: [metricsRegistry],
});

/** Calls of the public webhook route, by outcome. */
export const webhookCalls = new Counter({
  name: 'webhook_calls_total',
  help: 'Calls of POST /hook/{token}, by result: accepted, duplicate, refused_signature, refused_inactive, refused_budget, rate_limited, not_found, invalid, failed.',
  labelNames: ['result'] as const,
  registers: [metricsRegistry],
});

/** Firings of agent schedules, by outcome. */
export const scheduleFirings = new Counter({
  name: 'schedule_firings_total',
  help: 'Firings of agent schedules, by result: started, refused_budget (the record ended error at once), skipped (the schedule or its agent is gone or inactive).',
  labelNames: ['result'] as const,
  registers: [metricsRegistry],
});

/** From a record's creation (queued) to its slot (running): the wait for a concurrency slot, the workflow's start included. */
export const agentRunSlotWait = new Histogram({
  name: 'agent_run_slot_wait_seconds',
  help: "Time agent runs waited from their record's creation to their concurrency slot, by whether the run is a pipeline step.",
  labelNames: ['pipeline_step'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
  registers: [metricsRegistry],
});

/** What a pipeline adds around each step (docs/observability.md: the definition of `npm run bench:pipeline`). */
export const pipelineStepOverhead = new Histogram({
  name: 'pipeline_step_overhead_seconds',
  help: "Time a completed pipeline run spent around each step outside the step's own run (previous step's end, or the run's creation, to the step's slot; the last step's end to the run's end), waits for a person left out.",
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
  registers: [metricsRegistry],
});

/** Lines of agent output the worker read and published live. */
export const liveOutputLines = new Counter({
  name: 'live_output_lines_total',
  help: 'Lines of agent output read by this worker from its agents and published for live viewing.',
  registers: [metricsRegistry],
});

/** From the worker reading a line to this API process writing it to a socket (the message's `at`). */
export const liveOutputDelay = new Histogram({
  name: 'live_output_delay_seconds',
  help: 'Delay of live output lines from the worker reading them to this API process writing them to a WebSocket (once per line, at its first socket).',
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [metricsRegistry],
});

/** Ranking jobs that ended, by how: their duration from start to end. */
export const rankingJobDuration = new Histogram({
  name: 'ranking_job_duration_seconds',
  help: 'Duration of ranking jobs from their start to their recorded end, by status (completed, failed, canceled).',
  labelNames: ['status'] as const,
  buckets: [10, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200],
  registers: [metricsRegistry],
});

/** Person documents read by this ranking worker (whole and scored, or by revision only), whether their entry was rewritten or not. */
export const rankingJobDocuments = new Counter({
  name: 'ranking_job_documents_total',
  help: "Person documents read from the index by ranking jobs on this worker (whole and scored, or by revision on the ranking's own day), rewritten or not (a batch retried after a failure counts again).",
  registers: [metricsRegistry],
});

/** Ranking entries written by this worker: the documents read whose entry changed (new, changed document, or changed score). */
export const rankingJobEntriesWritten = new Counter({
  name: 'ranking_job_entries_written_total',
  help: 'Ranking entries written by ranking jobs on this worker: documents read whose entry was new or changed; unchanged ones are left as stored (a batch retried after a failure counts again).',
  registers: [metricsRegistry],
});

/**
 * Figures read from the records when scraped (service-wide, the same from every API process: use
 * `max`, not `sum`, across processes). A process sets their source once (createApp); before that they
 * are not served.
 */
export interface RecordFigures {
  agentRunsRunning: number;
  agentRunsWaitingSlot: number;
  pipelineRunsAwaitingApproval: number;
  /** Unix seconds of the last ranking job that completed; null when none has. */
  rankingLastSuccessSeconds: number | null;
}

let recordFigures: (() => Promise<RecordFigures>) | null = null;
let figuresOfScrape: Promise<RecordFigures | null> | null = null;

/** One read of the records per scrape, whichever of the gauges asks first. */
function currentFigures(): Promise<RecordFigures | null> {
  if (!recordFigures) return Promise.resolve(null);
  figuresOfScrape ??= recordFigures()
    .catch(() => null) // a database down: the gauges are left out of this scrape, the rest is served
    .finally(() => setImmediate(() => (figuresOfScrape = null)));
  return figuresOfScrape;
}

function recordGauge(name: string, help: string, value: (figures: RecordFigures) => number | null): Gauge {
  return new Gauge({
    name,
    help,
    registers: [],
    async collect() {
      const figures = await currentFigures();
      const current = figures ? value(figures) : null;
      if (current !== null) this.set(current);
      // Unknown (no figures, or no ranking has completed): no sample at all, rather than prom-client's
      // 0 for a gauge without labels, which would read as "1970" or "none running".
      else (this as unknown as { hashMap: object }).hashMap = {};
    },
  });
}

const recordGauges = [
  recordGauge(
    'agent_runs_running',
    'Agent run records running now (service-wide, from the records).',
    (figures) => figures.agentRunsRunning,
  ),
  recordGauge(
    'agent_runs_waiting_slot',
    'Agent run records queued for a concurrency slot now (service-wide, from the records).',
    (figures) => figures.agentRunsWaitingSlot,
  ),
  recordGauge(
    'pipeline_runs_awaiting_approval',
    'Pipeline runs waiting for a person to approve a step now (service-wide, from the records).',
    (figures) => figures.pipelineRunsAwaitingApproval,
  ),
  recordGauge(
    'ranking_job_last_success_timestamp_seconds',
    'Unix time of the end of the last ranking job that completed (from the records; absent when none has).',
    (figures) => figures.rankingLastSuccessSeconds,
  ),
];

/** Serves the record gauges from `source` (the process's database); the last call wins. */
export function serveRecordFigures(source: () => Promise<RecordFigures>): void {
  if (!recordFigures) for (const gauge of recordGauges) metricsRegistry.registerMetric(gauge);
  recordFigures = source;
}

/** Text of other exporters of this process (the Temporal SDK's), served after the registry's at each scrape. */
const metricsSources: Array<() => Promise<string>> = [];

export function addMetricsSource(source: () => Promise<string>): void {
  metricsSources.push(source);
}

/** The whole scrape: the process metrics, the registry, then each other source, in Prometheus's text format. */
export async function metricsText(): Promise<string> {
  collectProcessMetrics();
  const parts = await Promise.all([metricsRegistry.metrics(), ...metricsSources.map((source) => source())]);
  return parts
    .filter((part) => part.length > 0)
    .map((part) => (part.endsWith('\n') ? part : `${part}\n`))
    .join('');
}
