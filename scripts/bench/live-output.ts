import './bench-env';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { migrateDatabase } from '../../db/migrate';
import { config } from '../../lib/config';
import { repoRoot } from '../../lib/paths';
import { ensureNamespace } from '../../temporal/namespace';
import { processRunning } from '../process-state';
import { fmt, percentile } from './measure';
import { startApi, startService, stopService, waitForLine } from './services';

/**
 * Live-output benchmark (issue 5): the delay from the agent printing a line to the client's WebSocket
 * receiving it, with BENCH_STREAMS executions streaming at once (default 20), each to its own client;
 * how many executions the service starts per second from a burst of BENCH_BURST requests; and how
 * long a cancel takes to kill the agent and to end the record (BENCH_CANCELS, one at a time).
 * The agent is the stand-in CLI (test/fixtures/fake-agent), which stamps each line with the moment
 * it writes it (FAKE_AGENT_STAMP); both ends read the same machine clock.
 *
 *   npm run bench:live-output   (BENCH_STREAMS, BENCH_CHUNKS, BENCH_LINE_MS, BENCH_BURST, BENCH_CANCELS)
 */
const STREAMS = Number(process.env.BENCH_STREAMS ?? 20);
const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 100);
/**
 * Gaps between an agent's lines, one streaming run each. Claude Code's stream-json prints a line per
 * message or tool event, a few a second: 100 ms is above that; 20 ms is a stress rate (1 000 lines a
 * second from 20 agents, all Node processes on the same 2 cores as the service).
 */
const LINE_INTERVALS_MS = (process.env.BENCH_LINE_MS ?? '100,20').split(',').map(Number);
const BURST = Number(process.env.BENCH_BURST ?? 200);
/** Executions cancelled one at a time while streaming, to time a cancel end to end. */
const CANCELS = Number(process.env.BENCH_CANCELS ?? 10);
const FAKE_AGENT = path.join(repoRoot, 'test', 'fixtures', 'fake-agent', 'fake-agent.js');
const STAMP = /^\[printed-at (\d+)\] /;
const say = (line: string) => process.stdout.write(`${line}\n`);

interface Api {
  base: string;
  call(method: string, route: string, body?: unknown, clientId?: string): Promise<any>;
}

function apiAt(base: string): Api {
  return {
    base,
    async call(method, route, body, clientId = 'bench') {
      const response = await fetch(`${base}${route}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-client-id': clientId },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text}`);
      return text ? JSON.parse(text) : null;
    },
  };
}

/** An agent whose runs print `chunks` stamped lines, `delayMs` apart (knobs passed as its secrets). */
async function benchAgent(api: Api, name: string, chunks: number, delayMs: number, knobs: Record<string, string> = {}): Promise<string> {
  const agent = await api.call('POST', '/agents', { name: `${name} ${Date.now()}`, maxTurns: 5 });
  for (const [secret, value] of Object.entries({ FAKE_AGENT_STAMP: '1', FAKE_AGENT_CHUNKS: String(chunks), FAKE_AGENT_DELAY_MS: String(delayMs), ...knobs })) {
    await api.call('POST', `/agents/${agent.id}/secrets`, { name: secret, value });
  }
  return agent.id as string;
}

/** A client's socket, collecting the delivery delay of every stamped output line until its run finishes. */
function openClient(wsBase: string, clientId: string, delays: number[]): Promise<{ finished: Promise<void>; close(): void }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${wsBase}/ws?clientId=${encodeURIComponent(clientId)}`);
    let finish!: () => void;
    const finished = new Promise<void>((done) => (finish = done));
    socket.on('message', (data) => {
      const received = Date.now();
      const message = JSON.parse(data.toString()) as { type: string; text?: string };
      if (message.type === 'connected') resolve({ finished, close: () => socket.close() });
      if (message.type === 'execution.output') {
        const stamp = STAMP.exec(message.text ?? '');
        if (stamp) delays.push(received - Number(stamp[1]));
      }
      if (message.type === 'execution.finished') finish();
    });
    socket.once('error', reject);
  });
}

/** Starts STREAMS executions at once, each printing CHUNKS lines `intervalMs` apart to its own client; every line's delay. */
async function streamAtOnce(api: Api, wsBase: string, intervalMs: number): Promise<{ delays: number[]; seconds: number }> {
  const agentId = await benchAgent(api, `bench streaming ${intervalMs}ms`, CHUNKS, intervalMs);
  const delays: number[] = [];
  const clients = await Promise.all(Array.from({ length: STREAMS }, (_, i) => openClient(wsBase, `bench-client-${intervalMs}-${i}`, delays)));
  const started = Date.now();
  await Promise.all(
    clients.map((_, i) => api.call('POST', `/agents/${agentId}/execute`, { task: `stream ${i}`, instructions: '' }, `bench-client-${intervalMs}-${i}`)),
  );
  await Promise.all(clients.map((client) => client.finished));
  const seconds = (Date.now() - started) / 1000;
  for (const client of clients) client.close();
  return { delays, seconds };
}

async function waitFor<T>(read: () => T | Promise<T>, done: (value: T) => boolean, pollMs: number): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/**
 * Cancels CANCELS running executions one after another; for each, the time from sending the cancel
 * to its agent process being gone, and to its record saying `cancelled`.
 */
async function cancelTimes(api: Api, scratch: string): Promise<{ processGone: number[]; recordCancelled: number[] }> {
  const processGone: number[] = [];
  const recordCancelled: number[] = [];
  for (let index = 0; index < CANCELS; index += 1) {
    const recordFile = path.join(scratch, `cancel-${index}.json`);
    const agentId = await benchAgent(api, `bench cancel ${index}`, 1000, 100, { FAKE_AGENT_RECORD: recordFile });
    const { executionId } = await api.call('POST', `/agents/${agentId}/execute`, { task: 'cancel me', instructions: '' });
    const readPid = () => (fs.existsSync(recordFile) ? (JSON.parse(fs.readFileSync(recordFile, 'utf8')) as { pid: number }).pid : 0);
    const pid = await waitFor(() => { try { return readPid(); } catch { return 0; } }, (value) => value > 0, 20);
    await new Promise((resolve) => setTimeout(resolve, 300)); // streaming, not starting
    const sent = performance.now();
    await api.call('POST', `/agents/${agentId}/cancel/${executionId}`);
    await waitFor(() => processRunning(pid), (running) => !running, 5);
    processGone.push(performance.now() - sent);
    await waitFor(() => api.call('GET', `/executions/history/${executionId}`), (record: { status: string }) => record.status === 'canceled', 20);
    recordCancelled.push(performance.now() - sent);
  }
  return { processGone, recordCancelled };
}

async function waitUntilIdle(api: Api): Promise<void> {
  await waitFor(() => api.call('GET', '/executions/active') as Promise<unknown[]>, (active) => active.length === 0, 200);
}

async function main(): Promise<void> {
  await migrateDatabase(config.mysql);
  await ensureNamespace(config.temporal.address, config.temporal.namespace);
  const agentEnv = { AGENT_COMMAND: FAKE_AGENT };
  const worker = startService('agents-worker', agentEnv);
  await waitForLine(worker, '"msg":"worker started"');
  const { process: apiProcess, base } = await startApi(agentEnv);
  const api = apiAt(base.replace(/\/api\/v1$/, '/api'));
  const wsBase = base.replace(/^http/, 'ws').replace(/\/api\/v1$/, '');
  try {
    await api.call('PUT', '/settings', { maxConcurrent: Math.max(STREAMS, 20) });

    const streaming: Array<{ intervalMs: number; delays: number[]; seconds: number }> = [];
    for (const intervalMs of LINE_INTERVALS_MS) {
      say(`streaming: ${STREAMS} executions at once, ${CHUNKS} lines each, one every ${intervalMs} ms ...`);
      streaming.push({ intervalMs, ...(await streamAtOnce(api, wsBase, intervalMs)) });
      await waitUntilIdle(api);
    }

    say(`burst: ${BURST} executions requested at once ...`);
    const quickAgent = await benchAgent(api, 'bench burst', 1, 0);
    const burstStarted = Date.now();
    const accepted = await Promise.all(
      Array.from({ length: BURST }, (_, i) => api.call('POST', `/agents/${quickAgent}/execute`, { task: `burst ${i}`, instructions: '' })),
    );
    const acceptSeconds = (Date.now() - burstStarted) / 1000;
    await waitUntilIdle(api);
    const burstSeconds = (Date.now() - burstStarted) / 1000;

    say(`cancel: ${CANCELS} running executions, one at a time ...`);
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-cancel-'));
    const cancels = await cancelTimes(api, scratch);
    fs.rmSync(scratch, { recursive: true, force: true });

    say('');
    say(`live output: ${STREAMS} executions streaming at once (started together), ${CHUNKS} lines each (target p99 < 50 ms)`);
    say('  lines per stream   lines received   p50 ms   p99 ms');
    for (const run of streaming) {
      const sorted = [...run.delays].sort((a, b) => a - b);
      say(
        `  ${String(1000 / run.intervalMs).padStart(9)} per s ${String(sorted.length).padStart(16)} ${fmt(percentile(sorted, 50), 1)} ${fmt(percentile(sorted, 99), 1)}   (${fmt(run.seconds)} s)`,
      );
    }
    say(`executions: burst of ${accepted.length} requests, maxConcurrentExecutions ${Math.max(STREAMS, 20)}`);
    say(`  accepted (202) per second ${fmt(accepted.length / acceptSeconds, 1)}   completed per second ${fmt(accepted.length / burstSeconds, 1)}`);
    say(`cancel, from the request to (ms)     p50      max`);
    for (const [what, times] of [['the agent process gone', cancels.processGone], ['the record cancelled', cancels.recordCancelled]] as const) {
      const sorted = [...times].sort((a, b) => a - b);
      say(`  ${what.padEnd(28)} ${fmt(percentile(sorted, 50), 1)} ${fmt(sorted[sorted.length - 1] ?? 0, 1)}`);
    }
  } finally {
    await stopService(apiProcess);
    await stopService(worker);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:live-output failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
