import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentEvent, AgentRunOptions } from '../../activities/agents/agent-cli';
import { agentBaseEnv } from '../../activities/agents/agent-env';
import { claudeCode } from '../../activities/agents/claude-code';
import type { OutputChunk } from '../../lib/live-output';
import {
  AgentCancelledError,
  AgentProcessError,
  DEFAULT_MAX_OUTPUT_CHARS,
  runAgent,
  type AgentRunSummary,
  type RunAgentOptions,
} from '../../activities/agents/run-agent';
import { agentWorkspace } from '../support/agent-workspace';
import { rejection } from '../support/waiting';

// The project's stand-in for Claude Code, run as a real process (its knobs: the top of the file).
const fakeAgent = path.resolve(__dirname, '../fixtures/fake-agent/fake-agent.js');

let workspace: string;
beforeAll(() => {
  // The root of these runs' working directories, open to the pool's agent users.
  workspace = agentWorkspace('agent-process-');
});
afterAll(() => {
  fs.rmSync(workspace, { recursive: true, force: true });
});

interface Recorded {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  pid: number;
  childPid: number | null;
  stdin: string;
}

let runs = 0;
/** Runs the fake agent with its knobs; returns the events seen, the record file and the outcome. */
function startFakeAgent(
  knobs: Record<string, string>,
  run: Partial<AgentRunOptions> = {},
  overrides: Partial<RunAgentOptions> = {},
) {
  runs += 1;
  const recordFile = path.join(workspace, `record-${runs}.json`);
  const events: AgentEvent[] = [];
  const outcome = runAgent({
    command: fakeAgent,
    cli: claudeCode,
    run: { prompt: 'Say hello', maxTurns: 5, ...run },
    cwd: path.join(workspace, `run-${runs}`),
    workdirRoots: [workspace],
    baseEnv: { ...agentBaseEnv(process.env), FAKE_AGENT_RECORD: recordFile, ...knobs },
    onEvent: (event) => {
      events.push(event);
    },
    ...overrides,
  });
  const record = (): Recorded => JSON.parse(fs.readFileSync(recordFile, 'utf8')) as Recorded;
  return { outcome, events, record };
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

describe('running the agent process (real stand-in CLI)', () => {
  it('sends the prompt on stdin and reports the session, the streamed text and the result', async () => {
    const prompt = 'Revise o README.\nSegunda linha — ação & "aspas"';
    const { outcome, events, record } = startFakeAgent({}, { prompt });
    const summary = await outcome;

    const sessionId = summary.sessionId;
    expect(events[0]).toEqual({ kind: 'init', sessionId, model: 'fake-model', cwd: record().cwd });
    expect(sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(events.map((event) => event.kind)).toEqual(['init', 'text', 'text', 'text', 'result']);
    expect(events[1]).toEqual({ kind: 'text', text: `Received prompt: ${prompt}`, sessionId });
    expect(record().stdin).toBe(prompt);
    expect(record().argv).toEqual(['-p', '--output-format', 'stream-json', '--verbose', '--include-partial-messages', '--max-turns', '5', '--permission-mode', 'bypassPermissions']);
    expect(summary).toEqual({
      pid: record().pid,
      exitCode: 0,
      signal: null,
      sessionId,
      costUsd: 0.0421,
      durationMs: expect.any(Number),
      turns: 3,
      // The fake agent's result has no usage.
      tokens: null,
      resultText: `Done: ${prompt}`,
      output: `Received prompt: ${prompt}\nWorking, step 2 of 3.\nWorking, step 3 of 3.`,
      outputTruncated: false,
      stderr: '',
      error: null,
    });
  });

  it('passes --resume with the session id, the model and the permission mode, and keeps the session', async () => {
    const { outcome, record } = startFakeAgent(
      { FAKE_AGENT_CHUNKS: '1' },
      { prompt: 'Continue', resumeSessionId: 'sess-42', model: 'claude-opus-4-1', permissionMode: 'plan' },
    );
    const summary = await outcome;

    expect(record().argv).toEqual([
      '-p', '--output-format', 'stream-json', '--verbose', '--include-partial-messages', '--max-turns', '5', '--permission-mode', 'plan',
      '--model', 'claude-opus-4-1', '--resume', 'sess-42',
    ]);
    expect(summary.sessionId).toBe('sess-42');
    expect(summary.output).toBe('Resumed session sess-42. Received prompt: Continue');
    expect(summary.turns).toBe(1);
  });

  it('injects secrets into the environment only: never the argument list, never the service credentials', async () => {
    const secret = 'ghp_s3cr3t-value-0123456789';
    const { outcome, record } = startFakeAgent({}, {}, { secrets: { GITHUB_TOKEN: secret, PATH_EXTRA: 'x' } });
    await outcome;

    expect(record().env.GITHUB_TOKEN).toBe(secret);
    expect(record().env.PATH_EXTRA).toBe('x');
    expect(record().argv.join(' ')).not.toContain(secret);
    expect(process.env.AGENT_SECRETS_KEY).toBeDefined();
    expect(record().env.AGENT_SECRETS_KEY).toBeUndefined();
    expect(record().env.MYSQL_DATABASE).toBeUndefined();
  });

  it('refuses a secret name that is not an environment variable name, starting nothing', async () => {
    const { outcome } = startFakeAgent({}, {}, { secrets: { 'BAD=NAME': 'v' } });
    const error = await rejection(outcome);
    expect(error.name).toBe('AgentOptionsError');
    expect(error.message).toBe('secret name "BAD=NAME" is not a valid environment variable name');
  });

  it('creates a missing working directory and runs the agent in it', async () => {
    const cwd = path.join(workspace, 'missing', 'nested', 'project');
    expect(fs.existsSync(cwd)).toBe(false);
    const { outcome, record } = startFakeAgent({ FAKE_AGENT_CHUNKS: '1' }, {}, { cwd });
    await outcome;

    expect(fs.statSync(cwd).isDirectory()).toBe(true);
    expect(fs.realpathSync(record().cwd)).toBe(fs.realpathSync(cwd));
  });

  it('reports a non-zero exit as a failure with the result error and the end of stderr', async () => {
    const chunks: OutputChunk[] = [];
    const { outcome } = startFakeAgent({ FAKE_AGENT_FAIL: '1', FAKE_AGENT_CHUNKS: '1' }, {}, { onOutput: (chunk) => void chunks.push(chunk) });
    const error = await rejection(outcome);
    // The terminal's lines: the text, its turn, the result summary, and standard error as a stderr line.
    expect(chunks.filter((chunk) => chunk.type !== 'system')).toEqual(
      expect.arrayContaining([
        { type: 'chunk', content: 'Received prompt: Say hello' },
        { type: 'turn', content: 'Turno 1', turn: 1 },
        { type: 'stderr', content: 'fake-agent: failing on purpose (FAKE_AGENT_FAIL=1)' },
      ]),
    );
    expect(chunks).toContainEqual({ type: 'system', content: expect.stringMatching(/^Resultado: 1 turnos \| custo: \$0\.0421 \| /) });

    expect(error).toBeInstanceOf(AgentProcessError);
    expect(error.message).toBe(
      'claude-code terminou com o código 2: fake agent failure (FAKE_AGENT_FAIL=1)\nstderr: fake-agent: failing on purpose (FAKE_AGENT_FAIL=1)',
    );
    const summary = (error as AgentProcessError).summary;
    expect(summary).toMatchObject({ exitCode: 2, signal: null, costUsd: 0.0421, turns: 1, error: error.message, stderr: 'fake-agent: failing on purpose (FAKE_AGENT_FAIL=1)\n' });
    expect(summary.sessionId).toEqual(expect.any(String));
  });

  it('reports a wrong argument list through the CLI exit code and its stderr', async () => {
    const { outcome } = startFakeAgent({}, {}, { cli: { ...claudeCode, buildArgs: () => ['-p', '--output-format', 'stream-json', '--max-turns', '1'] } });
    const error = await rejection(outcome);
    expect(error.message).toBe(
      'claude-code terminou com o código 1\nstderr: fake-agent: When using --print, --output-format=stream-json requires --verbose',
    );
  });

  it('reports a command that cannot start', async () => {
    const { outcome } = startFakeAgent({}, {}, { command: path.join(workspace, 'no-such-agent') });
    const error = await rejection(outcome);
    expect(error).toBeInstanceOf(AgentProcessError);
    expect(error.message).toBe(`não foi possível iniciar ${path.join(workspace, 'no-such-agent')}: No such file or directory`);
  });

  it('on abort kills the agent and the tool it started, and says it was cancelled', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled by the user');
    const { outcome, events, record } = startFakeAgent(
      { FAKE_AGENT_CHUNKS: '10000', FAKE_AGENT_DELAY_MS: '20', FAKE_AGENT_SPAWN_CHILD: '1' },
      {},
      {
        signal: controller.signal,
        onEvent: (event) => {
          events.push(event);
          if (event.kind === 'text') controller.abort(reason);
        },
      },
    );
    const error = await rejection(outcome);
    const { pid, childPid } = record();

    expect(error).toBeInstanceOf(AgentCancelledError);
    expect(error.cause).toBe(reason);
    expect((error as AgentCancelledError).summary).toMatchObject({ pid, exitCode: 143, signal: null, error: null });
    expect(events.filter((event) => event.kind === 'result')).toEqual([]);
    expect(childPid).toEqual(expect.any(Number));
    expect(await goneWithin(pid, 1_500)).toBe(true);
    expect(await goneWithin(childPid as number, 1_500)).toBe(true);
  });

  it('escalates to SIGKILL after the grace period when the agent ignores SIGTERM; its tool dies with the group', async () => {
    const controller = new AbortController();
    const { outcome, events, record } = startFakeAgent(
      { FAKE_AGENT_CHUNKS: '10000', FAKE_AGENT_DELAY_MS: '20', FAKE_AGENT_SPAWN_CHILD: '1', FAKE_AGENT_IGNORE_SIGTERM: '1' },
      {},
      {
        signal: controller.signal,
        killGraceMs: 1_000,
        onEvent: (event) => {
          events.push(event);
          if (event.kind === 'text') controller.abort();
        },
      },
    );
    const error = await rejection(outcome);
    const { pid, childPid } = record();

    expect(error).toBeInstanceOf(AgentCancelledError);
    expect((error as AgentCancelledError).summary).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
    expect(await goneWithin(pid, 500)).toBe(true);
    expect(await goneWithin(childPid as number, 1_500)).toBe(true);
  });

  it('on abort reaches a tool the agent leaves running, through the process group', async () => {
    const controller = new AbortController();
    const { outcome, events, record } = startFakeAgent(
      { FAKE_AGENT_CHUNKS: '10000', FAKE_AGENT_DELAY_MS: '20', FAKE_AGENT_SPAWN_CHILD: '1', FAKE_AGENT_ORPHAN_CHILD: '1' },
      {},
      {
        signal: controller.signal,
        onEvent: (event) => {
          events.push(event);
          if (event.kind === 'text') controller.abort();
        },
      },
    );
    expect(await rejection(outcome)).toBeInstanceOf(AgentCancelledError);
    const { pid, childPid } = record();
    expect(await goneWithin(pid, 1_500)).toBe(true);
    expect(await goneWithin(childPid as number, 1_500, true)).toBe(true);
  });

  it('after a normal exit, ends what the agent left running in its group', async () => {
    const { outcome, record } = startFakeAgent({ FAKE_AGENT_CHUNKS: '1', FAKE_AGENT_SPAWN_CHILD: '1', FAKE_AGENT_ORPHAN_CHILD: '1' });
    expect((await outcome).exitCode).toBe(0);
    expect(await goneWithin(record().childPid as number, 1_500, true)).toBe(true);
  });

  it('does not start the agent when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const { outcome, events } = startFakeAgent({}, {}, { signal: controller.signal });
    const error = await rejection(outcome);
    expect(error).toBeInstanceOf(AgentCancelledError);
    expect((error as AgentCancelledError).summary.pid).toBeNull();
    expect(events).toEqual([]);
  });

  it('delivers every line of a big output but keeps a bounded output with a note', async () => {
    const { outcome, events } = startFakeAgent({ FAKE_AGENT_BIG_LINES: '50', FAKE_AGENT_BIG_LINE_CHARS: '10000' }, { prompt: 'P' });
    const summary = await outcome;

    const fullOutput = ['Received prompt: P', 'Working, step 2 of 3.', 'Working, step 3 of 3.', ...Array(50).fill('x'.repeat(10_000))].join('\n');
    expect(events.filter((event) => event.kind === 'text')).toHaveLength(53);
    expect(summary.outputTruncated).toBe(true);
    expect(summary.output).toBe(
      `${fullOutput.slice(0, DEFAULT_MAX_OUTPUT_CHARS)}\n[output cut: ${fullOutput.length - DEFAULT_MAX_OUTPUT_CHARS} more characters not kept]`,
    );
    expect(summary.resultText).toBe('Done: P');
  });

  it('ends the run with the error of a failing onEvent, as thrown, and kills the agent', async () => {
    const failure = new Error('redis is down');
    const { outcome, record } = startFakeAgent(
      { FAKE_AGENT_CHUNKS: '10000', FAKE_AGENT_DELAY_MS: '20' },
      {},
      {
        onEvent: (event) => {
          if (event.kind === 'text') throw failure;
        },
      },
    );
    expect(await rejection(outcome)).toBe(failure);
    expect(await goneWithin(record().pid, 1_500)).toBe(true);
  });
});
