import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AgentEvent, AgentRunOptions } from '../../activities/agents/agent-cli';
import { agentBaseEnv } from '../../activities/agents/agent-env';
import { claudeCode } from '../../activities/agents/claude-code';
import type { OutputChunk } from '../../lib/live-output';
import { config } from '../../lib/config';
import { repoRoot } from '../../lib/paths';
import {
  AgentCancelledError,
  AgentProcessError,
  DEFAULT_MAX_OUTPUT_CHARS,
  runAgent,
  type RunAgentOptions,
} from '../../activities/agents/run-agent';
import {
  promptsOf,
  standInEnv,
  STAND_IN_TEXT,
  startStandInModel,
  toolResultsOf,
  type RecordedRequest,
  type StandInModel,
} from '../support/stand-in-model';
import { agentWorkspace } from '../support/agent-workspace';
import { rejection, until } from '../support/waiting';
import { requireRoot } from '../support/root';

/**
 * The process layer (docs/agent-process.md) with the pinned Claude Code CLI against the stand-in
 * model (docs/claude-code-cli.md): what the CLI was started with is what /proc showed of it while it
 * waited for the model (the stand-in records it), what it does is what the stand-in scripts.
 */
const claudeCli = path.join(repoRoot, 'node_modules/.bin/claude');
// The project's stand-in for a CLI, only where the test needs a process the real CLI cannot be (said at each test).
const fakeAgent = path.resolve(__dirname, '../fixtures/fake-agent/fake-agent.js');

let workspace: string;
let sessionStore: string;
let model: StandInModel;
beforeAll(async () => {
  requireRoot('agent-process');
  // The root of these runs' working directories, open to the pool's agent users.
  workspace = agentWorkspace('agent-process-');
  sessionStore = fs.mkdtempSync(path.join(config.orchestration.dataDir, 'agent-process-sessions-'));
  model = await startStandInModel();
  model.recordClients();
});
afterAll(async () => {
  await model?.close();
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(sessionStore, { recursive: true, force: true });
});

let runs = 0;
/**
 * Runs the real CLI through runAgent with `prompt`; returns the events seen (`raw` ones apart), the
 * lines it printed, the outcome, and the stand-in's message requests of this run.
 */
function startCli(prompt: string, run: Partial<AgentRunOptions> = {}, overrides: Partial<RunAgentOptions> = {}) {
  runs += 1;
  const cwd = overrides.cwd ?? path.join(workspace, `run-${runs}`);
  const events: AgentEvent[] = [];
  const raws: AgentEvent[] = [];
  const printed: string[] = [];
  const since = Date.now();
  const outcome = runAgent({
    command: claudeCli,
    cli: {
      ...claudeCode,
      parser: () => {
        const parser = claudeCode.parser();
        return { line: (line) => (printed.push(line), parser.line(line)), end: () => parser.end() };
      },
    },
    run: { prompt, maxTurns: 5, ...run },
    cwd,
    workdirRoots: [workspace],
    sessions: { store: sessionStore, agentId: 'agent-process' },
    baseEnv: { ...agentBaseEnv(process.env), ...standInEnv(model), CLAUDE_CODE_MAX_RETRIES: '0' },
    onEvent: (event) => {
      (event.kind === 'raw' ? raws : events).push(event);
    },
    ...overrides,
  });
  const requests = (): RecordedRequest[] =>
    model.messages().filter((request) => request.receivedAt >= since && promptsOf(request.body).at(-1) === prompt);
  return { outcome, events, raws, printed, cwd, requests };
}

/** The first message request of a prompt, once the CLI sent it (the CLI is then waiting for its answer). */
const firstRequest = (run: { requests: () => RecordedRequest[] }) =>
  until(
    'the CLI asks the model',
    async () => run.requests()[0],
    (request) => request !== undefined,
    30_000,
  ).then((request) => request!);

/** The pid a stand-in:sleep tool call wrote (its shell's), once written. */
async function sleeperPid(cwd: string): Promise<number> {
  const file = path.join(cwd, 'sleeper.pid');
  const text = await until(
    'the tool wrote its pid',
    async () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : ''),
    (found) => found !== '',
    30_000,
  );
  return Number(text);
}

/**
 * Waits (bounded) until the process has exited: process.kill(pid, 0) throws ESRCH. With `orphan`, a
 * zombie counts as exited too: an orphan killed with its group is collected by init, not by us, and
 * this machine's init collects on its own schedule.
 */
async function goneWithin(pid: number, boundMs: number, orphan = false): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    try {
      process.kill(pid, 0);
      if (orphan && isZombie(pid)) return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
      throw error;
    }
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function isZombie(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false; // gone between the two looks: kill(pid, 0) will say ESRCH
  }
}

const commandLine = (...options: string[]) => [
  claudeCli,
  '-p',
  '--output-format',
  'stream-json',
  '--verbose',
  '--include-partial-messages',
  '--max-turns',
  '5',
  ...options,
];

describe('running the agent process (the real Claude Code CLI)', () => {
  it('sends the prompt on stdin and reports the session, the streamed text and the result', async () => {
    const prompt = 'Revise o README.\nSegunda linha — ação & "aspas" stand-in:text';
    const { outcome, events, cwd, requests } = startCli(prompt);
    const summary = await outcome;

    const sessionId = summary.sessionId;
    expect(sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(events).toEqual([
      { kind: 'init', sessionId, model: 'claude-opus-5-5', cwd },
      { kind: 'text', text: STAND_IN_TEXT, sessionId },
      expect.objectContaining({ kind: 'result', isError: false, subtype: 'success', resultText: STAND_IN_TEXT, sessionId, turns: 1 }),
    ]);
    // The prompt reached the model as written (standard input), and is not on the command line.
    const [request] = requests();
    expect(promptsOf(request!.body)).toEqual([prompt]);
    expect(request!.client!.argv).toEqual(commandLine('--permission-mode', 'bypassPermissions'));
    expect(summary).toEqual({
      pid: request!.client!.pid,
      exitCode: 0,
      signal: null,
      sessionId,
      // Priced by the CLI: 10 input and 8 output tokens (the stand-in's usage) of its default model.
      costUsd: expect.any(Number),
      durationMs: expect.any(Number),
      turns: 1,
      tokens: { input: 10, output: 8, cacheRead: 0, cacheCreation: 0 },
      resultText: STAND_IN_TEXT,
      output: STAND_IN_TEXT,
      outputTruncated: false,
      stderr: '',
      error: null,
    });
    expect(summary.costUsd).toBeGreaterThan(0);
  });

  it('passes --resume with the session id, the model and the permission mode, and keeps the session', async () => {
    const first = await startCli('Remember this. stand-in:text').outcome;
    const sessionId = first.sessionId!;
    const { outcome, printed, requests } = startCli('Continue', {
      resumeSessionId: sessionId,
      model: 'claude-sonnet-4-6',
      permissionMode: 'plan',
    });
    const summary = await outcome;

    // The resumed conversation: its first prompt, then this one.
    const [request] = requests();
    expect(promptsOf(request!.body)).toEqual(['Remember this. stand-in:text', 'Continue']);
    expect(request!.client!.argv).toEqual(commandLine('--permission-mode', 'plan', '--model', 'claude-sonnet-4-6', '--resume', sessionId));
    expect(request!.body).toMatchObject({ model: 'claude-sonnet-4-6' });
    expect(JSON.parse(printed[0]!)).toMatchObject({
      type: 'system',
      subtype: 'init',
      session_id: sessionId,
      model: 'claude-sonnet-4-6',
      permissionMode: 'plan',
    });
    expect(summary).toMatchObject({ sessionId, output: 'OK', resultText: 'OK', turns: 1, error: null });
  });

  it('injects secrets into the environment only: never the argument list, never the service credentials', async () => {
    const secret = 'ghp_s3cr3t-value-0123456789';
    const run = startCli('Secrets? stand-in:text', {}, { secrets: { GITHUB_TOKEN: secret, PATH_EXTRA: 'x' } });
    await run.outcome;
    const { client } = run.requests()[0]!;

    expect(client!.env.GITHUB_TOKEN).toBe(secret);
    expect(client!.env.PATH_EXTRA).toBe('x');
    expect(client!.argv.join(' ')).not.toContain(secret);
    expect(process.env.AGENT_SECRETS_KEY).toBeDefined();
    expect(client!.env.AGENT_SECRETS_KEY).toBeUndefined();
    expect(client!.env.MYSQL_DATABASE).toBeUndefined();
  });

  it("gives the agent its run's record and attempt; a secret of the same name does not pass for them", async () => {
    const run = startCli(
      'Which run? stand-in:text',
      {},
      { secrets: { AGENT_EXECUTION_ID: 'forged' }, runEnv: { AGENT_EXECUTION_ID: 'execution-1', AGENT_EXECUTION_ATTEMPT: '2' } },
    );
    await run.outcome;
    const { client } = run.requests()[0]!;

    expect(client!.env.AGENT_EXECUTION_ID).toBe('execution-1');
    expect(client!.env.AGENT_EXECUTION_ATTEMPT).toBe('2');
  });

  it('refuses a secret name that is not an environment variable name, starting nothing', async () => {
    const run = startCli(`Never asked ${randomUUID()}`, {}, { secrets: { 'BAD=NAME': 'v' } });
    const error = await rejection(run.outcome);
    expect(error.name).toBe('AgentOptionsError');
    expect(error.message).toBe('o nome de segredo "BAD=NAME" não é um nome válido de variável de ambiente');
    expect(run.requests()).toEqual([]);
  });

  it('creates a missing working directory and runs the agent in it', async () => {
    const cwd = path.join(workspace, 'missing', 'nested', 'project');
    expect(fs.existsSync(cwd)).toBe(false);
    const run = startCli('Where am I? stand-in:text', {}, { cwd });
    await run.outcome;

    expect(fs.statSync(cwd).isDirectory()).toBe(true);
    expect(run.events[0]).toMatchObject({ kind: 'init', cwd });
    expect(fs.realpathSync(run.requests()[0]!.client!.cwd)).toBe(fs.realpathSync(cwd));
  });

  it('reports a non-zero exit as a failure with the result error and the end of stderr', async () => {
    // The CLI's answer to a session it does not have: an error result, the same line on stderr, exit 1.
    const missing = '11111111-2222-4333-8444-555555555555';
    const chunks: OutputChunk[] = [];
    const { outcome, requests } = startCli('Go on', { resumeSessionId: missing }, { onOutput: (chunk) => void chunks.push(chunk) });
    const error = await rejection(outcome);
    const line = `No conversation found with session ID: ${missing}`;
    // The terminal's lines: the result summary, and standard error as a stderr line.
    expect(chunks).toHaveLength(2);
    expect(chunks).toEqual(
      expect.arrayContaining([
        { type: 'system', content: expect.stringMatching(/^Resultado: 0 turnos \| custo: \$0\.0000 \| /) },
        { type: 'stderr', content: line },
      ]),
    );

    expect(error).toBeInstanceOf(AgentProcessError);
    expect(error.message).toBe(`claude-code terminou com o código 1: ${line}\nstderr: ${line}`);
    const summary = (error as AgentProcessError).summary;
    expect(summary).toMatchObject({
      exitCode: 1,
      signal: null,
      costUsd: 0,
      turns: 0,
      resultText: line,
      output: '',
      error: error.message,
      stderr: `${line}\n`,
    });
    expect(summary.sessionId).toBe(missing);
    expect(requests()).toEqual([]);
  });

  it('reports a wrong argument list through the CLI exit code and its stderr', async () => {
    const chunks: OutputChunk[] = [];
    const { outcome } = startCli(
      'Never asked',
      {},
      {
        cli: { ...claudeCode, buildArgs: () => ['-p', '--output-format', 'stream-json', '--max-turns', '1'] },
        onOutput: (chunk) => void chunks.push(chunk),
      },
    );
    const error = await rejection(outcome);
    expect(error.message).toBe(
      'claude-code terminou com o código 1\nstderr: Error: When using --print, --output-format=stream-json requires --verbose',
    );
    expect(chunks).toEqual([{ type: 'stderr', content: 'Error: When using --print, --output-format=stream-json requires --verbose' }]);
  });

  it('reports a command that cannot start', async () => {
    const { outcome } = startCli('Never asked', {}, { command: path.join(workspace, 'no-such-agent') });
    const error = await rejection(outcome);
    expect(error).toBeInstanceOf(AgentProcessError);
    expect(error.message).toBe(`não foi possível iniciar ${path.join(workspace, 'no-such-agent')}: No such file or directory`);
  });

  it('on abort kills the agent and the tool it started, and says it was cancelled', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled by the user');
    // The CLI takes 0.2-0.4 s to end mid-tool here, over a second on a loaded machine: a grace that lets it.
    const run = startCli('Wait. stand-in:sleep seconds=300', {}, { signal: controller.signal, killGraceMs: 5_000 });
    const outcome = rejection(run.outcome);
    const shell = await sleeperPid(run.cwd);
    const cli = (await firstRequest(run)).client!.pid;
    controller.abort(reason);
    const error = await outcome;

    expect(error).toBeInstanceOf(AgentCancelledError);
    expect(error.cause).toBe(reason);
    // The CLI ends on SIGTERM by itself, with 143.
    expect((error as AgentCancelledError).summary).toMatchObject({ pid: cli, exitCode: 143, signal: null, error: null });
    expect(run.events.filter((event) => event.kind === 'result')).toEqual([]);
    expect(await goneWithin(cli, 1_500)).toBe(true);
    // The tool's shell leads a session of its own (the CLI starts it so): ended by the CLI or, at the latest, by the lease's end.
    expect(await goneWithin(shell, 1_500, true)).toBe(true);
  });

  it('escalates to SIGKILL after the grace period when the agent does not end on SIGTERM; its tool ends too', async () => {
    const controller = new AbortController();
    const run = startCli('Wait. stand-in:sleep seconds=300', {}, { signal: controller.signal, killGraceMs: 1_000 });
    const outcome = rejection(run.outcome);
    const shell = await sleeperPid(run.cwd);
    const cli = (await firstRequest(run)).client!.pid;
    // Stopped, as a hung process: it cannot act on SIGTERM (pending until it would continue); SIGKILL still ends it.
    process.kill(cli, 'SIGSTOP');
    const abortedAt = Date.now();
    controller.abort();
    const error = await outcome;

    expect(error).toBeInstanceOf(AgentCancelledError);
    expect((error as AgentCancelledError).summary).toMatchObject({ pid: cli, exitCode: null, signal: 'SIGKILL' });
    expect(Date.now() - abortedAt).toBeGreaterThanOrEqual(1_000);
    expect(await goneWithin(cli, 500)).toBe(true);
    expect(await goneWithin(shell, 1_500, true)).toBe(true);
  });

  /**
   * The fake agent leaving a child in its own process group (FAKE_AGENT_SPAWN_CHILD, ORPHAN_CHILD), run
   * as the service user: no lease, which would end every process of its user, so only the group kill
   * can reach the child.
   */
  const orphaningFakeAgent = (recordFile: string, knobs: Record<string, string>): RunAgentOptions => ({
    command: fakeAgent,
    cli: claudeCode,
    run: { prompt: 'Say hello', maxTurns: 5 },
    cwd: path.join(workspace, `fake-${randomUUID()}`),
    workdirRoots: [workspace],
    isolation: { mode: 'service-user', reason: 'the test' },
    baseEnv: {
      ...agentBaseEnv(process.env),
      FAKE_AGENT_RECORD: recordFile,
      FAKE_AGENT_SPAWN_CHILD: '1',
      FAKE_AGENT_ORPHAN_CHILD: '1',
      ...knobs,
    },
  });

  // Fake agent: the real CLI starts each tool in a session and process group of its own (a Bash
  // tool's shell leads its group), so none of its tools is in its group; this is the group kill for a
  // CLI whose tool stays in its group and which leaves it running on SIGTERM.
  it('on abort reaches a tool the agent leaves running, through the process group', async () => {
    const controller = new AbortController();
    const recordFile = path.join(workspace, `record-${randomUUID()}.json`);
    const events: AgentEvent[] = [];
    const outcome = runAgent({
      ...orphaningFakeAgent(recordFile, { FAKE_AGENT_CHUNKS: '10000', FAKE_AGENT_DELAY_MS: '20' }),
      signal: controller.signal,
      onEvent: (event) => {
        events.push(event);
        if (event.kind === 'text') controller.abort();
      },
    });
    expect(await rejection(outcome)).toBeInstanceOf(AgentCancelledError);
    const { pid, childPid } = JSON.parse(fs.readFileSync(recordFile, 'utf8')) as { pid: number; childPid: number };
    expect(await goneWithin(pid, 1_500)).toBe(true);
    expect(await goneWithin(childPid, 1_500, true)).toBe(true);
  });

  // Fake agent: as above, a process left in the agent's own group, which the real CLI never leaves
  // (its tools have groups of their own; what they leave running is ended with the user's processes, next test).
  it('after a normal exit, ends what the agent left running in its group', async () => {
    const recordFile = path.join(workspace, `record-${randomUUID()}.json`);
    const summary = await runAgent(orphaningFakeAgent(recordFile, { FAKE_AGENT_CHUNKS: '1' }));
    expect(summary.exitCode).toBe(0);
    const { childPid } = JSON.parse(fs.readFileSync(recordFile, 'utf8')) as { childPid: number };
    expect(await goneWithin(childPid, 1_500, true)).toBe(true);
  });

  it('after a normal exit, ends what a tool of the CLI left running in the background', async () => {
    const prompt = `Start a server ${randomUUID()}`;
    model.enqueue({
      kind: 'tool_use',
      name: 'Bash',
      input: { command: 'tail -f /dev/null > /dev/null 2>&1 & echo $!', description: 'Start in the background' },
      when: (request) => promptsOf(request.body).at(-1) === prompt && toolResultsOf(request.body).length === 0,
    });
    const run = startCli(prompt);
    expect((await run.outcome).exitCode).toBe(0);
    const [, answer] = run.requests();
    const background = Number(toolResultsOf(answer!.body)[0]!.text.trim());
    expect(background).toBeGreaterThan(0);
    expect(await goneWithin(background, 1_500, true)).toBe(true);
  });

  it('does not start the agent when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const run = startCli(`Never asked ${randomUUID()}`, {}, { signal: controller.signal });
    const error = await rejection(run.outcome);
    expect(error).toBeInstanceOf(AgentCancelledError);
    expect((error as AgentCancelledError).summary.pid).toBeNull();
    expect(run.events).toEqual([]);
    expect(run.requests()).toEqual([]);
  });

  it('delivers every line of a big output but keeps a bounded output with a note', async () => {
    const run = startCli('Write a lot. stand-in:long chars=100000');
    const summary = await run.outcome;

    // Every line the CLI printed reached onEvent: the 100 deltas of the answer as they came, then the whole text.
    expect(run.events.length + run.raws.length).toBe(run.printed.filter((line) => line.trim() !== '').length);
    const deltas = run.raws.flatMap((event) => {
      const line = JSON.parse((event as { line: string }).line) as { type: string; event?: { delta?: { type: string; text: string } } };
      return line.type === 'stream_event' && line.event?.delta?.type === 'text_delta' ? [line.event.delta.text] : [];
    });
    expect(deltas).toHaveLength(100);
    const texts = run.events.filter((event): event is Extract<AgentEvent, { kind: 'text' }> => event.kind === 'text');
    expect(texts).toHaveLength(1);
    const fullOutput = texts[0]!.text;
    expect(deltas.join('')).toBe(fullOutput);
    expect(fullOutput).toHaveLength(100_000);
    expect(summary.outputTruncated).toBe(true);
    expect(summary.output).toBe(
      `${fullOutput.slice(0, DEFAULT_MAX_OUTPUT_CHARS)}\n[output cut: ${fullOutput.length - DEFAULT_MAX_OUTPUT_CHARS} more characters not kept]`,
    );
    expect(summary.resultText).toBe(
      `${fullOutput.slice(0, DEFAULT_MAX_OUTPUT_CHARS)}\n[cut: ${fullOutput.length - DEFAULT_MAX_OUTPUT_CHARS} more characters not kept]`,
    );
  });

  it('ends the run with the error of a failing onEvent, as thrown, and kills the agent', async () => {
    const failure = new Error('redis is down');
    let cli = 0;
    const run = startCli(
      'Take your time. stand-in:slow deltas=600 every=100',
      {},
      {
        onEvent: (event) => {
          // The model streams: the CLI asked it, so the stand-in has its process.
          if (event.kind === 'raw' && event.line.includes('"text_delta"')) {
            cli = run.requests()[0]!.client!.pid;
            throw failure;
          }
        },
      },
    );
    expect(await rejection(run.outcome)).toBe(failure);
    expect(cli).toBeGreaterThan(0);
    expect(await goneWithin(cli, 1_500)).toBe(true);
  });
});
