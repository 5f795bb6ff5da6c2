import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics (docs/observability.md): one registry per process, with
 * prom-client's default process metrics (CPU, memory, event loop lag, handles), served at
 * `GET /metrics` by the API process. Names follow Prometheus's conventions: base units (seconds,
 * bytes), `_total` for counters, labels from bounded sets only (a route template, never a raw path or
 * an id).
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

/** Request durations of both HTTP services, by method, route template and status code. */
export const httpRequestDuration = new Histogram({
  name: 'http_server_request_duration_seconds',
  help: 'Duration of HTTP requests served, from the first middleware to the answer, by method, route template and status code.',
  labelNames: ['method', 'route', 'status_code'] as const,
  // From a cached page read (about 1 ms) to a PDF sheet or a slow export (seconds).
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

/** Agent runs whose process started (each attempt of a retried run counts), by the record's source and whether it is a pipeline step. */
export const agentRunsStarted = new Counter({
  name: 'agent_runs_started_total',
  help: "Agent run attempts whose process started, by the record's source and whether the run is a pipeline step.",
  labelNames: ['source', 'pipeline_step'] as const,
  registers: [metricsRegistry],
});

/** Agent run records that ended, by source, pipeline step, final status and the kind of failure (domain/run-outcomes.ts). */
export const agentRunsFinished = new Counter({
  name: 'agent_runs_finished_total',
  help: 'Agent run records that ended, by source, pipeline step, final status and a bounded reason (none, timeout, budget, worker, engine, canceled, agent).',
  labelNames: ['source', 'pipeline_step', 'status', 'reason'] as const,
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

/** What agent runs cost, as the CLI reported it. */
export const agentRunCost = new Counter({
  name: 'agent_run_cost_usd_total',
  help: 'Cost of the agent runs that ended, in US dollars, as the agent CLI reported it.',
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
  help: "Firings of agent schedules, by result: started, refused_budget (the record ended error at once), skipped (the schedule or its agent is gone or inactive).",
  labelNames: ['result'] as const,
  registers: [metricsRegistry],
});
