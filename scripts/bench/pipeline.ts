import './bench-env';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { migrateDatabase } from '../../db/migrate';
import { config } from '../../lib/config';
import { repoRoot } from '../../lib/paths';
import { ensureNamespace } from '../../temporal/namespace';
import { standInEnv, startStandInModel, type StandInModel } from '../../test/support/stand-in-model';
import { fmt, percentile } from './measure';
import { apiCall, CLAUDE_CLI, freePort, stopService, waitForLine } from './services';

/**
 * Pipeline benchmark (issue 15), with the REAL Claude Code CLI against the stand-in model: BENCH_RUNS
 * runs (default 5), one after another, of a BENCH_STEPS-step pipeline (default 5; each step `{{input}}`,
 * the stand-in's default reply). Per run, the orchestration overhead per step is
 *   (run's wall time − Σ steps' own time) / steps
 * where a run's wall time is its record's createdAt → endedAt (from the 202 to the end) and a step's own
 * time is its agent record's startedAt → endedAt (slot taken → record finished: the CLI process,
 * its output and its record). What remains is the pipeline's own cost: the workflow's activities, the
 * child workflow's start, the slot wait, reading and writing records, the messages.
 *
 *   npm run bench:pipeline   (BENCH_RUNS, BENCH_STEPS; BENCH_BASELINE=<other checkout, built> compares)
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const STEPS = Number(process.env.BENCH_STEPS ?? 5);
const say = (line: string) => process.stdout.write(`${line}\n`);

const call = (base: string, method: string, route: string, body?: unknown) =>
  apiCall(base, method, route, body, { 'x-client-id': 'bench-pipeline' });

async function benchAgent(base: string, model: StandInModel): Promise<string> {
  const agent = await call(base, 'POST', '/agents', { agent_name: `bench pipeline ${Date.now()}`, config: { maxTurns: 5 } });
  for (const [secret, value] of Object.entries({ ...standInEnv(model), CLAUDE_CODE_MAX_RETRIES: '0' })) {
    await call(base, 'POST', `/agents/${agent.id}/secrets`, { name: secret, value });
  }
  return agent.id as string;
}

async function finished(base: string, runId: string): Promise<any> {
  for (;;) {
    const record = await call(base, 'GET', `/executions/history/${runId}`);
    if (!['queued', 'running', 'awaiting_approval'].includes(record.status)) return record;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const ms = (from: string, to: string) => new Date(to).getTime() - new Date(from).getTime();

/** One build under test: its agents worker and API, its pipeline, and what its runs measured. */
interface Side {
  label: string;
  worker: ChildProcess;
  api: ChildProcess;
  base: string;
  pipelineId: string;
  walls: number[];
  own: number[];
  overheads: number[];
}

/**
 * BENCH_BASELINE=<a checkout with its own `npm run build`>: that build runs too, on its own database,
 * Redis prefix, index prefix and namespace (`…_baseline`), and the runs alternate between the two
 * builds, so both see the same machine load (other processes on 2 cores move these figures a lot).
 */
const BASELINE = process.env.BENCH_BASELINE ?? '';

function spawnAt(root: string, roles: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [path.join(root, 'dist', 'main.js')], {
    cwd: root,
    env: { ...process.env, PROCESS_ROLES: roles, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

async function startSide(label: string, root: string, env: Record<string, string>, model: StandInModel): Promise<Side> {
  const worker = spawnAt(root, 'agents-worker', env);
  await waitForLine(worker, '"msg":"worker started"');
  const port = await freePort();
  const api = spawnAt(root, 'api', { ...env, HTTP_PORT: String(port) });
  await waitForLine(api, '"msg":"http server listening"');
  const base = `http://127.0.0.1:${port}/api`;
  const agentId = await benchAgent(base, model);
  const pipeline = await call(base, 'POST', '/pipelines', {
    name: `bench ${STEPS} steps ${Date.now()}`,
    steps: Array.from({ length: STEPS }, () => ({ agentId, inputTemplate: '{{input}}' })),
  });
  return { label, worker, api, base, pipelineId: pipeline.id as string, walls: [], own: [], overheads: [] };
}

async function runOnce(side: Side, run: number): Promise<void> {
  const { executionId } = await call(side.base, 'POST', `/pipelines/${side.pipelineId}/execute`, { input: `run ${run}` });
  const record = await finished(side.base, executionId);
  if (record.status !== 'completed') throw new Error(`${side.label} run ${run} ended ${record.status}: ${record.error}`);
  const wall = ms(record.createdAt, record.endedAt);
  const steps = (record.steps as any[]).map((step) => ms(step.startedAt, step.endedAt));
  const overhead = (wall - steps.reduce((sum, value) => sum + value, 0)) / STEPS;
  side.walls.push(wall);
  side.own.push(...steps);
  side.overheads.push(overhead);
  say(`${side.label} run ${run + 1}/${RUNS}: wall ${wall} ms, steps ${steps.join(' + ')} ms, overhead per step ${overhead.toFixed(0)} ms`);
}

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

async function main(): Promise<void> {
  await migrateDatabase(config.mysql);
  await ensureNamespace(config.temporal, config.temporal.namespace);
  const model = await startStandInModel();
  const agentEnv = { AGENT_COMMAND: CLAUDE_CLI };
  const sides: Side[] = [];
  try {
    if (BASELINE) {
      const suffix = '_baseline';
      const env = {
        ...agentEnv,
        MYSQL_DATABASE: `${config.mysql.database}${suffix}`,
        TEMPORAL_NAMESPACE: `${config.temporal.namespace}${suffix}`,
        REDIS_KEY_PREFIX: `${process.env.REDIS_KEY_PREFIX ?? 'bench:'}baseline:`,
        ELASTICSEARCH_INDEX_PREFIX: `${process.env.ELASTICSEARCH_INDEX_PREFIX ?? 'bench_'}baseline_`,
      };
      await migrateDatabase({ ...config.mysql, database: env.MYSQL_DATABASE });
      await ensureNamespace(config.temporal, env.TEMPORAL_NAMESPACE);
      sides.push(await startSide('baseline', path.resolve(BASELINE), env, model));
    }
    sides.push(await startSide('this build', repoRoot, agentEnv, model));
    for (let run = 0; run < RUNS; run++) {
      // Alternating, and which goes first too: neither build always runs right after the other.
      const order = run % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) await runOnce(side, run);
    }
    say('');
    say(`pipeline of ${STEPS} steps, ${RUNS} runs per build (real CLI, stand-in model)`);
    const rows: [string, (side: Side) => number][] = [
      ['run wall time, mean (ms)', (side) => mean(side.walls)],
      ["step's own time, p50 (ms)", (side) => median(side.own)],
      ['overhead per step, p50 (ms)', (side) => median(side.overheads)],
      ['overhead per step, max (ms)', (side) => Math.max(...side.overheads)],
    ];
    say(`  ${''.padEnd(32)}${sides.map((side) => side.label.padStart(12)).join('')}${sides.length > 1 ? 'ratio'.padStart(8) : ''}`);
    for (const [name, value] of rows) {
      const values = sides.map(value);
      const ratio = values.length > 1 ? (values[1]! / values[0]!).toFixed(2).padStart(8) : '';
      say(`  ${name.padEnd(32)}${values.map((v) => fmt(v, 0).padStart(12)).join('')}${ratio}`);
    }
  } finally {
    for (const side of sides) {
      await stopService(side.api);
      await stopService(side.worker);
    }
    await model.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
