import fs from 'node:fs';
import path from 'node:path';
import type { AgentCli, AgentEvent, AgentRunOptions } from '../../activities/agents/agent-cli';
import { agentBaseEnv } from '../../activities/agents/agent-env';
import { prepareAgentHost } from '../../activities/agents/agent-host';
import { processesOf } from '../../activities/agents/agent-users';
import { AgentCancelledError, runAgent, type AgentRunSummary } from '../../activities/agents/run-agent';
import { agentIsolation } from '../../lib/agent-isolation';
import { config } from '../../lib/config';
import type { OutputChunk } from '../../lib/live-output';
import { logger } from '../../lib/logger';
import { processRunning } from '../../scripts/process-state';
import { agentWorkspace } from './agent-workspace';
import { requireRoot } from './root';
import { startStandInModel, type RecordedRequest, type StandInModel } from './stand-in-model';
import { rejection, until } from './waiting';

/**
 * What the suites of the REAL coding-agent CLIs share (test/integration/real-cli.test.ts for Claude
 * Code, codex-cli.test.ts, gemini-cli.test.ts): the CLI run through runAgent as the service runs it
 * (root, the pool's users, the session store) against the stand-in model, and the checks that read
 * the same for every CLI. What differs is given: the adapter, its command, the environment that points
 * it at the stand-in, how its process is told apart; each suite keeps its CLI's own assertions.
 */
interface CliHarnessOptions {
  /** The suite's name (requireRoot's): its workspace, session store and agent id are named after it. */
  name: string;
  cli: AgentCli;
  /** The CLI's executable, by path (installed by `npm ci`). */
  command: string;
  /** What every run asks besides its prompt (turn limit, model). */
  run: Omit<AgentRunOptions, 'prompt'>;
  /** Added to agentBaseEnv(process.env, cli): the stand-in's endpoint and key, the CLI's retries. */
  env: (model: StandInModel) => Record<string, string>;
  /** Whether a process working in a run's directory is the CLI, by its /proc command line (arguments NUL-separated). */
  isCli: (cmdline: string) => boolean;
  /** Raw lines set apart from the events into `partials` (Claude Code's --include-partial-messages lines). */
  partial?: (line: Record<string, unknown>) => boolean;
}

interface CliRun {
  /** The parsed lines, but those set apart as partials. */
  events: AgentEvent[];
  partials: Array<Record<string, unknown>>;
  /** The terminal lines of the panel (the adapter's output mapper). */
  chunks: OutputChunk[];
  /** The raw events' lines, parsed as JSON. */
  raws: () => Array<Record<string, unknown>>;
  outcome: Promise<AgentRunSummary>;
  cwd: string;
}

interface StartOptions {
  /** Overrides of the run's options (`resumeSessionId`, `permissionMode`, `systemPrompt`, ...). */
  run?: Partial<AgentRunOptions>;
  /** Added last to the environment. */
  env?: Record<string, string>;
  signal?: AbortSignal;
  /** A fresh `run-<n>` directory of the workspace when absent. */
  cwd?: string;
}

/** What a cancelled run left to look at. */
interface Cancelled {
  prompt: string;
  run: CliRun;
  /** The CLI's processes seen before the cancel. */
  pids: number[];
  summary: AgentRunSummary;
}

/** Requests of the stand-in whose latest prompt is this one (each API's own reading). */
type RequestsFor = (prompt: string) => RecordedRequest[];

/**
 * Registers the suite's beforeAll/afterAll (a stand-in model, a workspace prepared as the worker
 * prepares its roots, a session store) and returns what its tests use; `model` and `workspace` are
 * there once beforeAll ran.
 */
export function cliHarness(options: CliHarnessOptions) {
  const { cli, command } = options;
  let model: StandInModel | undefined;
  let workspace: string | undefined;
  let sessionStore: string | undefined;
  let runs = 0;

  beforeAll(async () => {
    requireRoot(options.name);
    const isolation = agentIsolation();
    if (isolation.mode !== 'user-pool') throw new Error(`no pool of agent users (${isolation.reason})`);
    if (!fs.existsSync(command)) throw new Error(`the ${cli.name} CLI is not installed at ${command}: run npm ci`);
    model = await startStandInModel();
    workspace = agentWorkspace(`${options.name}-`);
    await prepareAgentHost({ orchestration: { ...config.orchestration, workdirRoots: [workspace] } }, logger);
    sessionStore = fs.mkdtempSync(path.join(config.orchestration.dataDir, `${options.name}-sessions-`));
  });

  afterAll(async () => {
    await model?.close();
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
    if (sessionStore) fs.rmSync(sessionStore, { recursive: true, force: true });
  });

  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error(`${options.name}: the harness is used before its beforeAll ran`);
    return value;
  };

  function start(prompt: string, startOptions: StartOptions = {}): CliRun {
    runs += 1;
    const cwd = startOptions.cwd ?? path.join(ready(workspace), `run-${runs}`);
    const events: AgentEvent[] = [];
    const partials: Array<Record<string, unknown>> = [];
    const chunks: OutputChunk[] = [];
    const outcome = runAgent({
      command,
      cli,
      run: { ...options.run, prompt, ...startOptions.run },
      cwd,
      workdirRoots: [ready(workspace)],
      sessions: { store: ready(sessionStore), agentId: `agent-${options.name}` },
      baseEnv: { ...agentBaseEnv(process.env, cli), ...options.env(ready(model)), ...startOptions.env },
      onEvent: (event) => {
        const line = event.kind === 'raw' && options.partial ? (JSON.parse(event.line) as Record<string, unknown>) : null;
        if (line !== null && options.partial!(line)) partials.push(line);
        else events.push(event);
      },
      onOutput: (chunk) => void chunks.push(chunk),
      ...(startOptions.signal ? { signal: startOptions.signal } : {}),
    });
    return {
      events,
      partials,
      chunks,
      raws: () => events.flatMap((event) => (event.kind === 'raw' ? [JSON.parse(event.line) as Record<string, unknown>] : [])),
      outcome,
      cwd,
    };
  }

  /** The run's CLI processes, in pid order: those working in its directory whose command line is the CLI's. */
  function cliPids(run: CliRun): number[] {
    const found: number[] = [];
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (fs.readlinkSync(`/proc/${entry}/cwd`) !== run.cwd) continue;
        if (options.isCli(fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8'))) found.push(Number(entry));
      } catch {
        // Gone meanwhile, or not ours to read.
      }
    }
    return found.sort((a, b) => a - b);
  }

  const started = (run: CliRun) =>
    until(
      'the run is started',
      async () => cliPids(run),
      (pids) => pids.length > 0,
    );

  return {
    get model(): StandInModel {
      return ready(model);
    },
    get workspace(): string {
      return ready(workspace);
    },
    start,

    /** POSTs JSON to the stand-in, as a client of its API would. */
    post: (pathname: string, body: unknown) =>
      fetch(`${ready(model).url}${pathname}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),

    /**
     * Runs the write-file scenario (out/hello.txt) and checks what every CLI does with it: the file, its
     * content and newline, written in the run's directory by the run's pool user (not by the root
     * service); two turns, the model's two texts as the output; two requests, the second after the tool ran.
     */
    async writeFile(content: string, requestsFor: RequestsFor) {
      const prompt = `Write the file. stand-in:write-file path=out/hello.txt content=${content}`;
      const run = start(prompt);
      const summary = await run.outcome;
      const file = path.join(run.cwd, 'out/hello.txt');
      expect(fs.readFileSync(file, 'utf8')).toBe(`${content}\n`);
      expect(fs.statSync(file).uid).toBe(fs.statSync(run.cwd).uid);
      expect(fs.statSync(file).uid).not.toBe(0);
      expect(summary).toMatchObject({
        error: null,
        turns: 2,
        resultText: `Wrote the file: ${content}`,
        output: `Writing out/hello.txt.\nWrote the file: ${content}`,
      });
      const requests = requestsFor(prompt);
      expect(requests).toHaveLength(2);
      return { run, summary, requests };
    },

    /** Runs the long scenario (100,000 characters): one text event holds it all, the summary its bounded beginning. */
    async longAnswer() {
      const run = start('Write a lot. stand-in:long chars=100000');
      const summary = await run.outcome;
      const texts = textEvents(run.events);
      expect(texts).toHaveLength(1);
      expect(texts[0]!.text).toHaveLength(100_000);
      expect(summary.outputTruncated).toBe(true);
      expect(summary.output).toBe(`${texts[0]!.text.slice(0, 60_000)}\n[output cut: 40000 more characters not kept]`);
      return { run, summary };
    },

    /**
     * Cancels a run while the stand-in streams its answer slowly, once the request came and the CLI's
     * process is seen; checks that the run ends cancelled, its CLI processes are gone and the stand-in
     * saw the client leave before the stream's end.
     */
    async cancelDuringSlowStream(requestsFor: RequestsFor, cwd?: string): Promise<Cancelled & { request: RecordedRequest }> {
      const prompt = 'Take your time. stand-in:slow every=100';
      const controller = new AbortController();
      const run = start(prompt, { signal: controller.signal, ...(cwd === undefined ? {} : { cwd }) });
      const outcome = rejection(run.outcome);
      await until(
        'the slow stream started',
        async () => requestsFor(prompt).length,
        (count) => count === 1,
        30_000,
      );
      const pids = await started(run);
      controller.abort(new Error('cancelled by the test'));
      const error = await outcome;

      expect(error).toBeInstanceOf(AgentCancelledError);
      for (const pid of pids) expect(processRunning(pid)).toBe(false);
      const [request] = requestsFor(prompt);
      await until(
        'the stand-in saw the client leave',
        async () => request!.streamCompleted,
        (completed) => completed === false,
        5_000,
      );
      return { prompt, run, pids, summary: (error as AgentCancelledError).summary, request: request! };
    },

    /**
     * Cancels a run while its shell tool sleeps (it wrote its pid to sleeper.pid first), once the CLI's
     * process is seen and `beforeCancel` (the suite's own checks) is done; checks that the CLI and the
     * shell ran as the pool user and that after the cancel neither runs and the user has no process left.
     */
    async cancelWhileToolRuns(
      beforeCancel?: (state: { run: CliRun; pids: number[]; shell: number }) => Promise<void>,
    ): Promise<Cancelled & { shell: number }> {
      const prompt = 'Wait for it. stand-in:sleep seconds=300';
      const controller = new AbortController();
      const run = start(prompt, { signal: controller.signal });
      const outcome = rejection(run.outcome);
      const pidFile = path.join(run.cwd, 'sleeper.pid');
      await until(
        'the tool wrote its pid',
        async () => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '',
        Boolean,
        30_000,
      );
      const shell = Number(fs.readFileSync(pidFile, 'utf8'));
      const uid = fs.statSync(pidFile).uid;
      const pids = await started(run);
      await beforeCancel?.({ run, pids, shell });
      for (const pid of [...pids, shell]) expect(processRunning(pid)).toBe(true);
      expect(await processesOf(uid)).toEqual(expect.arrayContaining([...pids, shell]));
      controller.abort(new Error('cancelled by the test'));
      const error = await outcome;

      expect(error).toBeInstanceOf(AgentCancelledError);
      for (const pid of [...pids, shell]) expect(processRunning(pid)).toBe(false);
      expect(await processesOf(uid)).toEqual([]);
      return { prompt, run, pids, shell, summary: (error as AgentCancelledError).summary };
    },
  };
}

/** The text events of a run. */
const textEvents = (events: AgentEvent[]) =>
  events.filter((event): event is Extract<AgentEvent, { kind: 'text' }> => event.kind === 'text');
