import './bench-env';
import path from 'node:path';
import { migrateDatabase } from '../../db/migrate';
import { config } from '../../lib/config';
import { repoRoot } from '../../lib/paths';
import { ensureNamespace } from '../../temporal/namespace';
import { standInEnv, startStandInModel, type StandInModel } from '../../test/fixtures/stand-in-model';
import { fmt, percentile } from './measure';
import { startApi, startService, stopService, waitForLine } from './services';

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
 *   npm run bench:pipeline   (BENCH_RUNS, BENCH_STEPS)
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const STEPS = Number(process.env.BENCH_STEPS ?? 5);
const CLAUDE = path.join(repoRoot, 'node_modules', '.bin', 'claude');
const say = (line: string) => process.stdout.write(`${line}\n`);

async function call(base: string, method: string, route: string, body?: unknown): Promise<any> {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-client-id': 'bench-pipeline' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

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

async function main(): Promise<void> {
  await migrateDatabase(config.mysql);
  await ensureNamespace(config.temporal.address, config.temporal.namespace);
  const model = await startStandInModel();
  const agentEnv = { AGENT_COMMAND: CLAUDE };
  const worker = startService('agents-worker', agentEnv);
  await waitForLine(worker, '"msg":"worker started"');
  const { process: apiProcess, base: v1 } = await startApi(agentEnv);
  const base = v1.replace(/\/api\/v1$/, '/api');
  try {
    const agentId = await benchAgent(base, model);
    const pipeline = await call(base, 'POST', '/pipelines', {
      name: `bench ${STEPS} steps ${Date.now()}`,
      steps: Array.from({ length: STEPS }, () => ({ agentId, inputTemplate: '{{input}}' })),
    });
    const overheads: number[] = [];
    const walls: number[] = [];
    const own: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const { executionId } = await call(base, 'POST', `/pipelines/${pipeline.id}/execute`, { input: `run ${run}` });
      const record = await finished(base, executionId);
      if (record.status !== 'completed') throw new Error(`run ${run} ended ${record.status}: ${record.error}`);
      const wall = ms(record.createdAt, record.endedAt);
      const steps = (record.steps as any[]).map((step) => ms(step.startedAt, step.endedAt));
      const stepsTotal = steps.reduce((sum, value) => sum + value, 0);
      walls.push(wall);
      own.push(...steps);
      overheads.push((wall - stepsTotal) / STEPS);
      say(`run ${run + 1}/${RUNS}: wall ${wall} ms, steps ${steps.join(' + ')} ms, overhead per step ${((wall - stepsTotal) / STEPS).toFixed(0)} ms`);
    }
    const sorted = [...overheads].sort((a, b) => a - b);
    const ownSorted = [...own].sort((a, b) => a - b);
    say('');
    say(`pipeline of ${STEPS} steps, ${RUNS} runs (real CLI, stand-in model)`);
    say(`  run wall time, mean (ms)          ${fmt(walls.reduce((a, b) => a + b, 0) / walls.length, 0)}`);
    say(`  step's own time, p50 (ms)         ${fmt(percentile(ownSorted, 50), 0)}`);
    say(`  overhead per step, p50 (ms)       ${fmt(percentile(sorted, 50), 0)}`);
    say(`  overhead per step, max (ms)       ${fmt(sorted[sorted.length - 1] ?? 0, 0)}`);
  } finally {
    await stopService(apiProcess);
    await stopService(worker);
    await model.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
