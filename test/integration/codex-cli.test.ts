import fs from 'node:fs';
import path from 'node:path';
import type { AgentEvent, AgentRunOptions } from '../../activities/agents/agent-cli';
import { agentBaseEnv } from '../../activities/agents/agent-env';
import { prepareAgentHost } from '../../activities/agents/agent-host';
import { processesOf } from '../../activities/agents/agent-users';
import { codexCli } from '../../activities/agents/codex';
import {
  AgentCancelledError,
  AgentProcessError,
  runAgent,
  type AgentRunSummary,
  type RunAgentOptions,
} from '../../activities/agents/run-agent';
import type { OutputChunk } from '../../lib/live-output';
import { agentIsolation } from '../../lib/agent-isolation';
import { config } from '../../lib/config';
import { logger } from '../../lib/logger';
import { repoRoot } from '../../lib/paths';
import { STAND_IN_API_KEY, STAND_IN_TEXT, startStandInModel, type RecordedRequest, type StandInModel } from '../support/stand-in-model';
import { openaiStandInEnv, responsesPromptsOf, responsesToolOutputsOf } from '../support/stand-in-model/openai-responses';
import { agentWorkspace } from '../support/agent-workspace';
import { rejection, until } from '../support/waiting';
import { requireRoot } from '../support/root';

/**
 * Issue 42 (Codex): the REAL pinned Codex CLI (@openai/codex 0.169.0, its native binary from the
 * platform package) run through runAgent as the service runs it (root, the pool's users, the session
 * store), against the stand-in Responses API (test/support/stand-in-model/openai-responses.ts). What
 * it prints and sends: docs/codex-cli.md.
 */

const TARGETS: Record<string, string> = { x64: 'x86_64-unknown-linux-musl', arm64: 'aarch64-unknown-linux-musl' };
const codexBinary = path.join(
  repoRoot,
  `node_modules/@openai/codex-linux-${process.arch}/vendor/${TARGETS[process.arch] ?? 'unknown'}/bin/codex`,
);
/** A model Codex knows (no "metadata not found" warning) whose tools are plain functions, not code mode. */
const MODEL = 'gpt-5.5';

let model: StandInModel;
let workspace: string;
let sessionStore: string;

beforeAll(async () => {
  requireRoot('codex-cli');
  const isolation = agentIsolation();
  if (isolation.mode !== 'user-pool') throw new Error(`no pool of agent users (${isolation.reason})`);
  if (!fs.existsSync(codexBinary)) throw new Error(`the Codex CLI is not installed at ${codexBinary}: run npm ci`);
  model = await startStandInModel();
  workspace = agentWorkspace('codex-cli-');
  await prepareAgentHost({ orchestration: { ...config.orchestration, workdirRoots: [workspace] } }, logger);
  sessionStore = fs.mkdtempSync(path.join(config.orchestration.dataDir, 'codex-cli-sessions-'));
});

afterAll(async () => {
  await model?.close();
  if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  if (sessionStore) fs.rmSync(sessionStore, { recursive: true, force: true });
});

interface Run {
  events: AgentEvent[];
  chunks: OutputChunk[];
  /** The raw lines, parsed (turn.started, command executions, errors). */
  raws: () => Array<Record<string, unknown>>;
  outcome: Promise<AgentRunSummary>;
  cwd: string;
}

let runs = 0;
function start(
  prompt: string,
  options: { run?: Partial<AgentRunOptions>; env?: Record<string, string>; signal?: AbortSignal; cwd?: string } = {},
): Run {
  runs += 1;
  const cwd = options.cwd ?? path.join(workspace, `run-${runs}`);
  const events: AgentEvent[] = [];
  const chunks: OutputChunk[] = [];
  const run: RunAgentOptions = {
    command: codexBinary,
    cli: codexCli,
    run: { prompt, maxTurns: 0, model: MODEL, ...options.run },
    cwd,
    workdirRoots: [workspace],
    sessions: { store: sessionStore, agentId: 'agent-codex-cli' },
    // Without CODEX_MAX_RETRIES=0 an error status is asked again twice (the adapter's default).
    baseEnv: { ...agentBaseEnv(process.env, codexCli), ...openaiStandInEnv(model), CODEX_MAX_RETRIES: '0', ...options.env },
    onEvent: (event) => void events.push(event),
    onOutput: (chunk) => void chunks.push(chunk),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  return {
    events,
    chunks,
    raws: () => events.flatMap((event) => (event.kind === 'raw' ? [JSON.parse(event.line) as Record<string, unknown>] : [])),
    outcome: runAgent(run),
    cwd,
  };
}

/** The stand-in's Responses requests whose latest prompt is this one (Codex sends it with its newline). */
function requestsFor(prompt: string): RecordedRequest[] {
  return model.requests.filter((request) => request.path === '/v1/responses' && responsesPromptsOf(request.body).at(-1)?.trim() === prompt);
}

/** Whether a process still runs (a zombie waiting for its reaper does not). */
function alive(pid: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The CLI's pid once a user of the pool runs it: the process of the run's cwd running `exec --json`. */
function pidOf(run: Run): number | null {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readlinkSync(`/proc/${entry}/cwd`) !== run.cwd) continue;
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('exec\0--json\0')) return Number(entry);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return null;
}

describe('the real Codex CLI against the stand-in Responses API', () => {
  it('answers plainly: init with the thread id, the whole message, a result with the usage as tokens, no cost; only the stand-in is asked', async () => {
    model.recordClients();
    const prompt = 'Answer plainly. stand-in:text';
    const run = start(prompt);
    const summary = await run.outcome;

    const [init, ...rest] = run.events;
    expect(init).toEqual({
      kind: 'init',
      sessionId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      model: null,
      cwd: null,
    });
    const sessionId = (init as { sessionId: string }).sessionId;
    expect(rest).toEqual([
      { kind: 'raw', line: '{"type":"turn.started"}' },
      { kind: 'text', text: STAND_IN_TEXT, sessionId },
      {
        kind: 'result',
        isError: false,
        subtype: 'turn.completed',
        resultText: STAND_IN_TEXT,
        sessionId,
        costUsd: null,
        durationMs: null,
        turns: 1,
        // The stand-in's usage: 10 input tokens, a token per 4 characters out.
        tokens: { input: 10, output: 8, cacheRead: 0, cacheCreation: 0 },
      },
    ]);
    // Codex reports no duration: the run's is its process's, from spawn to exit.
    expect(summary.durationMs).toBeGreaterThan(0);
    expect(summary).toMatchObject({
      exitCode: 0,
      signal: null,
      error: null,
      sessionId,
      output: STAND_IN_TEXT,
      resultText: STAND_IN_TEXT,
      turns: 1,
    });
    expect(summary.tokens).toEqual({ input: 10, output: 8, cacheRead: 0, cacheCreation: 0 });
    expect(run.chunks).toEqual([
      { type: 'chunk', content: STAND_IN_TEXT },
      { type: 'turn', content: 'Turno 1', turn: 1 },
      { type: 'system', content: `Resultado: 1 turnos | sessão: ${sessionId.slice(0, 8)}...` },
    ]);

    // One streamed request over plain HTTP with the key from OPENAI_API_KEY, the model asked for; nothing else.
    const [request] = requestsFor(prompt);
    expect(request).toMatchObject({
      method: 'POST',
      path: '/v1/responses',
      answer: 'openai-responses:scenario:text',
      status: 200,
      streamCompleted: true,
    });
    expect(request!.headers.authorization).toBe(`Bearer ${STAND_IN_API_KEY}`);
    expect(request!.headers.accept).toBe('text/event-stream');
    expect(request!.headers['user-agent']).toMatch(/^codex_exec\/0\.169\.0 /);
    expect(request!.headers['session-id']).toBe(sessionId);
    expect(request!.body).toMatchObject({ model: MODEL, stream: true });
    expect(model.requests.filter((other) => other.path !== '/v1/responses')).toEqual([]);
    // What the CLI was started with, as /proc showed it while it waited: the adapter's arguments, as a pool user.
    const client = request!.client!;
    const env = { ...openaiStandInEnv(model), CODEX_MAX_RETRIES: '0' };
    expect(client.argv).toEqual([codexBinary, ...codexCli.buildArgs({ prompt, maxTurns: 0, model: MODEL }, env)]);
    expect(client.uid).not.toBe(0);
    expect(client.cwd).toBe(run.cwd);
    expect(client.env.OPENAI_API_KEY).toBe(STAND_IN_API_KEY);
  });

  it('runs the shell tool call: the file is written in the working directory by the pool user, its output goes back, then the answer', async () => {
    const prompt = 'Write the file. stand-in:write-file path=out/hello.txt content=hello-from-codex';
    const run = start(prompt);
    const summary = await run.outcome;

    const file = path.join(run.cwd, 'out/hello.txt');
    expect(fs.readFileSync(file, 'utf8')).toBe('hello-from-codex\n');
    expect(fs.statSync(file).uid).toBe(fs.statSync(run.cwd).uid);
    expect(fs.statSync(file).uid).not.toBe(0);

    expect(run.events.map((event) => event.kind)).toEqual(['init', 'raw', 'text', 'raw', 'raw', 'text', 'result']);
    const [, started, completed] = run.raws();
    expect(started).toMatchObject({ type: 'item.started', item: { type: 'command_execution', status: 'in_progress' } });
    expect(completed).toMatchObject({
      type: 'item.completed',
      item: { type: 'command_execution', aggregated_output: 'hello-from-codex\n', exit_code: 0, status: 'completed' },
    });
    expect(summary).toMatchObject({
      error: null,
      turns: 2,
      resultText: 'Wrote the file: hello-from-codex',
      output: 'Writing out/hello.txt.\nWrote the file: hello-from-codex',
    });
    expect(run.chunks.map((chunk) => chunk.type)).toEqual(['chunk', 'tool', 'turn', 'chunk', 'turn', 'system']);
    expect(run.chunks[1]).toEqual({
      type: 'tool',
      toolName: 'Shell',
      content: "Shell: mkdir -p 'out' && printf '%s\\n' 'hello-from-codex' > 'out/hello.txt' && cat 'out/hello.txt'",
    });

    // The second request carried the command's output back as a function_call_output.
    const requests = requestsFor(prompt);
    expect(requests).toHaveLength(2);
    expect(responsesToolOutputsOf(requests[1]!.body)).toEqual([
      {
        callId: expect.stringMatching(/^call_standin_/),
        text: expect.stringMatching(/Process exited with code 0[\s\S]*Output:\nhello-from-codex\n$/),
      },
    ]);
  });

  it('an API error 401 ends the run with Codex’s message and the operator’s hint, asked once', async () => {
    const prompt = 'Fail please. stand-in:error status=401';
    const error = await rejection(start(prompt).outcome);

    expect(error).toBeInstanceOf(AgentProcessError);
    const message = `unexpected status 401 Unauthorized: Incorrect API key provided: ${STAND_IN_API_KEY}, url: ${model.url}/v1/responses, request id: req_standin_401`;
    expect(error.message).toBe(`codex terminou com o código 1: ${message} (${codexCli.failureHint!(message)})`);
    expect((error as AgentProcessError).summary).toMatchObject({
      exitCode: 1,
      resultText: message,
      output: '',
      costUsd: null,
      tokens: null,
    });
    expect(requestsFor(prompt).map((request) => request.status)).toEqual([401]);
  });

  it('a 500 is asked again at both of Codex’s retry levels, (1 + CODEX_MAX_RETRIES)² times, each retry said, then fails with Codex’s own sentence', async () => {
    const prompt = 'Overloaded? stand-in:error status=500';
    const run = start(prompt, { env: { CODEX_MAX_RETRIES: '1' } });
    const error = await rejection(run.outcome);

    expect(requestsFor(prompt).map((request) => request.status)).toEqual([500, 500, 500, 500]);
    const sentence = 'We’re currently experiencing high demand, which may cause temporary errors.';
    expect(error.message).toBe(`codex terminou com o código 1: ${sentence}`);
    expect(run.chunks.filter((chunk) => chunk.type === 'system').map((chunk) => chunk.content)).toEqual([
      `Reconnecting... 1/1 (${sentence})`,
      sentence,
      expect.stringMatching(/^Resultado: 0 turnos \| sessão: /),
    ]);
  });

  it('resumes the thread by its id in a second run in another directory (HOME emptied, the session from the store): the earlier turns are sent, the tokens are this run’s', async () => {
    const first = 'First question. stand-in:text';
    const one = await start(first).outcome;
    const second = 'Second question, after the first.';
    const run = start(second, { run: { resumeSessionId: one.sessionId! } });
    const two = await run.outcome;

    expect(two).toMatchObject({ error: null, sessionId: one.sessionId, resultText: 'OK' });
    expect(run.events[0]).toEqual({ kind: 'init', sessionId: one.sessionId, model: null, cwd: null });
    const [request] = requestsFor(second);
    expect(responsesPromptsOf(request!.body).map((text) => text.trim())).toEqual([first, second]);
    const input = (request!.body as { input: Array<Record<string, unknown>> }).input;
    expect(input).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'message', role: 'assistant', content: [expect.objectContaining({ text: STAND_IN_TEXT })] }),
      ]),
    );
    // turn.completed counts the whole thread (20 + 9); the first run's 10 + 8, read from the rollout
    // file the lease restored, are taken off: this run's 10 + 1.
    expect(run.events.find((event) => event.kind === 'result')).toMatchObject({ tokens: { input: 10, output: 1 } });
    expect(two.tokens).toEqual({ input: 10, output: 1, cacheRead: 0, cacheCreation: 0 });
  });

  it('sandboxes the commands as the permission mode says, as a pool user: workspace-write writes in the working directory, read-only cannot', async () => {
    const write = start('Write. stand-in:write-file path=out/ws.txt content=workspace', { run: { permissionMode: 'workspace-write' } });
    expect(await write.outcome).toMatchObject({ error: null, resultText: 'Wrote the file: workspace' });
    expect(fs.readFileSync(path.join(write.cwd, 'out/ws.txt'), 'utf8')).toBe('workspace\n');

    const read = start('Write. stand-in:write-file path=out/ro.txt content=readonly', { run: { permissionMode: 'read-only' } });
    const summary = await read.outcome;
    expect(summary.resultText).toBe('The tool failed: mkdir: cannot create directory ‘out’: Read-only file system');
    expect(fs.existsSync(path.join(read.cwd, 'out'))).toBe(false);
    // Seen with 0.169.0: a command the sandbox refused is printed as no item at all.
    expect(read.raws().map((line) => line.type)).toEqual(['turn.started']);
  });

  it('gives the system prompt as the model’s instructions, from a file in the run’s HOME', async () => {
    const prompt = 'Who are you?';
    await start(prompt, { run: { systemPrompt: '- Be brief.\nYou are the stand-in agent.' } }).outcome;

    const [request] = requestsFor(prompt);
    const [first] = (request!.body as { input: Array<{ role: string; content: Array<{ text: string }> }> }).input;
    expect(first).toMatchObject({ role: 'developer', content: [{ text: '- Be brief.\nYou are the stand-in agent.' }] });
  });

  it('cancel during a slow stream: Codex dies of the SIGTERM, the connection is dropped, no result line', async () => {
    const prompt = 'Take your time. stand-in:slow every=100';
    const controller = new AbortController();
    const run = start(prompt, { signal: controller.signal });
    const outcome = rejection(run.outcome);
    await until(
      'the slow stream started',
      async () => requestsFor(prompt).length,
      (count) => count === 1,
      30_000,
    );
    const pid = (await until(
      'the run is started',
      async () => pidOf(run),
      (value) => value !== null,
    ))!;
    controller.abort(new Error('cancelled by the test'));
    const error = await outcome;

    expect(error).toBeInstanceOf(AgentCancelledError);
    // No handler: the default action of SIGTERM (a shell would say 143).
    expect((error as AgentCancelledError).summary).toMatchObject({ pid, exitCode: null, signal: 'SIGTERM', output: '', resultText: null });
    expect(alive(pid)).toBe(false);
    const [request] = requestsFor(prompt);
    await until(
      'the stand-in saw the client leave',
      async () => request!.streamCompleted,
      (completed) => completed === false,
      5_000,
    );
    expect(run.events.map((event) => event.kind)).toEqual(['init', 'raw', 'result']);
    expect(run.events[2]).toMatchObject({ kind: 'result', isError: true, subtype: null, resultText: null });
  });

  it('cancel while a command runs ends Codex and its shell, leaves the user no process; the killed thread resumes', async () => {
    const prompt = 'Wait for it. stand-in:sleep seconds=300';
    const controller = new AbortController();
    const run = start(prompt, { signal: controller.signal });
    const outcome = rejection(run.outcome);
    const pidFile = path.join(run.cwd, 'sleeper.pid');
    await until(
      'the command wrote its pid',
      async () => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '',
      Boolean,
      30_000,
    );
    const shell = Number(fs.readFileSync(pidFile, 'utf8'));
    const uid = fs.statSync(pidFile).uid;
    const cli = (await until(
      'the run is started',
      async () => pidOf(run),
      (value) => value !== null,
    ))!;
    // The shell may run before Codex prints the command's item.started.
    await until('Codex printed the command', async () => run.raws().some((line) => line.type === 'item.started'), Boolean, 10_000);
    expect(await processesOf(uid)).toEqual(expect.arrayContaining([cli, shell]));
    // The command runs in a session of its own: the process group kill does not reach it.
    expect(fs.readFileSync(`/proc/${shell}/stat`, 'utf8').split(') ')[1]!.split(' ')[3]).toBe(String(shell));
    controller.abort(new Error('cancelled by the test'));
    const error = await outcome;

    expect(error).toBeInstanceOf(AgentCancelledError);
    expect(alive(cli)).toBe(false);
    expect(alive(shell)).toBe(false);
    expect(await processesOf(uid)).toEqual([]);
    expect(run.raws().at(-1)).toMatchObject({ type: 'item.started', item: { type: 'command_execution' } });
    const sessionId = (error as AgentCancelledError).summary.sessionId!;
    expect(sessionId).toBe((run.events[0] as { sessionId: string }).sessionId);

    // The session of the cancelled run was kept: it resumes, the interrupted call answered "aborted".
    const next = 'Go on after the cancel.';
    const resumed = await start(next, { run: { resumeSessionId: sessionId } }).outcome;
    expect(resumed).toMatchObject({ error: null, sessionId, resultText: 'OK' });
    const [request] = requestsFor(next);
    expect(responsesPromptsOf(request!.body).map((text) => text.trim())).toEqual([prompt, next]);
    const input = (request!.body as { input: Array<Record<string, unknown>> }).input;
    expect(input).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'function_call_output', output: 'aborted' })]));
  });

  it('a resume of a thread it does not have: exit 1, nothing on standard output, the reason on standard error; the model is not asked', async () => {
    const prompt = 'Resume the unknown.';
    const error = await rejection(start(prompt, { run: { resumeSessionId: '01a222de-0000-7000-8000-000000000000' } }).outcome);

    expect(error).toBeInstanceOf(AgentProcessError);
    expect(error.message).toMatch(
      /^codex terminou com o código 1\nstderr: Error: thread\/resume: thread\/resume failed: no rollout found for thread id 01a222de-0000-7000-8000-000000000000/,
    );
    expect(requestsFor(prompt)).toEqual([]);
  });
});
