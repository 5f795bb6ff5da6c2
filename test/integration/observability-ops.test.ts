import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startProbeServer } from '../../api/metrics';
import { EventLoopLiveness } from '../../lib/event-loop-liveness';
import { Readiness } from '../../lib/readiness';
import { config as baseConfig, type Config } from '../../lib/config';
import { logger } from '../../lib/logger';
import { metricsText, serveRecordFigures } from '../../lib/metrics';
import { unusedPort } from '../support/ports';
import { until } from '../support/waiting';

/**
 * The operator's files of issue 24 (ops/): the Prometheus alert rules and their promtool unit tests,
 * the example scrape configuration (checked by promtool, then run by a real Prometheus against
 * metrics servers asking for the bearer token), and the Grafana dashboard, whose every query must
 * parse and name only metric families the service exposes.
 */

const ROOT = path.resolve(__dirname, '../..');
const RULES = path.join(ROOT, 'ops/prometheus/alerts.yml');
const RULE_TESTS = path.join(ROOT, 'ops/prometheus/alerts.test.yml');
const SCRAPE_CONFIG = path.join(ROOT, 'ops/prometheus/prometheus.yml');
const DASHBOARD = path.join(ROOT, 'ops/grafana/dashboard.json');
const PROVIDER = "Debian's `prometheus` package (bash scripts/stack/system-packages.sh up installs it)";

/** The metric families the service exposes (docs/observability.md, lib/metrics.ts). */
const SERVICE_FAMILIES = [
  'http_server_request_duration_seconds',
  'agent_runs_started_total',
  'agent_runs_finished_total',
  'agent_runs_running',
  'agent_runs_waiting_slot',
  'agent_run_slot_wait_seconds',
  'agent_run_duration_seconds',
  'agent_run_cost_usd_total',
  'pipeline_runs_awaiting_approval',
  'pipeline_step_overhead_seconds',
  'live_output_lines_total',
  'live_output_delay_seconds',
  'websocket_clients',
  'webhook_calls_total',
  'schedule_firings_total',
  'ranking_job_duration_seconds',
  'ranking_job_documents_total',
  'ranking_job_entries_written_total',
  'ranking_job_last_success_timestamp_seconds',
];

/** prom-client 15.1.3's default metrics (collectDefaultMetrics on Linux), as a registry lists them. */
const PROM_CLIENT_FAMILIES = [
  'process_cpu_user_seconds_total',
  'process_cpu_system_seconds_total',
  'process_cpu_seconds_total',
  'process_start_time_seconds',
  'process_resident_memory_bytes',
  'process_virtual_memory_bytes',
  'process_heap_bytes',
  'process_open_fds',
  'process_max_fds',
  'nodejs_eventloop_lag_seconds',
  'nodejs_eventloop_lag_min_seconds',
  'nodejs_eventloop_lag_max_seconds',
  'nodejs_eventloop_lag_mean_seconds',
  'nodejs_eventloop_lag_stddev_seconds',
  'nodejs_eventloop_lag_p50_seconds',
  'nodejs_eventloop_lag_p90_seconds',
  'nodejs_eventloop_lag_p99_seconds',
  'nodejs_active_resources',
  'nodejs_active_resources_total',
  'nodejs_active_handles',
  'nodejs_active_handles_total',
  'nodejs_active_requests',
  'nodejs_active_requests_total',
  'nodejs_heap_size_total_bytes',
  'nodejs_heap_size_used_bytes',
  'nodejs_external_memory_bytes',
  'nodejs_heap_space_size_total_bytes',
  'nodejs_heap_space_size_used_bytes',
  'nodejs_heap_space_size_available_bytes',
  'nodejs_version_info',
  'nodejs_gc_duration_seconds',
];

/**
 * The Temporal TypeScript SDK 1.24 worker metrics (its Rust core) with countersTotalSuffix,
 * unitSuffix and useSecondsForDurations set and the default `temporal_` prefix: the families a
 * worker served after running workflows and activities (one failing) against the dev server.
 */
const TEMPORAL_SDK_FAMILIES = [
  'temporal_activity_execution_failed_total',
  'temporal_activity_execution_latency_seconds',
  'temporal_activity_schedule_to_start_latency_seconds',
  'temporal_activity_succeed_endtoend_latency_seconds',
  'temporal_activity_task_received_total',
  'temporal_long_request_latency_seconds',
  'temporal_long_request_total',
  'temporal_num_pollers',
  'temporal_request_latency_seconds',
  'temporal_request_total',
  'temporal_sticky_cache_hit_total',
  'temporal_sticky_cache_size',
  'temporal_worker_start_total',
  'temporal_worker_task_slots_available',
  'temporal_worker_task_slots_used',
  'temporal_workflow_completed_total',
  'temporal_workflow_endtoend_latency_seconds',
  'temporal_workflow_failed_total',
  'temporal_workflow_task_execution_latency_seconds',
  'temporal_workflow_task_queue_poll_succeed_total',
  'temporal_workflow_task_replay_latency_seconds',
  'temporal_workflow_task_schedule_to_start_latency_seconds',
];

/** Every family a query may name: Prometheus's own `up` besides the processes' families. */
const KNOWN_FAMILIES = new Set(['up', ...SERVICE_FAMILIES, ...PROM_CLIENT_FAMILIES, ...TEMPORAL_SDK_FAMILIES]);

/** What the dashboard must show (the list): every service family, the SDK's worker panels, the process. */
const DASHBOARD_MUST_SHOW = [
  ...SERVICE_FAMILIES,
  'temporal_workflow_task_schedule_to_start_latency_seconds',
  'temporal_activity_schedule_to_start_latency_seconds',
  'temporal_worker_task_slots_available',
  'temporal_sticky_cache_size',
  'process_cpu_user_seconds_total',
  'process_resident_memory_bytes',
  'nodejs_eventloop_lag_p99_seconds',
];

const PROMQL_KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'inf',
  'nan',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
]);

/**
 * The metric families a PromQL expression names: identifiers used as a selector (followed by `{`
 * or `[`, or standing alone), less functions and aggregations (followed by `(`), keywords, label
 * names (inside `{}` and grouping lists), durations and Grafana variables (inside `[]`, after `$`),
 * and strings; a histogram's `_bucket`/`_count`/`_sum` series count as its family.
 */
function metricFamilies(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, '{}')
    .replace(/\[[^\]]*\]/g, '[]')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const [name] of bare.matchAll(/(?<![\w:.$])[A-Za-z_:][\w:]*(?![\w:])(?!\s*\()/g)) {
    if (!PROMQL_KEYWORDS.has(name.toLowerCase())) names.add(name.replace(/_(?:bucket|count|sum)$/, ''));
  }
  return [...names].sort();
}

interface Run {
  status: number | null;
  output: string;
}

/** Runs promtool; fails loudly, naming the package, when it is not installed. */
function promtool(args: string[], cwd = ROOT): Run {
  const result = spawnSync('promtool', args, { cwd, encoding: 'utf8', timeout: 120_000 });
  const failure: NodeJS.ErrnoException | undefined = result.error;
  if (failure?.code === 'ENOENT') {
    throw new Error(`promtool is not installed: it comes with ${PROVIDER}`);
  }
  if (result.error) throw result.error;
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** `text` with `from` (present exactly `times` times) replaced: the example files' shape is checked as it is rewritten. */
function replaceExactly(text: string, from: string, to: string, times = 1): string {
  const found = text.split(from).length - 1;
  if (found !== times) throw new Error(`expected ${times} occurrence(s) of ${JSON.stringify(from)}, found ${found}`);
  return text.split(from).join(to);
}

/** The `- alert:` blocks of a rule file: name and text. No YAML parser among the project's dependencies: the file keeps one rule shape. */
function alertBlocks(rulesText: string): { name: string; text: string }[] {
  return rulesText
    .split(/\n(?=[ \t]*- alert: )/)
    .slice(1)
    .map((text) => {
      const name = /- alert: (\S+)/.exec(text)?.[1];
      if (!name) throw new Error(`an alert block without a name:\n${text}`);
      return { name, text };
    });
}

/** An alert block's expression: the `expr:` value (inline or a `|` block) up to its `for:`. */
function alertExpr(block: string): string {
  const expr = /\n\s+expr: (?:\|\n)?([\s\S]*?)\n\s+for: /.exec(block)?.[1];
  if (expr === undefined) throw new Error(`no expr followed by for: in\n${block}`);
  return expr.trim();
}

/** The alert_rule_test cases of a promtool test file: the alert's name and whether it expects alerts. */
function ruleTestCases(testsText: string): { alertname: string; fires: boolean }[] {
  return testsText
    .split(/\n\s*- eval_time: /)
    .slice(1)
    .map((text) => {
      const alertname = /\n\s+alertname: (\S+)/.exec(text)?.[1];
      const expected = /\n\s+exp_alerts:(.*)\n?/.exec(text)?.[1];
      if (!alertname || expected === undefined) throw new Error(`a test case without alertname or exp_alerts:\n${text}`);
      // `exp_alerts: []`: none expected; `exp_alerts:` with a list below: some.
      const fires = expected.trim() !== '[]';
      if (fires && !/\n\s+exp_alerts:\s*\n\s+- exp_labels:/.test(text)) throw new Error(`exp_alerts is neither [] nor a list:\n${text}`);
      return { alertname, fires };
    });
}

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'observability-ops-'));
}

describe('the PromQL extraction the checks below rely on', () => {
  it('names selectors and histogram series, not functions, labels, durations, strings or variables', () => {
    expect(
      metricFamilies(
        'histogram_quantile(0.99, sum by (le, route) (rate(http_server_request_duration_seconds_bucket{job=~"$job", route!="/metrics"}[$__rate_interval])))',
      ),
    ).toEqual(['http_server_request_duration_seconds']);
    expect(
      metricFamilies(
        'sum by (status_class) (label_replace(rate(x_count{a="b"}[5m]), "status_class", "${1}xx", "status_code", "([0-9]).."))',
      ),
    ).toEqual(['x']);
    expect(metricFamilies('time() - max(some_gauge > 0) > 26 * 3600 and on (job) up == 1 unless ignoring (i) other offset 1h')).toEqual([
      'other',
      'some_gauge',
      'up',
    ]);
    expect(metricFamilies('sum(rate(a_total[1m])) by (x) / sum without (y) (b_seconds_sum) > 1e3')).toEqual(['a_total', 'b_seconds']);
  });
});

describe('the metric families the checks below accept', () => {
  it('are those this process serves: the service families and prom-client defaults, no more, no fewer', async () => {
    // The record gauges are served once a process has a source for them (an API process).
    serveRecordFigures(async () => ({
      agentRunsRunning: 1,
      agentRunsWaitingSlot: 2,
      pipelineRunsAwaitingApproval: 3,
      rankingLastSuccessSeconds: 1_700_000_000,
    }));
    const families = [...(await metricsText()).matchAll(/^# TYPE (\S+) \w+$/gm)].map((match) => match[1]);
    expect(families.sort()).toEqual([...SERVICE_FAMILIES, ...PROM_CLIENT_FAMILIES].sort());
  });
});

describe('promtool', () => {
  it(`is installed (${PROVIDER}), a 2.x version`, () => {
    const run = promtool(['--version']);
    expect(run.status).toBe(0);
    expect(run.output).toMatch(/^promtool, version 2\.\d+\.\d+/);
  });
});

describe('ops/prometheus/alerts.yml', () => {
  const rulesText = fs.readFileSync(RULES, 'utf8');
  const alerts = alertBlocks(rulesText);

  it('holds the alerts an operator needs, each with for:, a severity, a summary and a description', () => {
    expect(alerts.map((alert) => alert.name).sort()).toEqual([
      'AgentRunErrorRateHigh',
      'ApiProcessDown',
      'HttpServerErrorsHigh',
      'PipelineAwaitingApprovalForHours',
      'RankingJobNoSuccessKnown',
      'RankingJobStale',
      'TemporalWorkerMetricsMissing',
      'WorkerProcessDown',
    ]);
    for (const alert of alerts) {
      expect({ alert: alert.name, for: /\n\s+for: \d+[smhd]\n/.test(alert.text) }).toEqual({ alert: alert.name, for: true });
      expect({ alert: alert.name, severity: /\n\s+severity: (\w+)\n/.exec(alert.text)?.[1] }).toEqual({
        alert: alert.name,
        severity: expect.stringMatching(/^(critical|warning|info)$/),
      });
      expect({ alert: alert.name, summary: /\n\s+summary: "[^"]{10,}"/.test(alert.text) }).toEqual({ alert: alert.name, summary: true });
      expect({ alert: alert.name, description: /\n\s+description: >-\n\s+\S/.test(alert.text) }).toEqual({
        alert: alert.name,
        description: true,
      });
    }
  });

  it('names only metric families the processes expose', () => {
    const used = Object.fromEntries(alerts.map((alert) => [alert.name, metricFamilies(alertExpr(alert.text))]));
    expect(used).toEqual({
      WorkerProcessDown: ['up'],
      ApiProcessDown: ['up'],
      TemporalWorkerMetricsMissing: ['temporal_worker_task_slots_available', 'up'],
      RankingJobStale: ['ranking_job_last_success_timestamp_seconds'],
      RankingJobNoSuccessKnown: ['ranking_job_last_success_timestamp_seconds'],
      AgentRunErrorRateHigh: ['agent_runs_finished_total'],
      PipelineAwaitingApprovalForHours: ['pipeline_runs_awaiting_approval'],
      HttpServerErrorsHigh: ['http_server_request_duration_seconds'],
    });
    for (const families of Object.values(used)) for (const family of families) expect(KNOWN_FAMILIES).toContain(family);
  });

  it('passes promtool check rules', () => {
    const run = promtool(['check', 'rules', RULES]);
    expect(run).toEqual({ status: 0, output: expect.stringContaining(`SUCCESS: ${alerts.length} rules found`) });
  });

  it('is covered by alerts.test.yml: every alert has a case where it fires and one where it must not', () => {
    const cases = ruleTestCases(fs.readFileSync(RULE_TESTS, 'utf8'));
    const names = alerts.map((alert) => alert.name);
    // promtool takes an unknown alertname as "expects nothing" and passes: a typo would test nothing.
    for (const testCase of cases) expect(names).toContain(testCase.alertname);
    for (const name of names) {
      expect({ alert: name, fires: cases.some((c) => c.alertname === name && c.fires) }).toEqual({ alert: name, fires: true });
      expect({ alert: name, silent: cases.some((c) => c.alertname === name && !c.fires) }).toEqual({ alert: name, silent: true });
    }
  });

  it('passes its promtool unit tests (promtool test rules alerts.test.yml)', () => {
    const run = promtool(['test', 'rules', RULE_TESTS]);
    expect(run.output).not.toContain('FAILED');
    expect(run).toEqual({ status: 0, output: expect.stringMatching(/Unit Testing: .*alerts\.test\.yml\s+SUCCESS/) });
  });

  // Each rule weakened in one way: its unit tests must notice (else they test nothing).
  const mutations: { alert: string; from: string; to: string }[] = [
    {
      alert: 'WorkerProcessDown',
      from: 'up{job="consultores-agentes-workers"} == 0\n        for: 2m',
      to: 'up{job="consultores-agentes-workers"} == 0\n        for: 0m',
    },
    { alert: 'ApiProcessDown', from: 'up{job="consultores-agentes-api"} == 0', to: 'up{job="consultores-agentes-api"} == 1' },
    {
      alert: 'TemporalWorkerMetricsMissing',
      from: 'up{job="consultores-agentes-workers"} == 1\n',
      to: 'up{job="consultores-agentes-workers"}\n',
    },
    {
      alert: 'RankingJobStale',
      from: 'max(ranking_job_last_success_timestamp_seconds > 0)',
      to: 'max(ranking_job_last_success_timestamp_seconds)',
    },
    { alert: 'RankingJobNoSuccessKnown', from: 'for: 26h', to: 'for: 20h' },
    { alert: 'AgentRunErrorRateHigh', from: '>= 10', to: '>= 1' },
    { alert: 'PipelineAwaitingApprovalForHours', from: 'for: 4h', to: 'for: 3h' },
    { alert: 'HttpServerErrorsHigh', from: ') > 0.05', to: ') > 0.005' },
  ];

  it('has unit tests that fail when a rule is weakened', () => {
    expect(mutations.map((m) => m.alert).sort()).toEqual(alerts.map((alert) => alert.name).sort());
    const dir = tempDir();
    try {
      // Only the test groups that check the mutated alert: promtool takes seconds on the day-long ones.
      const [header, ...groups] = fs.readFileSync(RULE_TESTS, 'utf8').split(/\n(?= {2}- name: )/);
      expect(header).toMatch(/\ntests:\n/);
      for (const mutation of mutations) {
        const own = groups.filter((group) => group.includes(`alertname: ${mutation.alert}\n`));
        expect({ mutated: mutation.alert, groups: own.length > 0 }).toEqual({ mutated: mutation.alert, groups: true });
        fs.writeFileSync(path.join(dir, 'alerts.test.yml'), [header, ...own].join('\n'));
        fs.writeFileSync(path.join(dir, 'alerts.yml'), replaceExactly(rulesText, mutation.from, mutation.to));
        const run = promtool(['test', 'rules', path.join(dir, 'alerts.test.yml')]);
        expect({ mutated: mutation.alert, status: run.status, failedOn: run.output.includes(`alertname: ${mutation.alert},`) }).toEqual({
          mutated: mutation.alert,
          status: 1,
          failedOn: true,
        });
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('ops/prometheus/prometheus.yml', () => {
  const scrapeText = fs.readFileSync(SCRAPE_CONFIG, 'utf8');
  const TOKEN_FILE = '/etc/prometheus/consultores-agentes.token';

  it('scrapes the API on 3000 and two workers on 9464 and 9465 with the bearer token, and loads alerts.yml', () => {
    expect(scrapeText).toContain("- targets: ['127.0.0.1:3000']");
    expect(scrapeText).toContain("- targets: ['127.0.0.1:9464', '127.0.0.1:9465']");
    expect(scrapeText.match(/authorization:\n\s+type: Bearer\n\s+credentials_file: (\S+)/g)).toHaveLength(2);
    expect(scrapeText.match(/job_name: (\S+)/g)).toEqual(['job_name: consultores-agentes-api', 'job_name: consultores-agentes-workers']);
    expect(scrapeText).toMatch(/rule_files:\n(?:\s+#.*\n)*\s+- alerts\.yml\n/);
  });

  /**
   * A copy whose credentials_file is a temporary file (promtool checks that it exists; the real one
   * is the operator's), beside a copy of alerts.yml (rule_files is relative to the config).
   */
  function configCopy(dir: string, token: string, edit: (text: string) => string = (text) => text): string {
    const tokenFile = path.join(dir, 'token');
    fs.writeFileSync(tokenFile, token, { mode: 0o600 });
    fs.copyFileSync(RULES, path.join(dir, 'alerts.yml'));
    const configFile = path.join(dir, 'prometheus.yml');
    fs.writeFileSync(configFile, edit(replaceExactly(scrapeText, `credentials_file: ${TOKEN_FILE}`, `credentials_file: ${tokenFile}`, 2)));
    return configFile;
  }

  it('passes promtool check config, its rule file included', () => {
    const dir = tempDir();
    try {
      const run = promtool(['check', 'config', configCopy(dir, 'a-token-for-the-check-0123456789')]);
      expect(run.status).toBe(0);
      expect(run.output).toContain('SUCCESS: 1 rule files found');
      expect(run.output).toMatch(/SUCCESS: .*prometheus\.yml is valid prometheus config file syntax/);
      expect(run.output).toMatch(/Checking .*alerts\.yml\s+SUCCESS: 8 rules found/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('run by a real Prometheus against metrics servers that ask for the token', () => {
    const TOKEN = 'observability-ops-test-token-0123456789';
    let dir: string;
    let prometheus: ChildProcess | undefined;
    let prometheusOutput = '';
    let prometheusUrl: string;
    const servers: { url: string; close(): Promise<void> }[] = [];

    async function query(promql: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
      const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await response.json()) as {
        status: string;
        data: { result: { metric: Record<string, string>; value: [number, string] }[] };
      };
      if (body.status !== 'success') throw new Error(`query ${promql}: ${JSON.stringify(body)}`);
      return body.data.result;
    }

    beforeAll(async () => {
      dir = tempDir();
      // Three metrics servers (a worker alone's /metrics, as main.ts starts it) stand in for the
      // API process and the two workers: same path, same token check.
      const ports: number[] = [];
      for (let i = 0; i < 3; i += 1) {
        const port = await unusedPort();
        const configured: Config = {
          ...baseConfig,
          metrics: { ...baseConfig.metrics, port },
          orchestration: { ...baseConfig.orchestration, authToken: TOKEN },
        };
        servers.push(await startProbeServer(configured, logger, { liveness: new EventLoopLiveness(), readiness: new Readiness(1_000) }));
        ports.push(port);
      }
      const configFile = configCopy(dir, TOKEN, (text) => {
        let edited = replaceExactly(text, "'127.0.0.1:3000'", `'127.0.0.1:${ports[0]}'`);
        edited = replaceExactly(edited, "'127.0.0.1:9464', '127.0.0.1:9465'", `'127.0.0.1:${ports[1]}', '127.0.0.1:${ports[2]}'`);
        // Seconds instead of minutes of waiting.
        edited = replaceExactly(edited, 'scrape_interval: 15s', 'scrape_interval: 1s');
        edited = replaceExactly(edited, 'scrape_timeout: 10s', 'scrape_timeout: 1s');
        return replaceExactly(edited, 'evaluation_interval: 30s', 'evaluation_interval: 1s');
      });
      const webPort = await unusedPort();
      prometheusUrl = `http://127.0.0.1:${webPort}`;
      prometheus = spawn(
        'prometheus',
        [`--config.file=${configFile}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${webPort}`],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      prometheus.stdout!.on('data', (chunk: Buffer) => (prometheusOutput += chunk.toString()));
      prometheus.stderr!.on('data', (chunk: Buffer) => (prometheusOutput += chunk.toString()));
      const spawned = await new Promise<Error | null>((resolve) => {
        prometheus!.once('spawn', () => resolve(null));
        prometheus!.once('error', resolve);
      });
      if (spawned) throw new Error(`prometheus did not start (${spawned.message}): it comes with ${PROVIDER}`);
    });

    afterAll(async () => {
      if (prometheus && prometheus.exitCode === null) {
        const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
        prometheus.kill('SIGTERM');
        await exited;
      }
      await Promise.all(servers.splice(0).map((server) => server.close()));
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    it('scrapes every target with the token, and a target that stops answering is down with WorkerProcessDown pending', async () => {
      const up = await until(
        'the three targets scraped',
        () => query('up').catch(() => []),
        (result) => result.length === 3 && result.every((sample) => sample.value[1] === '1'),
        30_000,
      ).catch((error: Error) => {
        throw new Error(`${error.message}\nprometheus output:\n${prometheusOutput}`);
      });
      expect(up.map((sample) => sample.metric.job).sort()).toEqual([
        'consultores-agentes-api',
        'consultores-agentes-workers',
        'consultores-agentes-workers',
      ]);
      // The token reached the servers: their own metrics came through.
      const rss = await query('process_resident_memory_bytes');
      expect(rss).toHaveLength(3);
      for (const sample of rss) expect(Number(sample.value[1])).toBeGreaterThan(10_000_000);

      const rules = (await (await fetch(`${prometheusUrl}/api/v1/rules?type=alert`)).json()) as {
        data: { groups: { rules: { name: string }[] }[] };
      };
      expect(rules.data.groups.flatMap((group) => group.rules.map((rule) => rule.name)).sort()).toEqual(
        alertBlocks(fs.readFileSync(RULES, 'utf8'))
          .map((alert) => alert.name)
          .sort(),
      );

      // The second worker goes away.
      const gone = servers[2];
      if (!gone) throw new Error('no third metrics server');
      const goneInstance = new URL(gone.url).host;
      await gone.close();
      servers.splice(2, 1);
      await until(
        'the stopped worker down',
        () => query(`up{instance="${goneInstance}"}`),
        (result) => result[0]?.value[1] === '0',
        30_000,
      );
      const alerts = await until(
        'WorkerProcessDown pending',
        async () =>
          (
            (await (await fetch(`${prometheusUrl}/api/v1/alerts`)).json()) as {
              data: { alerts: { labels: Record<string, string>; state: string }[] };
            }
          ).data.alerts,
        (list) => list.some((alert) => alert.labels.alertname === 'WorkerProcessDown'),
        30_000,
      );
      // Pending: its for: 2m has not passed yet.
      expect(
        alerts.filter((alert) => alert.labels.alertname === 'WorkerProcessDown').map(({ labels, state }) => ({ labels, state })),
      ).toEqual([
        {
          labels: { alertname: 'WorkerProcessDown', instance: goneInstance, job: 'consultores-agentes-workers', severity: 'critical' },
          state: 'pending',
        },
      ]);
    });
  });
});

describe('ops/grafana/dashboard.json', () => {
  interface Target {
    expr?: string;
    datasource?: { type?: string; uid?: string };
  }
  interface Panel {
    type: string;
    title: string;
    datasource?: { type?: string; uid?: string };
    targets?: Target[];
    panels?: Panel[];
  }
  const dashboard = JSON.parse(fs.readFileSync(DASHBOARD, 'utf8')) as {
    schemaVersion: number;
    uid: string;
    title: string;
    panels: Panel[];
    templating: { list: { name: string; type: string; query: unknown }[] };
  };
  const panels = dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]).filter((panel) => panel.type !== 'row');
  const queries = panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr ?? '' })));

  it('is importable: schemaVersion 39, a ${datasource} Prometheus variable, no datasource uid of its own', () => {
    expect(dashboard.schemaVersion).toBe(39);
    expect(dashboard.uid).toBe('consultores-agentes');
    expect(dashboard.templating.list.find((variable) => variable.name === 'datasource')).toMatchObject({
      type: 'datasource',
      query: 'prometheus',
    });
    // Every datasource reference anywhere is the variable (or Grafana's built-in annotations).
    const references: unknown[] = [];
    JSON.stringify(dashboard, (key, value: unknown) => {
      if (key === 'datasource') references.push(value);
      return value;
    });
    expect(references.length).toBeGreaterThan(panels.length);
    for (const reference of references) {
      expect([
        { type: 'prometheus', uid: '${datasource}' },
        { type: 'grafana', uid: '-- Grafana --' },
      ]).toContainEqual(reference);
    }
    for (const panel of panels) {
      expect({ panel: panel.title, targets: (panel.targets ?? []).length > 0 }).toEqual({ panel: panel.title, targets: true });
    }
  });

  it('names only metric families the processes expose (or up), and shows every family of the service', () => {
    const unknown = queries.flatMap(({ panel, expr }) =>
      metricFamilies(expr)
        .filter((family) => !KNOWN_FAMILIES.has(family))
        .map((family) => `${panel}: ${family}`),
    );
    expect(unknown).toEqual([]);
    const shown = new Set(queries.flatMap(({ expr }) => metricFamilies(expr)));
    expect(DASHBOARD_MUST_SHOW.filter((family) => !shown.has(family))).toEqual([]);
    // Each query names at least one family: an empty or malformed one would pass the check above.
    for (const { panel, expr } of queries) expect({ panel, families: metricFamilies(expr).length > 0 }).toEqual({ panel, families: true });
  });

  it('has the issue panels: runs by status and source, slot wait, HTTP p99 per route, live-output delay, approvals, ranking', () => {
    const exprOf = (title: string): string => {
      const found = queries.filter((query) => query.panel === title).map((query) => query.expr);
      if (found.length === 0) throw new Error(`no panel "${title}"`);
      return found.join('\n');
    };
    expect(exprOf('Runs finished by status')).toMatch(/sum by \(status\) \(rate\(agent_runs_finished_total\{/);
    expect(exprOf('Runs started by source')).toMatch(/sum by \(source\) \(rate\(agent_runs_started_total\{/);
    expect(exprOf('Slot wait p50 / p95')).toMatch(
      /histogram_quantile\(0\.5, .*agent_run_slot_wait_seconds_bucket[\s\S]*histogram_quantile\(0\.95, /,
    );
    expect(exprOf('HTTP p99 per route')).toMatch(
      /histogram_quantile\(0\.99, sum by \(le, route\) \(rate\(http_server_request_duration_seconds_bucket\{/,
    );
    expect(exprOf('Live-output delay p99')).toMatch(/histogram_quantile\(0\.99, .*live_output_delay_seconds_bucket/);
    expect(exprOf('Pipelines awaiting approval')).toContain('pipeline_runs_awaiting_approval');
    expect(exprOf('Ranking last success age')).toContain('time() - max(ranking_job_last_success_timestamp_seconds');
  });

  it('has queries that parse as PromQL (promtool checks them as recording rules)', () => {
    const dir = tempDir();
    try {
      // Grafana's range variables are not PromQL: a duration stands in for them; $job and $instance sit in strings.
      const rules = queries.map(({ expr }, index) => {
        const promql = expr.replace(/\$__rate_interval|\$__interval|\$__range/g, '5m');
        return `      - record: dashboard:query_${index}\n        expr: ${JSON.stringify(promql)}\n`;
      });
      const file = path.join(dir, 'dashboard-queries.yml');
      fs.writeFileSync(file, `groups:\n  - name: dashboard\n    rules:\n${rules.join('')}`);
      const run = promtool(['check', 'rules', file]);
      expect(run).toEqual({ status: 0, output: expect.stringContaining(`SUCCESS: ${queries.length} rules found`) });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
