import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { claudeCode } from '../../activities/agents/claude-code';
import { prepareAgentHost } from '../../activities/agents/agent-host';
import { pruneStore } from '../../activities/agents/agent-sessions';
import { DEFAULT_LEASE_DIR, leaseAgentUser, processesOf } from '../../activities/agents/agent-users';
import { SETPRIV } from '../../activities/agents/parent-death';
import { agentBaseEnv } from '../../activities/agents/agent-env';
import { AgentCancelledError, AgentProcessError, runAgent, type AgentRunSummary, type RunAgentOptions } from '../../activities/agents/run-agent';
import { agentIsolation, detectAgentIsolation, AGENT_GROUP, type AgentIsolation } from '../../lib/agent-isolation';
import { config, ConfigError, loadConfig } from '../../lib/config';
import { logger } from '../../lib/logger';
import { repoRoot } from '../../lib/paths';
import { agentGroupId, agentWorkspace } from '../support/agent-workspace';
import { standInEnv, startStandInModel, type StandInModel } from '../fixtures/stand-in-model';
import { rejection } from '../support/waiting';

/**
 * Issue 13, item 2: agents run unprivileged and apart (docs/agent-process.md). These tests run as
 * root, as the service does on a root deployment, with the stack's pool of agent users
 * (scripts/stack/agent-users.sh); each probe is made from inside a real run of the stand-in CLI.
 */

const fakeAgent = path.resolve(__dirname, '../fixtures/fake-agent/fake-agent.js');
const claudeCli = path.join(repoRoot, 'node_modules/.bin/claude');

interface Recorded {
  env: Record<string, string>;
  cwd: string;
  pid: number;
  uid: number;
  gid: number;
  groups: number[];
  umask: string;
  noNewPrivs: boolean;
  probes: { reads: Record<string, string>; signal: string | null };
}

let workspace: string;
let outside: string;
let keyFile: string;
let pool: Extract<AgentIsolation, { mode: 'user-pool' }>;

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('these tests prove what a root service does: run them as root');
  const isolation = agentIsolation();
  if (isolation.mode !== 'user-pool') throw new Error(`no pool of agent users (${isolation.reason})`);
  pool = isolation;
  workspace = agentWorkspace('agent-isolation-');
  // Outside every root: readable by anybody but the files the service keeps to itself.
  outside = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-isolation-outside-'));
  fs.chmodSync(outside, 0o755);
  keyFile = path.join(outside, 'secrets.key');
  fs.writeFileSync(keyFile, `${'ab'.repeat(32)}\n`, { mode: 0o600 });
  // What the agents worker does at start: the data area closed, the roots given to the pool's group.
  await prepareAgentHost({ orchestration: { ...config.orchestration, workdirRoots: [workspace] } }, logger);
});

afterAll(() => {
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

let runs = 0;
function startRun(knobs: Record<string, string>, overrides: Partial<RunAgentOptions> = {}) {
  runs += 1;
  const recordFile = path.join(workspace, `record-${runs}.json`);
  const outcome = runAgent({
    command: fakeAgent,
    cli: claudeCode,
    run: { prompt: 'probe', maxTurns: 1 },
    cwd: path.join(workspace, `run-${runs}`),
    workdirRoots: [workspace],
    baseEnv: { ...agentBaseEnv(process.env), FAKE_AGENT_RECORD: recordFile, FAKE_AGENT_CHUNKS: '1', ...knobs },
    ...overrides,
  });
  return { outcome, recordFile, record: () => JSON.parse(fs.readFileSync(recordFile, 'utf8')) as Recorded };
}

/** Waits (bounded) for a file the agent writes. */
async function fileWritten(file: string, boundMs = 20_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!fs.existsSync(file) || fs.statSync(file).size === 0) {
    if (Date.now() > deadline) throw new Error(`${file} was not written within ${boundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // Written in one call, but give the writer's close a moment: parse until it is whole.
  for (;;) {
    try {
      JSON.parse(fs.readFileSync(file, 'utf8'));
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`${file} is not whole JSON`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

describe('an agent started by a root service', () => {
  it('runs as an unprivileged user of the pool, with its HOME, the pool group only and the umask 0007', async () => {
    const { outcome, record } = startRun({});
    await outcome;
    const seen = record();
    const user = pool.users.find((candidate) => candidate.uid === seen.uid);

    expect(seen.uid).not.toBe(0);
    expect(user).toBeDefined();
    expect(user!.name).toMatch(/^agentrun\d+$/);
    expect(seen.gid).toBe(agentGroupId());
    expect(seen.groups).toEqual([agentGroupId()]);
    expect(seen.env.HOME).toBe(user!.home);
    expect(seen.env.USER).toBe(user!.name);
    expect(seen.env.LOGNAME).toBe(user!.name);
    expect(seen.umask).toBe('0007');
    // A setuid program it runs (sudo, su) gains nothing.
    expect(seen.noNewPrivs).toBe(true);
    expect(fs.statSync(user!.home).mode & 0o777).toBe(0o700);
    // No way of talking the CLI out of its root check is used.
    expect(seen.env.IS_SANDBOX).toBeUndefined();
  });

  it("cannot read the service's environment, the secrets key file, .stack, the MariaDB data or the service's data area", async () => {
    const dataFile = path.join(config.orchestration.dataDir, 'probe.txt');
    fs.writeFileSync(dataFile, 'service data', { mode: 0o644 });
    const targets = {
      environ: `/proc/${process.pid}/environ`,
      key: keyFile,
      stack: path.join(repoRoot, '.stack', 'logs', 'mariadb.log'),
      mariadb: path.join(repoRoot, '.stack', 'mariadb', 'data'),
      data: dataFile,
      // Control: a file of the same directory open to anybody is read, so a refusal is the file's own.
      control: path.join(outside, 'open.txt'),
    };
    fs.writeFileSync(targets.control, 'open', { mode: 0o644 });
    expect(fs.existsSync(targets.stack) && fs.existsSync(targets.mariadb)).toBe(true);

    const { outcome, record } = startRun({ FAKE_AGENT_TRY_READ: JSON.stringify(Object.values(targets)) });
    await outcome;
    const reads = record().probes.reads;

    expect(reads[targets.environ]).toBe('EACCES');
    expect(reads[targets.key]).toBe('EACCES');
    expect(reads[targets.stack]).toBe('EACCES');
    expect(reads[targets.mariadb]).toBe('EACCES');
    expect(reads[targets.data]).toBe('EACCES');
    expect(reads[targets.control]).toBe('ok');
    // The service's secrets key was in this process's environment all along.
    expect(process.env.AGENT_SECRETS_KEY).toMatch(/^[0-9a-f]{64}$/);
    expect(record().env.AGENT_SECRETS_KEY).toBeUndefined();
  });

  it("two runs at once have different users: neither reads the other's environment (its secrets), signals it or lists its HOME", async () => {
    // A stays alive (its first message waits 60 s) until B has looked at it.
    const controller = new AbortController();
    const a = startRun({ FAKE_AGENT_DELAY_MS: '60000' }, { secrets: { RUN_SECRET: 'alpha-secret-0001' }, signal: controller.signal });
    const aOutcome = cancelled(a.outcome);
    await fileWritten(a.recordFile);
    const aSeen = a.record();
    const aHome = aSeen.env.HOME!;

    const b = startRun(
      {
        FAKE_AGENT_TRY_READ: JSON.stringify([`/proc/${aSeen.pid}/environ`, aHome, '/proc/self/environ']),
        FAKE_AGENT_TRY_SIGNAL: String(aSeen.pid),
      },
      { secrets: { RUN_SECRET: 'beta-secret-0002' } },
    );
    await b.outcome;
    controller.abort();
    await aOutcome;
    const bSeen = b.record();

    expect(aSeen.env.RUN_SECRET).toBe('alpha-secret-0001');
    expect(bSeen.env.RUN_SECRET).toBe('beta-secret-0002');
    expect(bSeen.uid).not.toBe(aSeen.uid);
    expect(bSeen.env.HOME).not.toBe(aHome);
    expect(bSeen.probes.reads[`/proc/${aSeen.pid}/environ`]).toBe('EACCES');
    expect(bSeen.probes.reads[aHome]).toBe('EACCES');
    expect(bSeen.probes.signal).toBe('EPERM');
    // Its own environment it reads: the refusals above are about the other run.
    expect(bSeen.probes.reads['/proc/self/environ']).toBe('ok');
  });

  it('creates a missing working directory as the agent user, in the pool group, open to the next user', async () => {
    const cwd = path.join(workspace, 'created', 'project');
    const { outcome, record } = startRun({}, { cwd });
    await outcome;
    const seen = record();

    const stat = fs.statSync(cwd);
    expect(stat.uid).toBe(seen.uid);
    expect(stat.gid).toBe(agentGroupId());
    // setgid inherited from the root; group-writable through the umask; nothing for others.
    expect(stat.mode & 0o7777).toBe(0o2770);
    expect(fs.statSync(path.dirname(cwd)).uid).toBe(seen.uid);
    expect(seen.cwd).toBe(cwd);
  });

  it('refuses a working directory outside the roots, or led out by a symlink, creating nothing', async () => {
    const target = path.join(outside, 'escape');
    fs.symlinkSync(outside, path.join(workspace, 'link-out'));
    for (const [cwd, message] of [
      [path.join(outside, 'not-a-root', 'x'), `O diretório de trabalho "${path.join(outside, 'not-a-root', 'x')}" está fora dos diretórios permitidos (${workspace})`],
      [path.join(workspace, 'link-out', 'escape'), `O diretório de trabalho "${path.join(workspace, 'link-out', 'escape')}" leva para fora dos diretórios permitidos (${workspace}) por um link simbólico (para "${target}")`],
    ] as const) {
      const error = await rejection(startRun({}, { cwd }).outcome);
      expect(error).toBeInstanceOf(AgentProcessError);
      expect(error.message).toBe(message);
      expect((error as AgentProcessError).summary.pid).toBeNull();
    }
    expect(fs.existsSync(path.join(outside, 'not-a-root'))).toBe(false);
    expect(fs.existsSync(target)).toBe(false);
  });

  it("refuses an existing working directory the agent's user cannot write in", async () => {
    const closed = path.join(workspace, 'closed');
    fs.mkdirSync(closed, { mode: 0o700 });
    fs.chmodSync(closed, 0o700);
    const error = await rejection(startRun({}, { cwd: closed }).outcome);
    expect(error.message).toMatch(
      new RegExp(`^o diretório de trabalho "${closed}" não permite escrita ao usuário do agente agentrun\\d+ \\(grupo do pool\\): dê-o ao grupo \\(chgrp ${AGENT_GROUP}; chmod g\\+rwx\\)$`),
    );
  });

  it('waits for a free user when the pool is smaller than the runs: both complete, one after the other', async () => {
    const one = { ...pool, users: [pool.users[pool.users.length - 1]!] };
    const order: string[] = [];
    const track = (name: string) => (event: { kind: string }) => {
      if (event.kind === 'init' || event.kind === 'result') order.push(`${name}:${event.kind}`);
    };
    const first = startRun({ FAKE_AGENT_DELAY_MS: '300' }, { isolation: one, onEvent: track('first') });
    await fileWritten(first.recordFile);
    const second = startRun({}, { isolation: one, onEvent: track('second') });
    await Promise.all([first.outcome, second.outcome]);

    expect(first.record().uid).toBe(second.record().uid);
    expect(order).toEqual(['first:init', 'first:result', 'second:init', 'second:result']);
  });

  it("empties the user's HOME between runs: settings, start files and links a run left are gone; its session rests in the store", async () => {
    const last = pool.users[pool.users.length - 1]!;
    const one = { ...pool, users: [last] };
    const sessionStore = fs.mkdtempSync(path.join(config.orchestration.dataDir, 'sessions-'));
    const session = '11111111-2222-4333-8444-555555555555';
    const linked = '99999999-2222-4333-8444-555555555555';
    const stored = path.join(sessionStore, 'agent-home', '-proj');
    const first = startRun(
      {
        FAKE_AGENT_WRITE: JSON.stringify({
          '.claude/settings.json': '{"hooks":{"SessionStart":[]}}',
          '.bashrc': 'echo planted',
          [`.claude/projects/-proj/${session}.jsonl`]: '{"type":"user"}\n',
        }),
        FAKE_AGENT_LINK: JSON.stringify({ [`.claude/projects/-proj/${linked}.jsonl`]: keyFile }),
      },
      // A continue of `session`: the stand-in reports that id, so that is the session kept.
      { isolation: one, sessions: { store: sessionStore, agentId: 'agent-home' }, run: { prompt: 'probe', maxTurns: 1, resumeSessionId: session } },
    );
    await first.outcome;

    expect(fs.readdirSync(last.home)).toEqual([]);
    expect(fs.readFileSync(path.join(stored, `${session}.jsonl`), 'utf8')).toBe('{"type":"user"}\n');
    expect(fs.readdirSync(stored)).toEqual([`${session}.jsonl`]);
    expect(fs.statSync(path.join(stored, `${session}.jsonl`)).mode & 0o777).toBe(0o600);

    // A link is not followed: reported as the run's session, the key file it points at is not copied.
    const linking = startRun(
      { FAKE_AGENT_LINK: JSON.stringify({ [`.claude/projects/-proj/${linked}.jsonl`]: keyFile }) },
      { isolation: one, sessions: { store: sessionStore, agentId: 'agent-home' }, run: { prompt: 'probe', maxTurns: 1, resumeSessionId: linked } },
    );
    await linking.outcome;
    expect(fs.readdirSync(stored)).toEqual([`${session}.jsonl`]);

    const planted = [path.join(last.home, '.claude', 'settings.json'), path.join(last.home, '.bashrc')];
    const second = startRun({ FAKE_AGENT_TRY_READ: JSON.stringify(planted) }, { isolation: one });
    await second.outcome;
    expect(second.record().uid).toBe(first.record().uid);
    expect(planted.map((file) => second.record().probes.reads[file])).toEqual(['ENOENT', 'ENOENT']);
  });

  it("a run of agent A cannot plant a session that agent B's continue resumes; only the session a run reported is kept", async () => {
    const last = pool.users[pool.users.length - 1]!;
    const one = { ...pool, users: [last] };
    const store = fs.mkdtempSync(path.join(config.orchestration.dataDir, 'sessions-'));
    const victim = 'bbbbbbbb-2222-4333-8444-555555555555';
    const extra = 'eeeeeeee-2222-4333-8444-555555555555';
    const asAgent = (agentId: string, write: Record<string, string>) =>
      startRun(
        { FAKE_AGENT_WRITE: JSON.stringify(write) },
        { isolation: one, sessions: { store, agentId }, run: { prompt: 'probe', maxTurns: 1, resumeSessionId: victim } },
      ).outcome;
    // B's own session, as its run left it.
    await asAgent('agent-b', { [`.claude/projects/-proj/${victim}.jsonl`]: 'B wrote this\n' });
    // A learned B's session id (it is on the CLI's command line): it resumes it, overwrites it, and leaves another.
    await asAgent('agent-a', {
      [`.claude/projects/-proj/${victim}.jsonl`]: 'A planted this\n',
      [`.claude/projects/-other/${extra}.jsonl`]: 'not reported\n',
    });

    const files = (dir: string): string[] => fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.jsonl')).sort();
    expect(files(store)).toEqual([`agent-a/-proj/${victim}.jsonl`, `agent-b/-proj/${victim}.jsonl`]);
    // What B's continue gets in its HOME is B's own transcript; A's continue started with nothing of B's.
    const resumed = async (agentId: string): Promise<string | null> => {
      const lease = await leaseAgentUser([last], { sessions: { store, agentId, resume: victim } });
      try {
        const file = path.join(last.home, '.claude', 'projects', '-proj', `${victim}.jsonl`);
        return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
      } finally {
        await lease.release();
      }
    };
    expect(await resumed('agent-b')).toBe('B wrote this\n');
    expect(await resumed('agent-c')).toBeNull();
  });

  it("gives each run a private TMPDIR in its HOME (0700, its user's), which another pool user cannot list", async () => {
    const controller = new AbortController();
    const a = startRun({ FAKE_AGENT_DELAY_MS: '60000', FAKE_AGENT_WRITE: JSON.stringify({ '.tmp/scratch': 'a' }) }, { signal: controller.signal });
    const aOutcome = cancelled(a.outcome);
    await fileWritten(a.recordFile);
    const aSeen = a.record();
    const tmp = path.join(aSeen.env.HOME!, '.tmp');
    const stat = fs.statSync(tmp);

    const other = pool.users.find((user) => user.uid !== aSeen.uid)!;
    const b = startRun(
      { FAKE_AGENT_TRY_READ: JSON.stringify([tmp, path.join(tmp, 'scratch'), path.join(other.home, '.tmp')]) },
      { isolation: { ...pool, users: [other] } },
    );
    await b.outcome;
    controller.abort();
    await aOutcome;

    expect([aSeen.env.TMPDIR, aSeen.env.TMP, aSeen.env.TEMP]).toEqual([tmp, tmp, tmp]);
    expect([stat.uid, stat.mode & 0o7777]).toEqual([aSeen.uid, 0o700]);
    expect(b.record().probes.reads).toEqual({ [tmp]: 'EACCES', [path.join(tmp, 'scratch')]: 'EACCES', [path.join(other.home, '.tmp')]: 'ok' });
    // Emptied with the HOME when the lease ends.
    expect(fs.existsSync(tmp)).toBe(false);
  });

  it('ends, at the lease and its release, every process its user has, one that left the process group too', async () => {
    const user = pool.users[pool.users.length - 3]!;
    const lease = await leaseAgentUser([user]);
    // Its own session and group (as `setsid` would give it): no group kill reaches it.
    const escaped = spawn(SETPRIV, [`--reuid=${user.uid}`, `--regid=${user.gid}`, `--groups=${user.gid}`, '--', 'sleep', '300'], { detached: true, stdio: 'ignore' });
    const ended = new Promise<NodeJS.Signals | null>((resolve) => escaped.once('exit', (_code, signal) => resolve(signal)));
    // setpriv switches to the user after its own start: wait (bounded) until /proc shows the process as the user's.
    const deadline = Date.now() + 10_000;
    while (!(await processesOf(user.uid)).includes(escaped.pid!) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await processesOf(user.uid)).toEqual([escaped.pid]);
    await lease.release();
    expect(await ended).toBe('SIGKILL');
    expect(await processesOf(user.uid)).toEqual([]);
  });

  it('leases the owner of an existing working directory first, so a project keeps one owner while it is free', async () => {
    const last = pool.users[pool.users.length - 1]!;
    const cwd = path.join(workspace, 'owned-project');
    const first = startRun({}, { cwd, isolation: { ...pool, users: [last] } });
    await first.outcome;
    expect(fs.statSync(cwd).uid).toBe(last.uid);
    // The whole pool now: the lowest free user would be another one.
    const second = startRun({}, { cwd });
    await second.outcome;
    expect(second.record().uid).toBe(last.uid);
  });

  it('ignores and removes a lease left by a process that is gone', async () => {
    const last = pool.users[pool.users.length - 2]!;
    // A pid that cannot be alive: above the kernel's pid_max.
    const stale = path.join(DEFAULT_LEASE_DIR, `${last.name}~99999999~1~deadbeef0000`);
    fs.mkdirSync(DEFAULT_LEASE_DIR, { recursive: true, mode: 0o700 });
    fs.writeFileSync(stale, '');
    const lease = await leaseAgentUser([last]);
    try {
      expect(lease.user.name).toBe(last.name);
      expect(fs.existsSync(stale)).toBe(false);
    } finally {
      await lease.release();
    }
    expect(fs.statSync(DEFAULT_LEASE_DIR).mode & 0o777).toBe(0o700);
  });
});

describe('the real Claude Code CLI, service running as root', () => {
  let model: StandInModel;
  beforeAll(async () => {
    model = await startStandInModel();
  });
  afterAll(async () => {
    await model?.close();
  });

  it('refuses bypassPermissions as root (what the pool avoids)', () => {
    let message = '';
    try {
      execFileSync(claudeCli, ['-p', '--permission-mode', 'bypassPermissions', 'hi'], {
        env: { PATH: process.env.PATH ?? '', HOME: os.homedir(), ...standInEnv(model) },
        stdio: ['ignore', 'pipe', 'pipe'],
        encoding: 'utf8',
      });
    } catch (error) {
      message = String((error as { stderr?: string }).stderr);
    }
    expect(message).toContain('--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons');
  });

  it('completes a run with the default bypassPermissions and the scripted answer', async () => {
    const prompt = 'Say the word: isolated';
    model.enqueue({ kind: 'text', text: 'The word is isolated.', deltas: 3, when: (request) => JSON.stringify(request.body).includes(prompt) });
    const events: string[] = [];
    const summary = await runAgent({
      command: claudeCli,
      cli: claudeCode,
      run: { prompt, maxTurns: 2 },
      cwd: path.join(workspace, 'real-cli'),
      workdirRoots: [workspace],
      baseEnv: { ...agentBaseEnv(process.env), ...standInEnv(model) },
      onEvent: (event) => {
        events.push(event.kind);
      },
    });

    expect(summary).toMatchObject({ exitCode: 0, signal: null, error: null, resultText: 'The word is isolated.', output: 'The word is isolated.' });
    expect(summary.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(events[0]).toBe('init');
    expect(events).toContain('text');
    expect(events[events.length - 1]).toBe('result');
    expect(model.requests.some((request) => request.path === '/v1/messages' && JSON.stringify(request.body).includes(prompt))).toBe(true);
  });

  it('continues a session with another user: the session rests in the store between runs', async () => {
    const last = pool.users[pool.users.length - 1]!;
    const sessionStore = fs.mkdtempSync(path.join(config.orchestration.dataDir, 'sessions-'));
    const options = (prompt: string): RunAgentOptions => ({
      sessions: { store: sessionStore, agentId: 'agent-real-cli' },
      command: claudeCli,
      cli: claudeCode,
      run: { prompt, maxTurns: 2 },
      cwd: path.join(workspace, 'real-cli-continue'),
      workdirRoots: [workspace],
      baseEnv: { ...agentBaseEnv(process.env), ...standInEnv(model) },
    });
    model.enqueue({ kind: 'text', text: 'First answer.', when: (request) => JSON.stringify(request.body).includes('first question') });
    // The first run as the pool's last user: the lowest free user will be another one.
    const first = await runAgent({ ...options('first question'), isolation: { ...pool, users: [last] } });
    expect(fs.readdirSync(last.home)).toEqual([]);
    model.enqueue({ kind: 'text', text: 'Second answer.', when: (request) => JSON.stringify(request.body).includes('second question') });
    const second = await runAgent({ ...options('second question'), run: { prompt: 'second question', maxTurns: 2, resumeSessionId: first.sessionId! } });

    expect(second).toMatchObject({ exitCode: 0, error: null, resultText: 'Second answer.', sessionId: first.sessionId });
    // The resumed conversation reached the model with the first exchange in it.
    const resumed = model.requests.find((request) => JSON.stringify(request.body).includes('second question'));
    expect(JSON.stringify(resumed?.body)).toContain('First answer.');
  });
});

describe('who agents run as', () => {
  it('a service that is not root runs them as itself and says why', () => {
    expect(detectAgentIsolation(20, 1000)).toEqual({
      mode: 'service-user',
      reason: "the service runs as uid 1000, not root, so it cannot switch users: agents run as the service's own user and can read what it can",
    });
  });

  it('the worker start says so with a warning when agents run as the service user', async () => {
    const lines: string[] = [];
    const capture = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const root = path.join(outside, 'service-user-root');
    await prepareAgentHost({ orchestration: { ...config.orchestration, workdirRoots: [root] } }, capture, detectAgentIsolation(20, 1000));
    const warning = lines.map((line) => JSON.parse(line) as { level: number; msg: string; agentIsolation?: { mode: string } }).find((entry) => entry.level === 40);
    expect(warning).toMatchObject({ msg: 'agents run as the service user: they are not isolated from it', agentIsolation: { mode: 'service-user' } });
  });

  it('root without the pool refuses to run agents rather than run them as root', async () => {
    const refused: AgentIsolation = { mode: 'refused', reason: 'no agent users exist' };
    const error = await rejection(startRun({}, { isolation: refused }).outcome);
    expect(error).toBeInstanceOf(AgentProcessError);
    expect(error.message).toBe('os agentes não podem rodar aqui: no agent users exist');
    expect((error as AgentProcessError).summary.pid).toBeNull();
  });

  it('the worker start gives each root to root and the pool group, mode 2770, and closes the data area', async () => {
    const root = path.join(outside, 'projects-root');
    await prepareAgentHost({ orchestration: { ...config.orchestration, workdirRoots: [root] } }, logger);
    const stat = fs.statSync(root);
    expect([stat.uid, stat.gid, stat.mode & 0o7777]).toEqual([0, agentGroupId(), 0o2770]);
    expect(fs.statSync(config.orchestration.dataDir).mode & 0o777).toBe(0o700);
  });
});

describe('the session store', () => {
  /** Writes the session `<dir>/<name>.jsonl`, last written `secondsAgo`. */
  const writeSession = (dir: string, name: string, secondsAgo: number) => {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${name}.jsonl`);
    fs.writeFileSync(file, '{}\n');
    const when = new Date(Date.now() - secondsAgo * 1000);
    fs.utimesSync(file, when, when);
  };

  it('keeps the most recently written sessions up to its bound, deleting the oldest', async () => {
    const store = fs.mkdtempSync(path.join(outside, 'store-'));
    const write = (project: string, name: string, secondsAgo: number) => writeSession(path.join(store, project), name, secondsAgo);
    write('-old', 'a', 300);
    write('-new', 'b', 200);
    write('-new', 'c', 100);
    await pruneStore(store, 2);
    expect(fs.readdirSync(store).sort()).toEqual(['-new']);
    expect(fs.readdirSync(path.join(store, '-new')).sort()).toEqual(['b.jsonl', 'c.jsonl']);
  });

  it('bounds the whole store across the agents’ namespaces, removing a namespace left empty', async () => {
    const store = fs.mkdtempSync(path.join(outside, 'store-'));
    const write = (agent: string, name: string, secondsAgo: number) => writeSession(path.join(store, agent, '-proj'), name, secondsAgo);
    write('agent-a', 'a', 300);
    write('agent-b', 'b', 200);
    write('agent-c', 'c', 100);
    await pruneStore(store, 2, 2);
    expect(fs.readdirSync(store).sort()).toEqual(['agent-b', 'agent-c']);
  });
});

describe('the stack start (scripts/stack/agent-users.sh reach)', () => {
  const script = path.join(repoRoot, 'scripts/stack/agent-users.sh');
  const reach = (repo?: string) => spawnSync('bash', [script, 'reach', ...(repo ? [repo] : [])], { encoding: 'utf8' });

  it("says the pool reaches node and the agent CLIs of this clone", () => {
    const result = reach();
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`agentrun1 reaches ${execFileSync('sh', ['-c', 'command -v node'], { encoding: 'utf8' }).trim()} and the agent CLIs of ${repoRoot}`);
  });

  it('fails naming the directory the pool cannot enter (a clone under a 0700 directory, as /root)', () => {
    const closed = fs.mkdtempSync(path.join(outside, 'closed-'));
    const clone = path.join(closed, 'clone');
    fs.mkdirSync(path.join(clone, 'test/fixtures/fake-agent'), { recursive: true });
    fs.copyFileSync(fakeAgent, path.join(clone, 'test/fixtures/fake-agent/fake-agent.js'));
    fs.chmodSync(closed, 0o700);
    const result = reach(clone);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(
      `the agents' user agentrun1 cannot enter ${closed} (needed to read ${clone}/test/fixtures/fake-agent/fake-agent.js): every agent run would fail with EACCES; open it to them (e.g. 'chmod o+x ${closed}')`,
    );
  });
});

describe('AGENT_SECRETS_KEY_FILE', () => {
  it('reads the key from a file only its owner can read', () => {
    expect(loadConfig({ AGENT_SECRETS_KEY_FILE: keyFile }).orchestration.secretsKey).toBe('ab'.repeat(32));
  });

  it('refuses a key file other users can read, a bad key, and both ways at once', () => {
    const open = path.join(outside, 'open.key');
    fs.writeFileSync(open, 'ab'.repeat(32), { mode: 0o644 });
    fs.chmodSync(open, 0o644);
    const bad = path.join(outside, 'bad.key');
    fs.writeFileSync(bad, 'not-a-key', { mode: 0o600 });
    expect(() => loadConfig({ AGENT_SECRETS_KEY_FILE: open })).toThrow(
      new ConfigError(`invalid environment: AGENT_SECRETS_KEY_FILE: ${open} is open to other users (mode 644): chmod 600 it`),
    );
    expect(() => loadConfig({ AGENT_SECRETS_KEY_FILE: bad })).toThrow(
      new ConfigError(`invalid environment: AGENT_SECRETS_KEY_FILE: ${bad} must hold 64 hexadecimal characters (32 bytes)`),
    );
    expect(() => loadConfig({ AGENT_SECRETS_KEY_FILE: keyFile, AGENT_SECRETS_KEY: 'cd'.repeat(32) })).toThrow(
      new ConfigError('invalid environment: set AGENT_SECRETS_KEY or AGENT_SECRETS_KEY_FILE, not both'),
    );
  });
});

/** Resolves when the run ends cancelled (the expected end of a run kept alive), rejects otherwise. */
async function cancelled(outcome: Promise<AgentRunSummary>): Promise<void> {
  const error = await rejection(outcome);
  if (!(error instanceof AgentCancelledError)) throw error;
}
