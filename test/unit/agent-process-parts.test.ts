import { spawn } from 'node:child_process';
import { agentBaseEnv } from '../../activities/agents/agent-env';
import { claudeCode } from '../../activities/agents/claude-code';
import { codexCli } from '../../activities/agents/codex';
import { geminiCli } from '../../activities/agents/gemini';
import { agentRunConfigOf } from '../../activities/agents/run-options';
import { cut, HeadText, TailText } from '../../activities/agents/process/bounded-text';
import { DeliveryQueue } from '../../activities/agents/process/delivery-queue';
import { groupAlive, groupGone } from '../../activities/agents/process/process-group';
import { endingFailure, type EndingFacts } from '../../activities/agents/process/run-ending';
import { RunKills } from '../../activities/agents/process/run-kills';
import { AgentCancelledError, AgentProcessError, AgentTimeoutError, emptySummary } from '../../activities/agents/process/run-summary';
import { startRunHeartbeat } from '../../activities/agents/run-heartbeat';

/** The parts of runAgent (activities/agents/process/) and of the run activity, each on its own. */

describe('bounded texts', () => {
  it('keeps the head of the output with a note of what was cut, the tail of stderr, and cuts a result', () => {
    const head = new HeadText(5);
    head.append('abc');
    head.append('defgh');
    expect(head.truncated).toBe(true);
    expect(head.text()).toBe('abcde\n[output cut: 3 more characters not kept]');
    const tail = new TailText(4);
    for (const piece of ['12345', '678', '9']) tail.append(piece);
    expect(tail.text()).toBe('6789');
    expect(cut('abcdef', 4)).toBe('abcd\n[cut: 2 more characters not kept]');
    expect(cut('abc', 4)).toBe('abc');
  });
});

describe('DeliveryQueue', () => {
  it('delivers in order, one after another, and stops at the first failure, which it keeps', async () => {
    const seen: number[] = [];
    let failures = 0;
    const queue = new DeliveryQueue(() => (failures += 1));
    queue.enqueue(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      seen.push(1);
    });
    queue.enqueue(() => void seen.push(2));
    const boom = new Error('publish failed');
    queue.enqueue(() => {
      throw boom;
    });
    queue.enqueue(() => void seen.push(4));
    await queue.drained();
    expect(seen).toEqual([1, 2]);
    expect(queue.failed).toEqual({ error: boom });
    // The failure terminates the run once; what was queued after it is skipped.
    expect(failures).toBe(1);
  });
});

describe('RunKills', () => {
  it('ends the whole process group on abort: SIGTERM, then SIGKILL after the grace', async () => {
    // A group leader ignoring SIGTERM, with a child in its group.
    const child = spawn('sh', ['-c', 'trap "" TERM; sleep 30 & wait'], { detached: true, stdio: 'ignore' });
    const pid = child.pid!;
    const kills = new RunKills(pid, 100);
    const abort = new AbortController();
    kills.watch(abort.signal);
    expect(groupAlive(pid)).toBe(true);
    abort.abort(new Error('cancelled'));
    expect(kills.cancelled).toBe(true);
    expect(kills.timedOut).toBe(false);
    await groupGone(pid, 3_000);
    expect(groupAlive(pid)).toBe(false);
    kills.dispose();
  });

  it('times out at its limit unless the agent exited first', async () => {
    const limited = new RunKills(undefined, 100);
    limited.limitTime(10);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(limited.timedOut).toBe(true);
    const exited = new RunKills(undefined, 100);
    exited.limitTime(10);
    exited.agentExited();
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(exited.timedOut).toBe(false);
  });
});

describe('endingFailure', () => {
  const facts = (more: Partial<EndingFacts>): EndingFacts => ({
    command: 'claude',
    cli: claudeCode,
    ending: { code: 0, signal: null },
    throughSetpriv: false,
    stderrTail: '',
    cancelled: false,
    cancelReason: undefined,
    timedOut: false,
    timeLimitMs: undefined,
    timedOutGroupGone: async () => undefined,
    deliveryFailure: null,
    resultIsError: false,
    ...more,
  });

  it('says nothing of a clean exit, and names the failure of each other ending in its order', async () => {
    expect(await endingFailure(emptySummary(), facts({}))).toBeNull();

    const notStarted = await endingFailure(emptySummary(), facts({ ending: { startError: new Error('spawn claude ENOENT') } }));
    expect(notStarted?.error).toBeInstanceOf(AgentProcessError);
    expect((notStarted?.error as AgentProcessError).summary.error).toBe('não foi possível iniciar claude: spawn claude ENOENT');

    const cancelled = await endingFailure(emptySummary(), facts({ ending: { code: 143, signal: null }, cancelled: true, timedOut: true }));
    expect(cancelled?.error).toBeInstanceOf(AgentCancelledError);

    let waited = false;
    const timedOut = await endingFailure(
      emptySummary(),
      facts({
        ending: { code: null, signal: 'SIGTERM' },
        timedOut: true,
        timeLimitMs: 60_000,
        timedOutGroupGone: async () => void (waited = true),
      }),
    );
    expect(timedOut?.error).toBeInstanceOf(AgentTimeoutError);
    expect(waited).toBe(true);

    const mine = new Error('publishing failed');
    expect(await endingFailure(emptySummary(), facts({ ending: { code: 2, signal: null }, deliveryFailure: { error: mine } }))).toEqual({
      error: mine,
    });

    const summary = emptySummary();
    summary.resultText = 'it broke';
    const failed = await endingFailure(summary, facts({ ending: { code: 2, signal: null }, resultIsError: true, stderrTail: 'oops\n' }));
    expect((failed?.error as AgentProcessError).message).toBe('claude-code terminou com o código 2: it broke\nstderr: oops');
    expect(summary.exitCode).toBe(2);
  });
});

describe('the run activity heartbeat', () => {
  it('beats at once without details, and with the output progress once the agent is spawned', () => {
    const beats: unknown[] = [];
    let seq = 7;
    const heartbeat = startRunHeartbeat(
      () => seq,
      (details) => beats.push(details),
      60_000,
    );
    heartbeat.spawned();
    seq = 9;
    heartbeat.spawned();
    heartbeat.stop();
    expect(beats).toEqual([undefined, { seq: 7 }, { seq: 9 }]);
  });
});

describe('Claude Code specifics behind its adapter', () => {
  it('keeps its environment settings, names its session files, and defaults its permission mode', () => {
    const env = agentBaseEnv({ ANTHROPIC_API_KEY: 'k', CLAUDE_CODE_X: '1', OPENAI_API_KEY: 'o', LC_ALL: 'C' }, claudeCode);
    expect(env).toEqual({ ANTHROPIC_API_KEY: 'k', CLAUDE_CODE_X: '1', LC_ALL: 'C' });
    expect(agentBaseEnv({ OPENAI_API_KEY: 'o', LC_ALL: 'C' }, { envPrefixes: ['OPENAI_'] })).toEqual({ OPENAI_API_KEY: 'o', LC_ALL: 'C' });
    // The model keys read from files (<NAME>_FILE): each reaches only its own CLI's process.
    const fromFiles = { ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o', CODEX_API_KEY: 'c', GEMINI_API_KEY: 'g' };
    expect(agentBaseEnv({ LC_ALL: 'C' }, claudeCode, fromFiles)).toEqual({ ANTHROPIC_API_KEY: 'a', LC_ALL: 'C' });
    expect(agentBaseEnv({ LC_ALL: 'C' }, codexCli, fromFiles)).toEqual({ OPENAI_API_KEY: 'o', CODEX_API_KEY: 'c', LC_ALL: 'C' });
    expect(agentBaseEnv({ LC_ALL: 'C' }, geminiCli, fromFiles)).toEqual({ GEMINI_API_KEY: 'g', LC_ALL: 'C' });
    expect(claudeCode.sessions.dir).toEqual(['.claude', 'projects']);
    expect(claudeCode.sessions.depth).toBe(1);
    expect(claudeCode.sessions.matches('0b4a6c3e-5f1d.jsonl', '0b4a6c3e-5f1d')).toBe(true);
    expect(claudeCode.sessions.matches('0b4a6c3e-5f1d.json', '0b4a6c3e-5f1d')).toBe(false);
    expect(claudeCode.sessions.matches('x.jsonl', '../x')).toBe(false);
    const agent = { instructions: '', allowedTools: '', maxTurns: 0 };
    expect(agentRunConfigOf({ ...agent, permissionMode: '' }).permissionMode).toBe('bypassPermissions');
    expect(agentRunConfigOf({ ...agent, permissionMode: 'plan' }).permissionMode).toBe('plan');
    const other = { permissionModes: ['read-only', 'auto'], defaultPermissionMode: 'auto' };
    expect(agentRunConfigOf({ ...agent, permissionMode: 'plan' }, other).permissionMode).toBe('auto');
  });
});
