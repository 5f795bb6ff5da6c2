import './bench-env';
import { migrateDatabase } from '../../db/migrate';
import { AGENT_CLI_NAMES, AGENT_CLIS, type AgentCliName } from '../../domain/agent-clis';
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
  type StreamResult,
} from './live-streams';
import { fmt, percentile } from './measure';

/**
 * Live-output benchmark (issues 5, 14 and 42), with the REAL coding-agent CLIs (the pinned
 * node_modules/.bin/claude, codex and gemini, run by the worker as the pool's users) against the
 * stand-in model (test/support/stand-in-model, in this process, speaking each CLI's model API):
 * - for each CLI of BENCH_CLIS (default claude-code,codex,gemini: an agent with that `config.cli`),
 *   BENCH_STREAMS executions (default 20) streaming at once, each to its own WebSocket client at `/`
 *   (as the admin panel connects): the stand-in sends BENCH_CHUNKS text deltas per run, each one line,
 *   BENCH_LINE_MS apart (`stand-in:lines`); a line's delay is from the stand-in writing its delta to
 *   the client receiving it in an `execution_output` (same process, same clock), and a message's is
 *   from the stand-in writing the run's last delta (where its message ends) to the client receiving
 *   that line. Claude Code (--include-partial-messages) and Gemini CLI (stream-json) print each delta
 *   as it comes and the worker publishes a line as soon as it ends; Codex CLI prints an agent message
 *   only once it is complete (no deltas): its run's lines arrive together, in one output line, at the
 *   message's end, so its delay is per message and each of its lines waits for that end. Also each
 *   run's start: from the execute request to the stand-in writing its first delta. The figures are
 *   printed side by side, with each one's ratio to Claude Code's in the same run (what a CLI adds).
 * - a burst of BENCH_BURST executions (`stand-in:text`, Claude Code) requested at once: accepted,
 *   started (`execution_started` received) and completed per second.
 * - BENCH_CANCELS executions (Claude Code) cancelled one at a time while the model streams: from the
 *   request to the client's final `execution_canceled` and to the record saying `canceled`.
 *
 * It exits 1, naming each run and its error, when a run of the streaming phases or of the burst does
 * not complete or a streamed line never arrives. The services' logs stay in .stack/logs/bench-*.log.
 *
 *   npm run bench:live-output   (BENCH_CLIS, BENCH_STREAMS, BENCH_CHUNKS, BENCH_LINE_MS, BENCH_BURST, BENCH_CANCELS)
 */
const STREAMS = Number(process.env.BENCH_STREAMS ?? 20);
const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 100);
/** Gaps between the model's lines in one run: 100 ms (10 lines a second, a fast model) and 20 ms (a stress rate). */
const LINE_INTERVALS_MS = (process.env.BENCH_LINE_MS ?? '100,20').split(',').map(Number);
const BURST = Number(process.env.BENCH_BURST ?? 100);
const CANCELS = Number(process.env.BENCH_CANCELS ?? 5);
/** The CLIs measured side by side, in this order; ratios are to Claude Code's figures when it is among them. */
const CLIS = (process.env.BENCH_CLIS ?? AGENT_CLI_NAMES.join(',')).split(',').map((name) => {
  if (!(AGENT_CLI_NAMES as readonly string[]).includes(name))
    throw new Error(`BENCH_CLIS: unknown CLI ${name} (${AGENT_CLI_NAMES.join(', ')})`);
  return name as AgentCliName;
});
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

/** `value` over Claude Code's, as `×1.0`; '' where there is no Claude Code figure to compare with. */
function ratio(value: number, claude: number | undefined): string {
  if (claude === undefined || !Number.isFinite(value)) return ''.padStart(8);
  return `×${claude > 0 ? (value / claude).toFixed(1) : '∞'}`.padStart(8);
}

/** p50, p99 (nearest rank) and the max of unsorted values. */
function quantiles(values: number[]): { p50: number; p99: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? Number.NaN };
}

type StreamingPhase = { intervalMs: number; cli: AgentCliName } & StreamResult;

/**
 * One figure of every streaming phase, a row per line rate and CLI: how many were measured of
 * `expected`, p50 and `tail` (p99, or the max of a few), each beside its ratio to Claude Code's at the
 * same rate; `withWallTime`: each phase's wall time (and its runs that did not complete) after its row.
 */
function sideBySide(
  phases: StreamingPhase[],
  counted: string,
  tail: 'p99' | 'max',
  values: (phase: StreamingPhase) => number[],
  expected: number,
  withWallTime = false,
): void {
  say(`  lines/s  CLI          ${counted.padStart(14)}   p50 ms   ${tail} ms   p50 vs Claude  ${tail} vs Claude`);
  for (const phase of phases) {
    const own = quantiles(values(phase));
    const claude = phases.find((other) => other.cli === 'claude-code' && other.intervalMs === phase.intervalMs);
    const base = claude && values(claude).length > 0 ? quantiles(values(claude)) : undefined;
    const wall = withWallTime
      ? `   (${fmt(phase.seconds)} s${phase.failed.length > 0 ? `, ${phase.failed.length} not completed` : ''})`
      : '';
    say(
      `  ${String(1000 / phase.intervalMs).padStart(7)}  ${phase.cli.padEnd(12)} ${`${values(phase).length}/${expected}`.padStart(14)} ${fmt(own.p50, 1)} ${fmt(own[tail], 1)}       ${ratio(own.p50, base?.p50)}       ${ratio(own[tail], base?.[tail])}${wall}`,
    );
  }
}

/** The version each CLI's command reports, as GET /api/system/info lists it (`agentClis`). */
async function cliVersions(api: Api): Promise<Map<string, string>> {
  const info = (await api.call('GET', '/system/info')) as { agentClis?: Array<{ cli: string; version: string | null }> };
  return new Map((info.agentClis ?? []).map(({ cli, version }) => [cli, version ?? 'version unknown']));
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

    const versions = await cliVersions(api);
    const streaming: StreamingPhase[] = [];
    for (const intervalMs of LINE_INTERVALS_MS) {
      for (const cli of CLIS) {
        say(`streaming, ${AGENT_CLIS[cli].label}: ${STREAMS} executions at once, ${CHUNKS} lines each, one every ${intervalMs} ms ...`);
        const run = await streamAtOnce(api, model, sentAt, wsBase, {
          streams: STREAMS,
          chunks: CHUNKS,
          intervalMs,
          label: `${cli}${intervalMs}`,
          cli,
        });
        streaming.push({ intervalMs, cli, ...run });
        await waitUntilIdle(api);
      }
    }
    say(`burst: ${BURST} executions requested at once ...`);
    const bursted = await burst(api, model, wsBase);
    say(`cancel: ${CANCELS} streaming executions, one at a time ...`);
    const cancels = await cancelTimes(api, model, wsBase);

    say('');
    say(`live output, real CLIs against the stand-in model: ${STREAMS} executions streaming at once per CLI, ${CHUNKS} lines each`);
    for (const cli of CLIS) say(`  ${cli.padEnd(12)} ${versions.get(cli) ?? 'version unknown'}`);
    say('(on a shared machine: other work on it at the same time shows in the tails; the ratios are to Claude Code in the same run)');
    say('');
    say('each line: from the stand-in writing its text delta to the client at / receiving it in an execution_output');
    say('  (Claude Code and Gemini CLI print each delta as it comes; Codex CLI prints a message once it is complete,');
    say(`  so each of its lines waits for the end of its run's message of ${CHUNKS} lines)`);
    sideBySide(streaming, 'lines received', 'p99', (run) => run.delays, STREAMS * CHUNKS, true);
    say('');
    say("each message: from the stand-in writing a run's last delta (the message's end) to the client receiving that line");
    say("  (Codex CLI: the whole message's delay, one per run; Claude Code and Gemini CLI: their last line's)");
    sideBySide(streaming, 'messages', 'max', (run) => run.messageDelays, STREAMS);
    say('');
    say("each execution's start: from the execute request to the stand-in writing its first delta (the worker and the");
    say(
      `  CLI start and ask the model, then the stand-in's first gap; ${STREAMS === 1 ? 'one CLI' : `the ${STREAMS} CLIs of a phase start together`} on the shared cores)`,
    );
    sideBySide(streaming, 'executions', 'max', (run) => run.starts, STREAMS);
    say('');
    say(
      `executions (Claude Code): burst of ${bursted.accepted} requests (stand-in:text), maxConcurrentExecutions ${Math.max(STREAMS, 20)}`,
    );
    say(
      `  accepted (202) per second ${fmt(bursted.accepted / bursted.acceptSeconds, 1)}   started per second ${fmt(bursted.started / bursted.startSeconds, 1)}   completed per second ${fmt(bursted.completed / bursted.doneSeconds, 1)} (${bursted.completed} completed)`,
    );
    say(`cancel (Claude Code), from the request to (ms)     p50      max`);
    for (const [what, times] of [
      ['the final message', cancels.toMessage],
      ['the record canceled', cancels.toRecord],
    ] as const) {
      const sorted = [...times].sort((a, b) => a - b);
      say(`  ${what.padEnd(43)} ${fmt(percentile(sorted, 50), 1)} ${fmt(sorted[sorted.length - 1] ?? 0, 1)}`);
    }
    // Every run of the streaming phases and of the burst must complete: a figure beside a lost run means nothing.
    const failed = [...streaming.flatMap((run) => run.failed), ...bursted.failed];
    const lines = streaming.reduce((sum, run) => sum + run.delays.length, 0);
    if (failed.length > 0 || lines < streaming.length * STREAMS * CHUNKS) {
      say('');
      say(`FAILED: ${failed.length} run(s) did not complete; ${lines} of ${streaming.length * STREAMS * CHUNKS} streamed lines arrived`);
      for (const run of streaming.filter((phase) => phase.delays.length < STREAMS * CHUNKS)) {
        say(`  ${run.cli} at ${1000 / run.intervalMs} lines/s: ${run.delays.length} of ${STREAMS * CHUNKS} lines`);
      }
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
