import './bench-env';
import { migrateDatabase } from '../../db/migrate';
import { config } from '../../lib/config';
import { FINAL_EXECUTION_MESSAGE_TYPES } from '../../lib/live-output';
import { ensureNamespace } from '../../temporal/namespace';
import { startStandInModel, type StandInModel } from '../../test/support/stand-in-model';
import {
  benchAgent,
  notCompleted,
  openClient,
  startAgentServices,
  streamAtOnce,
  waitFor,
  waitUntilIdle,
  type Api,
  type FailedRun,
} from './live-streams';
import { fmt, percentile } from './measure';

/**
 * Live-output benchmark (issues 5 and 14), with the REAL Claude Code CLI (the pinned
 * node_modules/.bin/claude, run by the worker as the pool's users) against the stand-in model
 * (test/support/stand-in-model, in this process):
 * - BENCH_STREAMS executions (default 20) streaming at once, each to its own WebSocket client at `/`
 *   (as the admin panel connects): the stand-in sends BENCH_CHUNKS text deltas per run, each one line,
 *   BENCH_LINE_MS apart (`stand-in:lines`); the delay is from the stand-in writing a delta to the client
 *   receiving its `execution_output` (same process, same clock). The CLI streams it
 *   (--include-partial-messages), the worker maps it to a line and publishes it, the API relays it.
 * - a burst of BENCH_BURST executions (`stand-in:text`) requested at once: accepted, started
 *   (`execution_started` received) and completed per second.
 * - BENCH_CANCELS executions cancelled one at a time while the model streams: from the request to the
 *   client's final `execution_canceled` and to the record saying `canceled`.
 *
 * It exits 1, naming each run and its error, when a run of the streaming phases or of the burst does
 * not complete or a streamed line never arrives. The services' logs stay in .stack/logs/bench-*.log.
 *
 *   npm run bench:live-output   (BENCH_STREAMS, BENCH_CHUNKS, BENCH_LINE_MS, BENCH_BURST, BENCH_CANCELS)
 */
const STREAMS = Number(process.env.BENCH_STREAMS ?? 20);
const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 100);
/** Gaps between the model's lines in one run: 100 ms (10 lines a second, a fast model) and 20 ms (a stress rate). */
const LINE_INTERVALS_MS = (process.env.BENCH_LINE_MS ?? '100,20').split(',').map(Number);
const BURST = Number(process.env.BENCH_BURST ?? 100);
const CANCELS = Number(process.env.BENCH_CANCELS ?? 5);
const say = (line: string) => process.stdout.write(`${line}\n`);

/** BURST executions requested at once from one client: accepted, started and completed per second. */
async function burst(api: Api, model: StandInModel, wsBase: string) {
  const agentId = await benchAgent(api, model, 'bench burst');
  const client = await openClient(wsBase, 'bench-burst');
  const requested = Date.now();
  const accepted = await Promise.all(
    Array.from({ length: BURST }, (_, i) =>
      api.call('POST', `/agents/${agentId}/execute`, { task: `burst ${i} stand-in:text` }, 'bench-burst'),
    ),
  );
  const acceptSeconds = (Date.now() - requested) / 1000;
  await waitUntilIdle(api);
  const doneSeconds = (Date.now() - requested) / 1000;
  // The final messages may trail the records by a publish.
  await waitFor(
    () => client.received.filter(({ message }) => FINAL_EXECUTION_MESSAGE_TYPES.includes(message.type)).length,
    (n) => n >= BURST,
    50,
  );
  const startedAt = client.received.filter(({ message }) => message.type === 'execution_started').map(({ at }) => at);
  const completed = client.received.filter(({ message }) => message.type === 'execution_complete').length;
  const failed = notCompleted(client.received.map(({ message }) => message));
  client.close();
  const startSeconds = (Math.max(...startedAt) - requested) / 1000;
  return { accepted: accepted.length, acceptSeconds, started: startedAt.length, startSeconds, completed, doneSeconds, failed };
}

/** Cancels CANCELS executions one after another while the model streams to them. */
async function cancelTimes(api: Api, model: StandInModel, wsBase: string) {
  const agentId = await benchAgent(api, model, 'bench cancel');
  const toMessage: number[] = [];
  const toRecord: number[] = [];
  for (let index = 0; index < CANCELS; index += 1) {
    const clientId = `bench-cancel-${index}`;
    const client = await openClient(wsBase, clientId);
    const task = `cancel ${index} stand-in:slow deltas=600 every=100`;
    const { executionId } = await api.call('POST', `/agents/${agentId}/execute`, { task }, clientId);
    // Streaming, not starting: the stand-in has been writing to this run for a moment.
    await waitFor(
      () =>
        model
          .messages()
          .some(
            (request) =>
              request.answer === 'scenario:slow' &&
              request.streamCompleted === false &&
              JSON.stringify(request.body).includes(`cancel ${index} `),
          ),
      Boolean,
      20,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const sent = performance.now();
    await api.call('POST', `/agents/${agentId}/cancel/${executionId}`, undefined, clientId);
    await client.finished;
    toMessage.push(performance.now() - sent);
    await waitFor(
      () => api.call('GET', `/executions/history/${executionId}`),
      (record: { status: string }) => record.status === 'canceled',
      20,
    );
    toRecord.push(performance.now() - sent);
    client.close();
  }
  return { toMessage, toRecord };
}

async function main(): Promise<void> {
  await migrateDatabase(config.mysql);
  await ensureNamespace(config.temporal, config.temporal.namespace);
  const sentAt = new Map<string, number>();
  // Each delta of `stand-in:lines` is one line; the client receives it without its line end.
  const model = await startStandInModel({ onTextDelta: (text) => sentAt.set(text.trimEnd(), Date.now()) });
  const services = await startAgentServices();
  const { api, wsBase } = services;
  try {
    await api.call('PUT', '/settings', { maxConcurrent: Math.max(STREAMS, 20) });
    await waitUntilIdle(api);

    const streaming: Array<{ intervalMs: number; delays: number[]; seconds: number; failed: FailedRun[] }> = [];
    for (const intervalMs of LINE_INTERVALS_MS) {
      say(`streaming: ${STREAMS} executions at once, ${CHUNKS} lines each, one every ${intervalMs} ms ...`);
      streaming.push({ intervalMs, ...(await streamAtOnce(api, model, sentAt, wsBase, { streams: STREAMS, chunks: CHUNKS, intervalMs })) });
      await waitUntilIdle(api);
    }
    say(`burst: ${BURST} executions requested at once ...`);
    const bursted = await burst(api, model, wsBase);
    say(`cancel: ${CANCELS} streaming executions, one at a time ...`);
    const cancels = await cancelTimes(api, model, wsBase);

    say('');
    say(
      `live output, real Claude Code CLI ${'2.1.331'} against the stand-in model: ${STREAMS} executions streaming at once, ${CHUNKS} lines each`,
    );
    say('delay from the stand-in writing a text delta to the client at / receiving its execution_output');
    say('  lines per stream   lines received   p50 ms   p99 ms');
    for (const run of streaming) {
      const sorted = [...run.delays].sort((a, b) => a - b);
      say(
        `  ${String(1000 / run.intervalMs).padStart(9)} per s ${String(sorted.length).padStart(10)}/${STREAMS * CHUNKS} ${fmt(percentile(sorted, 50), 1)} ${fmt(percentile(sorted, 99), 1)}   (${fmt(run.seconds)} s${run.failed.length > 0 ? `, ${run.failed.length} not completed` : ''})`,
      );
    }
    say(`executions: burst of ${bursted.accepted} requests (stand-in:text), maxConcurrentExecutions ${Math.max(STREAMS, 20)}`);
    say(
      `  accepted (202) per second ${fmt(bursted.accepted / bursted.acceptSeconds, 1)}   started per second ${fmt(bursted.started / bursted.startSeconds, 1)}   completed per second ${fmt(bursted.completed / bursted.doneSeconds, 1)} (${bursted.completed} completed)`,
    );
    say(`cancel, from the request to (ms)     p50      max`);
    for (const [what, times] of [
      ['the final message', cancels.toMessage],
      ['the record canceled', cancels.toRecord],
    ] as const) {
      const sorted = [...times].sort((a, b) => a - b);
      say(`  ${what.padEnd(28)} ${fmt(percentile(sorted, 50), 1)} ${fmt(sorted[sorted.length - 1] ?? 0, 1)}`);
    }
    // Every run of the streaming phases and of the burst must complete: a figure beside a lost run means nothing.
    const failed = [...streaming.flatMap((run) => run.failed), ...bursted.failed];
    const lines = streaming.reduce((sum, run) => sum + run.delays.length, 0);
    if (failed.length > 0 || lines < streaming.length * STREAMS * CHUNKS) {
      say('');
      say(`FAILED: ${failed.length} run(s) did not complete; ${lines} of ${streaming.length * STREAMS * CHUNKS} streamed lines arrived`);
      for (const run of failed) say(`  ${run.executionId}: ${run.error}`);
      process.exitCode = 1;
    }
  } finally {
    await services.stop();
    await model.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:live-output failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
