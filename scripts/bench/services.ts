import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Client as ElasticsearchClient } from '@elastic/elasticsearch';
import type { Client } from '@temporalio/client';
import { repoRoot as root } from '../../lib/paths';
import { rankingJobStartOptions } from '../../temporal/ranking-job';
import { RANKING_JOB_WORKFLOW, type RankingJobWorkflow } from '../../temporal/contracts/ranking-job';
import { generatePersons } from '../generate-persons';
import { sampleRss } from './measure';

/**
 * Services as production runs them, for the benchmarks: compiled, with the prebuilt workflow
 * bundles (npm run build). test/support has similar helpers for tests, which run from sources.
 */

/**
 * V8 flags of a dedicated ranking worker (`npm run start:ranking-worker`): without a cap V8 lets
 * the heap grow to ~600 MB of garbage during the job; with it the worker stays near 320-400 MB.
 */
export const RANKING_WORKER_FLAGS = ['--max-old-space-size=384'];

/** Where a benchmark's services write their logs: `.stack/logs/bench-<roles>.log`, kept after the run for a look at what went wrong. */
export const benchLogPath = (roles: string) => path.join(root, '.stack', 'logs', `bench-${roles.replace(/[^a-z-]+/g, '_')}.log`);

export function startService(roles: string, env: Record<string, string> = {}, nodeFlags: string[] = []): ChildProcess {
  const child = spawn(process.execPath, [...nodeFlags, path.join(root, 'dist', 'main.js')], {
    cwd: root,
    // A bench stops its services once it has measured: no drain to wait for (docs/probes-and-drains.md), unless the caller sets one.
    env: { DRAIN_DELAY_MS: '0', AGENT_DRAIN_TIMEOUT_MS: '0', ...process.env, PROCESS_ROLES: roles, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  fs.mkdirSync(path.dirname(benchLogPath(roles)), { recursive: true });
  child.stdout?.pipe(fs.createWriteStream(benchLogPath(roles)));
  return child;
}

export function waitForLine(child: ChildProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(text)) resolve();
      if (seen.length > 100_000) seen = seen.slice(-10_000);
    });
    child.once('exit', (code) => reject(new Error(`service exited (${code}) before "${text}"`)));
  });
}

export async function stopService(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** An API process on a free port; resolves once it listens. */
export async function startApi(env: Record<string, string> = {}): Promise<{ process: ChildProcess; base: string }> {
  const port = await freePort();
  const api = startService('api', { HTTP_PORT: String(port), ...env });
  await waitForLine(api, '"msg":"http server listening"');
  return { process: api, base: `http://127.0.0.1:${port}/api/v1` };
}

/** Runs the ranking job on a dedicated worker process; its wall time and the worker's peak RSS. */
export async function runRankingJobOnWorker(client: Client, expectedPersons: number): Promise<{ seconds: number; peakMb: number }> {
  const worker = startService('ranking-worker', {}, RANKING_WORKER_FLAGS);
  await waitForLine(worker, '"msg":"worker started"');
  const rss = sampleRss(worker.pid as number);
  const started = process.hrtime.bigint();
  const result = await client.workflow.execute<RankingJobWorkflow>(RANKING_JOB_WORKFLOW, rankingJobStartOptions({ origem: 'manual' }));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const peakMb = rss.stop();
  await stopService(worker);
  if (result.processados !== expectedPersons) throw new Error(`the job processed ${result.processados}, expected ${expectedPersons}`);
  return { seconds, peakMb };
}

/** Fills the benchmark's person index with `count` generated persons unless it holds exactly that many. */
export async function ensureBenchPersons(es: ElasticsearchClient, index: string, count: number): Promise<void> {
  const existing = (await es.indices.exists({ index })) ? (await es.count({ index })).count : 0;
  if (existing === count) return;
  const generated = await generatePersons({ es, index, count, seed: 300, recreate: true });
  process.stdout.write(`generated ${count} persons into ${index} in ${generated.seconds.toFixed(1)} s\n`);
}

/** The pinned Claude Code CLI: the agent command of the benchmarks that run real agents. */
export const CLAUDE_CLI = path.join(root, 'node_modules', '.bin', 'claude');

/** One JSON call of the orchestration API at `base` (its `/api` prefix included); a non-2xx answer throws with its body. */
export async function apiCall(
  base: string,
  method: string,
  route: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<any> {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}
