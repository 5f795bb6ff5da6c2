import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { startProbeServer } from '../../api/metrics';
import { EventLoopLiveness } from '../../lib/event-loop-liveness';
import { Readiness } from '../../lib/readiness';
import { config as baseConfig, type Config } from '../../lib/config';
import { logger } from '../../lib/logger';
import { metricsText } from '../../lib/metrics';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import { startTestServer, type TestServer } from '../support/server';
import { connectClient, untilFinal } from '../support/websocket';
import { jsonCall } from '../support/json-api';
import { until } from '../support/waiting';
import { agentScheduleId } from '../../temporal/agent-schedules';
import type { RowDataPacket } from 'mysql2/promise';
import { createDatabase, type DatabaseHandle } from '../../db';
import { unusedPort } from '../support/ports';
import { startServiceProcess, waitForLog, type ServiceProcess } from '../support/processes';
import { runRankingJob, seedPersonIndex } from '../support/ranking';

/**
 * `GET /metrics` (docs/observability.md), first step of issue 24: prom-client's process metrics,
 * `http_server_request_duration_seconds` with labels from bounded sets only (a route template, never a
 * path, an id or a method a client made up), the agent runs' counters after real runs of the real CLI
 * against the stand-in model, the metrics server of a worker alone (METRICS_PORT), and with
 * AUTH_TOKEN set the token however the path is spelled.
 */

const TOKEN = 'metrics-test-token-0123456789abcdef';
const servers: TestServer[] = [];
afterAll(() => Promise.all(servers.map((server) => server.close())));

async function start(authToken: string | null): Promise<TestServer> {
  const server = await startTestServer((config: Config) => ({ ...config, orchestration: { ...config.orchestration, authToken } }));
  servers.push(server);
  return server;
}

/** The samples of `family` in a scrape: their labels and values. */
function samples(text: string, family: string): Array<{ labels: Record<string, string>; value: number }> {
  const found: Array<{ labels: Record<string, string>; value: number }> = [];
  for (const line of text.split('\n')) {
    const match = /^([a-z_:][a-z0-9_:]*)(?:\{(.*)\})? (\S+)$/i.exec(line);
    if (!match || match[1] !== family) continue;
    const labels = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/gi)].map((pair) => [pair[1]!, pair[2]!]),
    );
    found.push({ labels, value: Number(match[3]) });
  }
  return found;
}

/** The sum of `family`'s samples whose labels include `labels`. */
const valueOf = (text: string, family: string, labels: Record<string, string> = {}) =>
  samples(text, family)
    .filter((sample) => Object.entries(labels).every(([name, wanted]) => sample.labels[name] === wanted))
    .reduce((sum, sample) => sum + sample.value, 0);

/**
 * The gauges prom-client's default metrics name with `_total` (its choice, kept for its users' dashboards):
 * the only problems Prometheus's linter may find in a scrape.
 */
const PROM_CLIENT_LINT = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'].map(
  (name) => `${name} non-counter metrics should not have "_total" suffix`,
);

/** `promtool check metrics` (Debian's prometheus package, installed by the stack): Prometheus's own parser and linter. */
function promtoolCheck(text: string): { status: number | null; problems: string[] } {
  const checked = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (checked.error)
    throw new Error(`promtool did not run (scripts/stack/system-packages.sh installs the prometheus package): ${checked.error.message}`);
  return { status: checked.status, problems: `${checked.stdout}${checked.stderr}`.split('\n').filter((line) => line.length > 0) };
}

describe('GET /metrics', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await start(null);
  });

  it("serves prom-client's process metrics in Prometheus's text format", async () => {
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await response.text();
    expect(samples(text, 'process_cpu_user_seconds_total')[0]!.value).toBeGreaterThan(0);
    expect(samples(text, 'nodejs_heap_size_used_bytes')[0]!.value).toBeGreaterThan(0);
    expect(text).toContain('# TYPE http_server_request_duration_seconds histogram');
  });

  it('times requests by method, route template and status, whatever the path or method sent', async () => {
    const id = randomUUID();
    const odd = `/n\u00e3o-existe/${id}`;
    expect((await fetch(`${server.url}/api/agents/${id}`)).status).toBe(404);
    expect((await fetch(`${server.url}/api/agents/${id}/versions`)).status).toBe(404);
    // The status depends on whether a ranking is stored yet (503 on a fresh database): whatever it is,
    // the label is the route's template with that status.
    const rankingStatus = (await fetch(`${server.url}/api/v1/ranking/posicao/987654321`)).status;
    expect([200, 404, 503]).toContain(rankingStatus);
    expect((await fetch(`${server.url}${encodeURI(odd)}`)).status).toBe(404);
    expect((await fetch(`${server.url}/api/%2e%2e/${id}`)).status).toBe(404);
    await fetch(`${server.url}/api/agents`, { method: 'PROPFIND' });

    const text = await (await fetch(`${server.url}/metrics`)).text();
    const counts = samples(text, 'http_server_request_duration_seconds_count');
    const count = (labels: Record<string, string>) =>
      counts.find((sample) => Object.entries(labels).every(([name, value]) => sample.labels[name] === value))?.value ?? 0;
    expect(count({ method: 'GET', route: '/api/agents/:id', status_code: '404' })).toBeGreaterThanOrEqual(1);
    expect(count({ method: 'GET', route: '/api/agents/:id/versions', status_code: '404' })).toBeGreaterThanOrEqual(1);
    expect(
      count({ method: 'GET', route: '/api/v1/ranking/posicao/:id_pessoa', status_code: String(rankingStatus) }),
    ).toBeGreaterThanOrEqual(1);
    expect(count({ method: 'GET', route: 'unmatched', status_code: '404' })).toBeGreaterThanOrEqual(2);
    expect(count({ method: 'other', route: 'unmatched' })).toBeGreaterThanOrEqual(1);

    // No label holds an id, a path as sent or a made-up method.
    for (const sample of counts) {
      expect(sample.labels.method).toMatch(/^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|other)$/);
      expect(sample.labels.status_code).toMatch(/^[1-5]\d\d$/);
      expect(sample.labels.route === 'unmatched' || /^\/[a-z0-9/:_.-]*$/i.test(sample.labels.route!)).toBe(true);
      expect(Object.values(sample.labels).join(' ')).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
      expect(Object.values(sample.labels).join(' ')).not.toMatch(/PROPFIND|existe|%2e|987654321/i);
    }
  });
});

describe('GET /metrics with AUTH_TOKEN set', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await start(TOKEN);
  });

  it.each(['/metrics', '/METRICS', '/metrics/', '//metrics', '/%6detrics'])('asks for the token at %s', async (spelling) => {
    const response = await fetch(`${server.url}${spelling}`);
    expect(response.status).toBe(401);
    expect(await response.text()).not.toContain('http_server_request_duration_seconds');
  });

  it('answers a bearer token, as Prometheus sends it', async () => {
    const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('http_server_request_duration_seconds_bucket');
  });

  it('refuses a wrong token', async () => {
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
  });
});

describe('agent run, webhook, schedule and WebSocket metrics, after real work', () => {
  let agents: RealAgents;
  beforeAll(async () => {
    agents = await startRealAgents({ name: 'metrics', maxConcurrent: 2 });
  }, 60_000);
  afterAll(async () => {
    await agents?.close();
  });

  const scrape = async () => (await fetch(`${agents.server.url}/metrics`)).text();
  const value = valueOf;

  /** Runs a task for a client watching it; every message of the run, up to its final one. */
  async function runToEnd(agentId: string, task: string, whileRunning?: () => Promise<void>): Promise<any[]> {
    const clientId = `painel-${randomUUID()}`;
    const probe = await connectClient(agents.server.url, clientId);
    try {
      const answer = await jsonCall(agents.server.url, 'POST', `/api/agents/${agentId}/execute`, { task, instructions: '' }, clientId);
      expect(answer.status).toBe(202);
      const messages = untilFinal(probe, answer.body.executionId);
      await whileRunning?.();
      return await messages;
    } finally {
      probe.socket.terminate();
    }
  }

  it('counts a completed run and a timed-out one: started, slot wait, running, finished by status and reason, duration, cost, live lines and their delay', async () => {
    const before = await scrape();
    const agent = await agents.standInAgent('medido', { timeout: 3_000 });
    const completed = await runToEnd(agent.id, 'stand-in:text');
    expect(completed.at(-1)).toMatchObject({ type: 'execution_complete' });
    expect(value(await scrape(), 'agent_runs_running')).toBe(0);
    const timedOut = await runToEnd(agent.id, 'stand-in:sleep seconds=600', async () => {
      await until(
        'the sleeping run counted as running',
        async () => value(await scrape(), 'agent_runs_running'),
        (running) => running === 1,
      );
    });
    expect(timedOut.at(-1)).toMatchObject({ type: 'execution_error' });
    const after = await scrape();

    const moved = (family: string, labels: Record<string, string> = {}) => value(after, family, labels) - value(before, family, labels);
    expect(moved('agent_runs_started_total', { source: 'manual', pipeline_step: 'false', cli: 'claude-code' })).toBe(2);
    expect(moved('agent_run_slot_wait_seconds_count', { pipeline_step: 'false' })).toBe(2);
    expect(
      moved('agent_runs_finished_total', {
        source: 'manual',
        pipeline_step: 'false',
        cli: 'claude-code',
        status: 'completed',
        reason: 'none',
      }),
    ).toBe(1);
    expect(moved('agent_runs_finished_total', { source: 'manual', pipeline_step: 'false', status: 'error', reason: 'timeout' })).toBe(1);
    expect(moved('agent_run_duration_seconds_count', { status: 'completed' })).toBe(1);
    expect(moved('agent_run_duration_seconds_count', { status: 'error' })).toBe(1);
    // A stand-in:text run costs US$ 0.00015; the timed-out one reported nothing.
    expect(moved('agent_run_cost_usd_total')).toBeCloseTo(0.00015, 8);
    expect(after).toContain('# TYPE agent_runs_finished_total counter');
    expect([value(after, 'agent_runs_running'), value(after, 'agent_runs_waiting_slot')]).toEqual([0, 0]);

    // Every output line the client was shown was read by the worker and timed once on its way to the socket.
    const shown = [...completed, ...timedOut].filter((message) => message.type === 'execution_output');
    expect(shown.length).toBeGreaterThan(0);
    expect(moved('live_output_lines_total')).toBe(shown.length);
    expect(moved('live_output_delay_seconds_count')).toBe(shown.length);
    expect(moved('live_output_delay_seconds_bucket', { le: '+Inf' })).toBe(shown.length);
    expect(shown.every((message) => Number.isFinite(Date.parse(message.at)))).toBe(true);
  }, 120_000);

  it('counts a pipeline: its steps as pipeline runs, the run awaiting approval, the overhead around each step', async () => {
    const [first, second] = [await agents.standInAgent('etapa-um'), await agents.standInAgent('etapa-dois')];
    const created = await call('POST', '/api/pipelines', {
      name: `métricas ${randomUUID().slice(0, 8)}`,
      description: '',
      steps: [
        { agentId: first.id, inputTemplate: 'stand-in:text\n{{input}}', description: '', requiresApproval: false },
        { agentId: second.id, inputTemplate: 'stand-in:text\n{{input}}', description: '', requiresApproval: true },
      ],
    });
    expect(created.status).toBe(201);
    const before = await scrape();
    const run = await call('POST', `/api/pipelines/${created.body.id}/execute`, { input: 'o login' });
    expect(run.status).toBe(202);
    const history = async () => (await call('GET', `/api/executions/history/${run.body.executionId}`)).body;
    await until('the run awaits approval', history, (record) => record.status === 'awaiting_approval', 90_000);
    const waiting = await scrape();
    expect(value(waiting, 'pipeline_runs_awaiting_approval') - value(before, 'pipeline_runs_awaiting_approval')).toBe(1);
    expect((await call('POST', `/api/pipelines/${created.body.id}/approve`)).status).toBe(200);
    await until('the run completes', history, (record) => record.status === 'completed', 90_000);
    const after = await scrape();

    const moved = (family: string, labels: Record<string, string> = {}) => value(after, family, labels) - value(before, family, labels);
    expect(moved('agent_runs_started_total', { pipeline_step: 'true' })).toBe(2);
    expect(moved('agent_runs_finished_total', { pipeline_step: 'true', status: 'completed' })).toBe(2);
    expect(moved('agent_run_slot_wait_seconds_count', { pipeline_step: 'true' })).toBe(2);
    expect(value(after, 'pipeline_runs_awaiting_approval')).toBe(value(before, 'pipeline_runs_awaiting_approval'));
    // Two steps, two shares: the first step's gap, and the second's tail (its gap held the approval and is left out).
    expect(moved('pipeline_step_overhead_seconds_count')).toBe(2);
    const overhead = moved('pipeline_step_overhead_seconds_sum');
    expect(overhead).toBeGreaterThan(0);
    expect(overhead).toBeLessThan(60);
  }, 180_000);

  it("serves the Temporal SDK's worker metrics at the same address, named by the same conventions", async () => {
    const text = await scrape();
    const families = new Set([...text.matchAll(/^# TYPE (temporal_\w+) (\w+)$/gm)].map((match) => `${match[1]} ${match[2]}`));
    expect([...families].some((family) => /^temporal_workflow_task_schedule_to_start_latency_seconds histogram$/.test(family))).toBe(true);
    expect([...families].some((family) => /^temporal_worker_task_slots_available gauge$/.test(family))).toBe(true);
    // Counters end in _total, durations are in seconds.
    for (const family of families) {
      const [name, type] = family.split(' ');
      if (type === 'counter') expect(name).toMatch(/_total$/);
      expect(name).not.toMatch(/_(milliseconds|ms)(_|$)/);
    }
    expect(value(text, 'temporal_worker_task_slots_available', { worker_type: 'ActivityWorker' })).toBeGreaterThan(0);
  });

  it("parses whole with Prometheus's own parser, and breaks none of its naming rules but prom-client's own", async () => {
    const checked = promtoolCheck(await scrape());
    // 3: parsed, with lint problems; a text that does not parse exits 1 ("error while linting").
    expect([0, 3]).toContain(checked.status);
    expect(checked.problems.filter((line) => !PROM_CLIENT_LINT.includes(line))).toEqual([]);
  });

  const call = (method: string, route: string, body?: unknown) => jsonCall(agents.server.url, method, route, body);

  it('counts /hook calls by result', async () => {
    const agent = await agents.standInAgent('gancho');
    const webhook = (
      await call('POST', '/api/webhooks', { name: `métricas ${randomUUID().slice(0, 8)}`, targetType: 'agent', targetId: agent.id })
    ).body;
    const hook = (token: string, body: string, headers: Record<string, string> = {}) =>
      fetch(`${agents.server.url}/hook/${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      }).then((response) => response.status);
    const before = await scrape();
    const delivery = { 'x-webhook-delivery': `entrega-${randomUUID()}` };
    expect(await hook(webhook.token, '{"task":"stand-in:text"}', delivery)).toBe(202);
    expect(await hook(webhook.token, '{"task":"stand-in:text"}', delivery)).toBe(202);
    expect(await hook(webhook.token, 'not json')).toBe(400);
    expect(await hook('0'.repeat(48), '{}')).toBe(404);
    const after = await scrape();
    const moved = (result: string) => value(after, 'webhook_calls_total', { result }) - value(before, 'webhook_calls_total', { result });
    expect([moved('accepted'), moved('duplicate'), moved('invalid'), moved('not_found')]).toEqual([1, 1, 1, 1]);
  }, 60_000);

  it('counts a schedule firing', async () => {
    const agent = await agents.standInAgent('agendado');
    const schedule = (
      await call('POST', '/api/schedules', { agentId: agent.id, taskDescription: 'stand-in:text', cronExpression: '0 9 * * *' })
    ).body;
    try {
      const before = value(await scrape(), 'schedule_firings_total', { result: 'started' });
      await agents.server.resources.temporal.client.schedule.getHandle(agentScheduleId(schedule.id)).trigger();
      await until(
        'the firing counted',
        async () => value(await scrape(), 'schedule_firings_total', { result: 'started' }),
        (now) => now === before + 1,
      );
    } finally {
      await call('DELETE', `/api/schedules/${schedule.id}`);
    }
  }, 60_000);

  it('counts the open WebSocket clients', async () => {
    const before = value(await scrape(), 'websocket_clients');
    const probe = await connectClient(agents.server.url, `painel-${randomUUID()}`);
    expect(value(await scrape(), 'websocket_clients')).toBe(before + 1);
    probe.socket.terminate();
    await until(
      'the socket closed',
      async () => value(await scrape(), 'websocket_clients'),
      (now) => now === before,
    );
  });
});

describe('METRICS_ENABLED=false (what bench:metrics compares against)', () => {
  it('serves no /metrics and times no request', async () => {
    const server = await startTestServer((config: Config) => ({ ...config, metrics: { ...config.metrics, enabled: false } }));
    servers.push(server);
    const route = { method: 'GET', route: '/api/v1/ranking/status', status_code: '200' };
    const timed = async () => valueOf(await metricsText(), 'http_server_request_duration_seconds_count', route);
    const before = await timed();
    expect((await fetch(`${server.url}/api/v1/ranking/status`)).status).toBe(200);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
    expect(await timed()).toBe(before);
  });
});

describe('the metrics server of a worker alone (METRICS_PORT)', () => {
  it('serves the same registry at /metrics, asks for the token when one is set, and nothing else', async () => {
    const configured = {
      ...baseConfig,
      metrics: { port: 0, enabled: true },
      orchestration: { ...baseConfig.orchestration, authToken: TOKEN },
    } as Config;
    const liveness = new EventLoopLiveness();
    const server = await startProbeServer(configured, logger, { liveness, readiness: new Readiness(1_000) });
    const metricsUrl = `${server.url}/metrics`;
    try {
      expect((await fetch(metricsUrl)).status).toBe(401);
      const scraped = await fetch(metricsUrl, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(scraped.status).toBe(200);
      const text = await scraped.text();
      expect(text).toContain('process_cpu_user_seconds_total');
      expect(promtoolCheck(text).problems.filter((line) => !PROM_CLIENT_LINT.includes(line))).toEqual([]);
      expect((await fetch(`${server.url}/api/agents`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
    } finally {
      liveness.stop();
      await server.close();
    }
  });
});

describe('a ranking worker in a process of its own (PROCESS_ROLES=ranking-worker), after a ranking job', () => {
  const PERSONS = 1_200;
  let worker: ServiceProcess | undefined;
  let api: TestServer;
  let database: DatabaseHandle;
  beforeAll(async () => {
    await seedPersonIndex(PERSONS, 31);
    database = createDatabase(baseConfig.mysql);
    api = await start(null);
  });
  afterAll(async () => {
    worker?.child.kill('SIGKILL');
    await database?.pool.end();
  });

  it("serves the job's metrics and the SDK's on METRICS_PORT; the API serves the last success from the records", async () => {
    const port = await unusedPort();
    worker = startServiceProcess({ PROCESS_ROLES: 'ranking-worker', METRICS_PORT: String(port) });
    await waitForLog(worker, 'worker started');
    const scrapeWorker = async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const before = await scrapeWorker();

    const result = await runRankingJob({ batchSize: 500, limparAntes: false });
    expect(result.processados).toBe(PERSONS);
    const after = await scrapeWorker();
    const moved = (family: string, labels: Record<string, string> = {}) => valueOf(after, family, labels) - valueOf(before, family, labels);
    expect(moved('ranking_job_documents_total')).toBe(PERSONS);
    // A recreated index: every document is new to the ranking.
    expect(moved('ranking_job_entries_written_total')).toBe(PERSONS);
    expect(moved('ranking_job_duration_seconds_count', { status: 'completed' })).toBe(1);
    expect(moved('ranking_job_duration_seconds_sum', { status: 'completed' })).toBeGreaterThan(0);
    // The SDK's worker metrics of this process: the job and its three batch children completed here.
    expect(moved('temporal_workflow_completed_total')).toBeGreaterThanOrEqual(4);
    expect(after).toContain('# TYPE temporal_activity_execution_latency_seconds histogram');
    // Families served by API processes only are not here.
    expect(after).not.toContain('ranking_job_last_success_timestamp_seconds');
    const checked = promtoolCheck(after);
    expect(checked.problems.filter((line) => !PROM_CLIENT_LINT.includes(line))).toEqual([]);

    const [rows] = await database.pool.query<RowDataPacket[]>(
      "SELECT MAX(finalizado_em) AS at FROM ranking_job_runs WHERE estado = 'concluido'",
    );
    const lastSuccess = (rows[0]!.at as Date).getTime() / 1000;
    const served = valueOf(await (await fetch(`${api.url}/metrics`)).text(), 'ranking_job_last_success_timestamp_seconds');
    expect(served).toBeCloseTo(lastSuccess, 3);
    expect(Date.now() / 1000 - served).toBeLessThan(120);
  }, 180_000);
});
