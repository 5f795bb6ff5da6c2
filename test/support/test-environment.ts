import path from 'node:path';

/**
 * The environment of the tests (docs: test/test-env.ts applies it in every test process; the integration
 * global set-up prepares what it names). Two parts:
 *
 * - `SHARED_TEST_DEFAULTS`: the same for every process of a run (NODE_ENV, budgets, the secrets key).
 * - `workerTestDefaults(id)`: what must differ between jest workers running suites at the same time:
 *   each worker (JEST_WORKER_ID 1..maxWorkers) gets its own database, Elasticsearch index prefix, Redis key
 *   prefix, Temporal namespace (hence its own task queues, workflow ids and schedules), data and reports
 *   area, uploads and mirrors directories; and each test process a METRICS_PORT for the worker processes
 *   its suites spawn.
 *
 * Explicit variables win over both (applyEnvironmentDefaults): `MYSQL_DATABASE=consultores_ha npx jest …`
 * runs in that database whatever the worker. The global set-up never writes the per-worker values into its
 * own environment, which the workers inherit: they would then count as explicit and every worker would
 * share worker 1's names.
 */

export const SHARED_TEST_DEFAULTS: Readonly<Record<string, string>> = {
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
  // Suites call /api far more often than a person would; the rate-limit tests set their own budget.
  RATE_LIMIT_REQUESTS: '1000000',
  PDF_RATE_LIMIT_REQUESTS: '1000000',
  RANKING_JOB_RATE_LIMIT_REQUESTS: '1000000',
  // The public /hook budget counts every caller on 127.0.0.1 across suites; its own test sets a small one.
  HOOK_RATE_LIMIT_REQUESTS: '1000000',
  // A stopped test server or worker stops at once, as before drains existed; the drains' own tests set theirs.
  DRAIN_DELAY_MS: '0',
  AGENT_DRAIN_TIMEOUT_MS: '0',
  // A fixed key for the tests' encrypted agent secrets (never used outside tests).
  AGENT_SECRETS_KEY: '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
};

/** A jest worker's id as jest gives it (JEST_WORKER_ID, "1" in band); "1" outside jest. */
export function currentWorkerId(env: NodeJS.ProcessEnv = process.env): string {
  const id = env.JEST_WORKER_ID;
  return id !== undefined && /^[1-9][0-9]{0,2}$/.test(id) ? id : '1';
}

/**
 * /metrics of the worker processes a suite spawns (startServiceProcess): one port per test process,
 * so two processes never want the same one, whatever names they were given. Between 20000 and 31999:
 * below Linux's ephemeral range (32768+), so no `unusedPort()` draws it.
 */
export function metricsPortOf(pid: number): number {
  return 20_000 + (pid % 12_000);
}

/**
 * The names of worker `id`, kept out of the developer's data (`consultores`, `app:`, `default`, `.data`).
 * `env` is what is set already: the directories that follow the data area follow an explicit
 * AGENT_DATA_DIR (`AGENT_DATA_DIR=.data/hd` reports to `.reports/hd`, uploads to `.uploads/hd`).
 */
export function workerTestDefaults(id: string, env: NodeJS.ProcessEnv = process.env, pid: number = process.pid): Record<string, string> {
  const w = `w${id}`;
  const dataDir = env.AGENT_DATA_DIR || `.data/test-${w}`;
  const area = path.basename(dataDir);
  return {
    MYSQL_DATABASE: `consultores_test_${w}`,
    ELASTICSEARCH_INDEX_PREFIX: `test_${w}_`,
    REDIS_KEY_PREFIX: `test:${w}:`,
    TEMPORAL_NAMESPACE: `test-${w}`,
    // Reports and working data of tests stay out of a developer's data area, and apart per worker.
    AGENT_DATA_DIR: dataDir,
    // Apart from the data area, as the service's default (`.reports`) is.
    AGENT_REPORTS_DIR: `.reports/${area}`,
    // Not in the data area (0700): the agents' pool users read uploads and mirrors (docs/uploads.md).
    AGENT_UPLOADS_DIR: `.uploads/${area}`,
    GIT_MIRRORS_DIR: `.git-mirrors/${area}`,
    METRICS_PORT: String(metricsPortOf(pid)),
  };
}

/** `env` with the tests' defaults for worker `id` under it (a copy; explicit values of `env` win). */
export function testEnvironmentOf(id: string, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = { ...env };
  for (const [name, value] of Object.entries({ ...SHARED_TEST_DEFAULTS, ...workerTestDefaults(id, env) })) {
    if (!result[name]) result[name] = value;
  }
  return result;
}
