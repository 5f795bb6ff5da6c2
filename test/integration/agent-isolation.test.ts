import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
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
import {
  AgentCancelledError,
  AgentProcessError,
  runAgent,
  SESSION_NOT_KEPT_LINE,
  type AgentRunSummary,
  type RunAgentOptions,
} from '../../activities/agents/run-agent';
import { agentGroupMembership, agentIsolation, detectAgentIsolation, AGENT_GROUP, type AgentIsolation } from '../../lib/agent-isolation';
import { config, ConfigError, loadConfig } from '../../lib/config';
import { logger } from '../../lib/logger';
import { repoRoot } from '../../lib/paths';
import { agentGroupId, agentWorkspace } from '../support/agent-workspace';
import {
  promptsOf,
  standInEnv,
  startStandInModel,
  toolResultsOf,
  type ClientProcess,
  type RecordedRequest,
  type StandInModel,
} from '../support/stand-in-model';
import { rejection, until } from '../support/waiting';
import { requireRoot } from '../support/root';

/**
 * Issue 13, item 2: agents run unprivileged and apart (docs/agent-process.md). These tests run as
 * root, as the service does on a root deployment, with the stack's pool of agent users
 * (scripts/stack/agent-users.sh). Each run is the pinned Claude Code CLI against the stand-in model:
 * who it runs as is what /proc showed of it while it waited for the model (the stand-in records it),
 * and each probe is a Bash tool call the model has it run.
 */

const fakeAgent = path.resolve(__dirname, '../fixtures/fake-agent/fake-agent.js');
const claudeCli = path.join(repoRoot, 'node_modules/.bin/claude');

let workspace: string;
let outside: string;
let keyFile: string;
let pool: Extract<AgentIsolation, { mode: 'user-pool' }>;
let model: StandInModel;

beforeAll(async () => {
  requireRoot('agent-isolation');
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
  model = await startStandInModel();
  model.recordClients();
});

afterAll(async () => {
  await model?.close();
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

let runs = 0;
/**
 * A run of the real CLI; `command`, when given, is the Bash tool call the model answers its prompt
 * with (then "OK"). `client()` is the CLI process as the stand-in saw it; `toolOutput()` what the
 * tool printed, as the CLI sent it back to the model.
 */
function startRun(command: string | null = null, overrides: Partial<RunAgentOptions> = {}, resumeSessionId?: string) {
  runs += 1;
  const prompt = `Probe ${runs} ${randomUUID()}`;
  if (command !== null) {
    model.enqueue({
      kind: 'tool_use',
      name: 'Bash',
      input: { command, description: 'Probe' },
      when: (request) => promptsOf(request.body).at(-1) === prompt && toolResultsOf(request.body).length === 0,
    });
  }
  const cwd = overrides.cwd ?? path.join(workspace, `run-${runs}`);
  const outcome = runAgent({
    command: claudeCli,
    cli: claudeCode,
    run: { prompt, maxTurns: 3, ...(resumeSessionId !== undefined ? { resumeSessionId } : {}) },
    cwd,
    workdirRoots: [workspace],
    baseEnv: { ...agentBaseEnv(process.env), ...standInEnv(model), CLAUDE_CODE_MAX_RETRIES: '0' },
    ...overrides,
  });
  const requests = (): RecordedRequest[] => model.messages().filter((request) => promptsOf(request.body).at(-1) === prompt);
  const client = (): ClientProcess => {
    const seen = requests()[0]?.client;
    if (!seen) throw new Error(`no process seen for "${prompt}"`);
    return seen;
  };
  const toolOutput = (): string => {
    const [result] = toolResultsOf(requests()[1]?.body);
    if (result === undefined || result.isError) throw new Error(`no tool output for "${prompt}": ${JSON.stringify(result)}`);
    return result.text;
  };
  return { prompt, cwd, outcome, requests, client, toolOutput };
}

/** Waits (bounded) until the run's CLI has asked the model, so the stand-in has seen its process. */
const asking = (run: ReturnType<typeof startRun>) =>
  until(
    `the CLI of ${run.prompt} asks the model`,
    async () => run.requests()[0]?.client ?? null,
    (client) => client !== null,
    30_000,
  );

/** A shell loop trying to read each path (a directory: list it): "<path>\t<ok or the reason>" per line. */
function readProbe(paths: string[]): string {
  const quoted = paths.map((file) => `'${file}'`).join(' ');
  return `for f in ${quoted}; do if [ -d "$f" ]; then out=$(ls -- "$f" 2>&1 >/dev/null); else out=$(cat -- "$f" 2>&1 >/dev/null); fi && printf '%s\\t%s\\n' "$f" ok || printf '%s\\t%s\\n' "$f" "\${out##*: }"; done`;
}

/** The lines of a probe's output as a map. */
const outcomes = (output: string): Record<string, string> =>
  Object.fromEntries(
    output
      .trim()
      .split('\n')
      .map((line) => line.split('\t') as [string, string]),
  );

/** Files under a directory, relative, that end in .jsonl, sorted. */
const sessionFilesIn = (dir: string): string[] =>
  fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.jsonl'))
    .sort();

describe('an agent started by a root service', () => {
  it('runs as an unprivileged user of the pool, with its HOME, the pool group only and the umask 0007', async () => {
    const run = startRun();
    await run.outcome;
    const seen = run.client();
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

    const run = startRun(readProbe(Object.values(targets)));
    await run.outcome;
    const reads = outcomes(run.toolOutput());

    expect(reads[targets.environ]).toBe('Permission denied');
    expect(reads[targets.key]).toBe('Permission denied');
    expect(reads[targets.stack]).toBe('Permission denied');
    expect(reads[targets.mariadb]).toBe('Permission denied');
    expect(reads[targets.data]).toBe('Permission denied');
    expect(reads[targets.control]).toBe('ok');
    // The service's secrets key was in this process's environment all along.
    expect(process.env.AGENT_SECRETS_KEY).toMatch(/^[0-9a-f]{64}$/);
    expect(run.client().env.AGENT_SECRETS_KEY).toBeUndefined();
  });

  it("two runs at once have different users: neither reads the other's environment (its secrets), signals it or lists its HOME", async () => {
    // A stays alive (its tool sleeps) until B has looked at it.
    const controller = new AbortController();
    const a = startRun('echo started && sleep 300', { secrets: { RUN_SECRET: 'alpha-secret-0001' }, signal: controller.signal });
    const aOutcome = cancelled(a.outcome);
    const aSeen = await asking(a);
    const aHome = aSeen!.env.HOME!;

    const b = startRun(
      `${readProbe([`/proc/${aSeen!.pid}/environ`, aHome, '/proc/self/environ'])}; out=$(kill -0 ${aSeen!.pid} 2>&1) && printf 'signal\\tsent\\n' || printf 'signal\\t%s\\n' "\${out##*: }"`,
      { secrets: { RUN_SECRET: 'beta-secret-0002' } },
    );
    await b.outcome;
    controller.abort();
    await aOutcome;
    const bSeen = b.client();
    const probes = outcomes(b.toolOutput());

    expect(aSeen!.env.RUN_SECRET).toBe('alpha-secret-0001');
    expect(bSeen.env.RUN_SECRET).toBe('beta-secret-0002');
    expect(bSeen.uid).not.toBe(aSeen!.uid);
    expect(bSeen.env.HOME).not.toBe(aHome);
    expect(probes[`/proc/${aSeen!.pid}/environ`]).toBe('Permission denied');
    expect(probes[aHome]).toBe('Permission denied');
    expect(probes.signal).toBe(`(${aSeen!.pid}) - Operation not permitted`);
    // Its own environment it reads: the refusals above are about the other run.
    expect(probes['/proc/self/environ']).toBe('ok');
  });

  it('creates a missing working directory as the agent user, in the pool group, open to the next user', async () => {
    const cwd = path.join(workspace, 'created', 'project');
    const run = startRun(null, { cwd });
    await run.outcome;
    const seen = run.client();

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
      [
        path.join(outside, 'not-a-root', 'x'),
        `O diretório de trabalho "${path.join(outside, 'not-a-root', 'x')}" está fora dos diretórios permitidos (${workspace})`,
      ],
      [
        path.join(workspace, 'link-out', 'escape'),
        `O diretório de trabalho "${path.join(workspace, 'link-out', 'escape')}" leva para fora dos diretórios permitidos (${workspace}) por um link simbólico (para "${target}")`,
      ],
    ] as const) {
      const run = startRun(null, { cwd });
      const error = await rejection(run.outcome);
      expect(error).toBeInstanceOf(AgentProcessError);
      expect(error.message).toBe(message);
      expect((error as AgentProcessError).summary.pid).toBeNull();
      expect(run.requests()).toEqual([]);
    }
    expect(fs.existsSync(path.join(outside, 'not-a-root'))).toBe(false);
    expect(fs.existsSync(target)).toBe(false);
  });

  it("refuses an existing working directory the agent's user cannot write in", async () => {
    const closed = path.join(workspace, 'closed');
    fs.mkdirSync(closed, { mode: 0o700 });
    fs.chmodSync(closed, 0o700);
    const error = await rejection(startRun(null, { cwd: closed }).outcome);
    expect(error.message).toMatch(
      new RegExp(
        `^o diretório de trabalho "${closed}" não permite escrita ao usuário do agente agentrun\\d+ \\(grupo do pool\\): dê-o ao grupo \\(chgrp ${AGENT_GROUP}; chmod g\\+rwx\\)$`,
      ),
    );
  });

  it('waits for a free user when the pool is smaller than the runs: both complete, one after the other', async () => {
    const one = { ...pool, users: [pool.users[pool.users.length - 1]!] };
    const order: string[] = [];
    const track = (name: string) => (event: { kind: string }) => {
      if (event.kind === 'init' || event.kind === 'result') order.push(`${name}:${event.kind}`);
    };
    // The first keeps its user a while (its tool sleeps 1 s); the second starts meanwhile.
    const first = startRun('echo started && sleep 1', { isolation: one, onEvent: track('first') });
    await asking(first);
    const second = startRun(null, { isolation: one, onEvent: track('second') });
    await Promise.all([first.outcome, second.outcome]);
    expect(first.toolOutput()).toBe('started');

    expect(first.client().uid).toBe(second.client().uid);
    expect(order).toEqual(['first:init', 'first:result', 'second:init', 'second:result']);
  });

  it("empties the user's HOME between runs: settings, start files and links a run left are gone; its session rests in the store", async () => {
    const last = pool.users[pool.users.length - 1]!;
    const one = { ...pool, users: [last] };
    const sessionStore = fs.mkdtempSync(path.join(config.orchestration.dataDir, 'sessions-'));
    const planted = '11111111-2222-4333-8444-555555555555';
    const sessions = { store: sessionStore, agentId: 'agent-home' };
    // Settings with hooks, a shell start file, a transcript of another id and a link to the key file, beside the CLI's own session.
    const first = startRun(
      [
        'mkdir -p ~/.claude/projects/-proj',
        `printf '%s' '{"hooks":{"SessionStart":[]}}' > ~/.claude/settings.json`,
        "echo 'echo planted' > ~/.bashrc",
        `echo '{"type":"user"}' > ~/.claude/projects/-proj/${planted}.jsonl`,
        `ln -s '${keyFile}' ~/.claude/projects/-proj/99999999-2222-4333-8444-555555555555.jsonl`,
      ].join(' && '),
      { isolation: one, sessions },
    );
    const summary = await first.outcome;

    expect(fs.readdirSync(last.home)).toEqual([]);
    // Only the session the run reported is kept, written by the CLI: the conversation with its prompt.
    const kept = sessionFilesIn(sessionStore);
    expect(kept).toEqual([expect.stringMatching(new RegExp(`^agent-home/[^/]+/${summary.sessionId}\\.jsonl$`))]);
    const stored = path.join(sessionStore, kept[0]!);
    expect(fs.readFileSync(stored, 'utf8')).toContain(first.prompt);
    expect(fs.statSync(stored).mode & 0o777).toBe(0o600);

    // A link is not followed: the run's own session replaced by a link to the key file is not kept, nor the key copied.
    // The CLI writes its transcript a moment after the turn starts (a buffered write): the tool waits for it, at most 10 s.
    const linking = startRun(
      `for i in $(seq 100); do f=$(ls ~/.claude/projects/*/"$CLAUDE_CODE_SESSION_ID".jsonl 2>/dev/null) && break; sleep 0.1; done; [ -n "$f" ] && rm "$f" && ln -s '${keyFile}' "$f" && echo "$f"`,
      { isolation: one, sessions },
    );
    const linked = await linking.outcome;
    expect(linking.toolOutput().trim()).toMatch(new RegExp(`/${linked.sessionId}\\.jsonl$`));
    expect(sessionFilesIn(sessionStore)).toEqual(kept);

    const leftBehind = [path.join(last.home, '.claude', 'settings.json'), path.join(last.home, '.bashrc')];
    const second = startRun(readProbe(leftBehind), { isolation: one });
    await second.outcome;
    expect(second.client().uid).toBe(first.client().uid);
    expect(leftBehind.map((file) => outcomes(second.toolOutput())[file])).toEqual([
      'No such file or directory',
      'No such file or directory',
    ]);
  });

  it('a session the store cannot keep (its disk full) costs the session, not the run: the run ends as it ran and says so', async () => {
    const last = pool.users[pool.users.length - 1]!;
    const store = fs.mkdtempSync(path.join(os.tmpdir(), 'full-session-store-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k,mode=0700', 'full-session-store', store]);
    try {
      fs.mkdirSync(path.join(store, 'agent-full'), { mode: 0o700 });
      // Every free block taken: the session's copy meets ENOSPC.
      const filler = fs.openSync(path.join(store, 'filler'), 'w');
      try {
        for (;;) fs.writeSync(filler, Buffer.alloc(4096));
      } catch (error) {
        expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
      } finally {
        fs.closeSync(filler);
      }
      const lines: string[] = [];
      const run = startRun(null, {
        isolation: { ...pool, users: [last] },
        sessions: { store, agentId: 'agent-full' },
        onOutput: (chunk) => void lines.push(`${chunk.type}:${chunk.content}`),
      });
      const summary = await run.outcome;

      expect(summary).toMatchObject({ exitCode: 0, sessionId: expect.any(String) });
      expect(lines.at(-1)).toBe(`stderr:${SESSION_NOT_KEPT_LINE} (ENOSPC: no space left on device, write)`);
      // Nothing half-written is left in the store, and the user's HOME is emptied as after any run.
      expect(fs.readdirSync(store).sort()).toEqual(['agent-full', 'filler']);
      expect(execFileSync('find', [path.join(store, 'agent-full'), '-type', 'f'], { encoding: 'utf8' })).toBe('');
      expect(fs.readdirSync(last.home)).toEqual([]);
    } finally {
      execFileSync('umount', [store]);
      fs.rmSync(store, { recursive: true, force: true });
    }
  });

  it("a run of agent A cannot plant a session that agent B's continue resumes; only the session a run reported is kept", async () => {
    const last = pool.users[pool.users.length - 1]!;
    const one = { ...pool, users: [last] };
    const store = fs.mkdtempSync(path.join(config.orchestration.dataDir, 'sessions-'));
    const cwd = path.join(workspace, 'shared-project');
    const asAgent = (agentId: string, command: string | null, resumeSessionId?: string) =>
      startRun(command, { isolation: one, cwd, sessions: { store, agentId } }, resumeSessionId);
    // B's own session, as its run left it.
    const b = asAgent('agent-b', null);
    const victim = (await b.outcome).sessionId!;
    const [bFile] = sessionFilesIn(store);
    expect(bFile).toMatch(new RegExp(`^agent-b/[^/]+/${victim}\\.jsonl$`));
    const project = bFile!.split('/')[1]!;

    // A learned B's session id (it is on the CLI's command line): a continue of it finds nothing...
    const resumedByA = await rejection(asAgent('agent-a', null, victim).outcome);
    expect(resumedByA.message).toBe(
      `claude-code terminou com o código 1: No conversation found with session ID: ${victim}\nstderr: No conversation found with session ID: ${victim}`,
    );
    // ...and a run of A overwrites that file in the HOME, and leaves another.
    const a = asAgent(
      'agent-a',
      [
        `mkdir -p ~/.claude/projects/${project} ~/.claude/projects/-other`,
        `echo 'A planted this' > ~/.claude/projects/${project}/${victim}.jsonl`,
        "echo 'not reported' > ~/.claude/projects/-other/eeeeeeee-2222-4333-8444-555555555555.jsonl",
      ].join(' && '),
    );
    const own = (await a.outcome).sessionId!;

    expect(sessionFilesIn(store)).toEqual([`agent-a/${project}/${own}.jsonl`, `agent-b/${project}/${victim}.jsonl`].sort());
    // What B's continue gets in its HOME is B's own transcript; another agent's continue starts with nothing of B's.
    const resumed = async (agentId: string): Promise<string | null> => {
      const lease = await leaseAgentUser([last], { sessions: { store, agentId, resume: victim } });
      try {
        const file = path.join(last.home, '.claude', 'projects', project, `${victim}.jsonl`);
        return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
      } finally {
        await lease.release();
      }
    };
    const forB = await resumed('agent-b');
    expect(forB).toContain(b.prompt);
    expect(forB).not.toContain('A planted this');
    expect(await resumed('agent-c')).toBeNull();
  });

  it("gives each run a private TMPDIR in its HOME (0700, its user's), which another pool user cannot list", async () => {
    const controller = new AbortController();
    const a = startRun('echo a > "$TMPDIR/scratch" && sleep 300', { signal: controller.signal });
    const aOutcome = cancelled(a.outcome);
    const aSeen = (await asking(a))!;
    const tmp = path.join(aSeen.env.HOME!, '.tmp');
    await until('A wrote its scratch file', async () => fs.existsSync(path.join(tmp, 'scratch')), Boolean, 30_000);
    const stat = fs.statSync(tmp);

    const other = pool.users.find((user) => user.uid !== aSeen.uid)!;
    const b = startRun(readProbe([tmp, path.join(tmp, 'scratch'), path.join(other.home, '.tmp')]), {
      isolation: { ...pool, users: [other] },
    });
    await b.outcome;
    controller.abort();
    await aOutcome;

    expect([aSeen.env.TMPDIR, aSeen.env.TMP, aSeen.env.TEMP]).toEqual([tmp, tmp, tmp]);
    expect([stat.uid, stat.mode & 0o7777]).toEqual([aSeen.uid, 0o700]);
    expect(outcomes(b.toolOutput())).toEqual({
      [tmp]: 'Permission denied',
      [path.join(tmp, 'scratch')]: 'Permission denied',
      [path.join(other.home, '.tmp')]: 'ok',
    });
    // Emptied with the HOME when the lease ends.
    expect(fs.existsSync(tmp)).toBe(false);
  });

  it('ends, at the lease and its release, every process its user has, one that left the process group too', async () => {
    const user = pool.users[pool.users.length - 3]!;
    const lease = await leaseAgentUser([user]);
    // Its own session and group (as `setsid` would give it): no group kill reaches it.
    const escaped = spawn(SETPRIV, [`--reuid=${user.uid}`, `--regid=${user.gid}`, `--groups=${user.gid}`, '--', 'sleep', '300'], {
      detached: true,
      stdio: 'ignore',
    });
    const ended = new Promise<NodeJS.Signals | null>((resolve) => escaped.once('exit', (_code, signal) => resolve(signal)));
    // setpriv switches to the user after its own start: wait (bounded) until /proc shows the process as the user's.
    const deadline = Date.now() + 10_000;
    while (!(await processesOf(user.uid)).includes(escaped.pid!) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await processesOf(user.uid)).toEqual([escaped.pid]);
    await lease.release();
    expect(await ended).toBe('SIGKILL');
    expect(await processesOf(user.uid)).toEqual([]);
  });

  it('leases the owner of an existing working directory first, so a project keeps one owner while it is free', async () => {
    const last = pool.users[pool.users.length - 1]!;
    const cwd = path.join(workspace, 'owned-project');
    const first = startRun(null, { cwd, isolation: { ...pool, users: [last] } });
    await first.outcome;
    expect(fs.statSync(cwd).uid).toBe(last.uid);
    // The whole pool now: the lowest free user would be another one.
    const second = startRun(null, { cwd });
    await second.outcome;
    expect(second.client().uid).toBe(last.uid);
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
    model.enqueue({
      kind: 'text',
      text: 'The word is isolated.',
      deltas: 3,
      when: (request) => JSON.stringify(request.body).includes(prompt),
    });
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

    expect(summary).toMatchObject({
      exitCode: 0,
      signal: null,
      error: null,
      resultText: 'The word is isolated.',
      output: 'The word is isolated.',
    });
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
    const second = await runAgent({
      ...options('second question'),
      run: { prompt: 'second question', maxTurns: 2, resumeSessionId: first.sessionId! },
    });

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
      reason:
        'o serviço roda com o uid 1000, não como root, então não pode trocar de usuário: os agentes rodam como o próprio usuário do serviço e podem ler o que ele lê',
    });
  });

  it('the worker start says so with a warning when agents run as the service user', async () => {
    const lines: string[] = [];
    const capture = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const root = path.join(outside, 'service-user-root');
    await prepareAgentHost({ orchestration: { ...config.orchestration, workdirRoots: [root] } }, capture, detectAgentIsolation(20, 1000));
    const warning = lines
      .map((line) => JSON.parse(line) as { level: number; msg: string; agentIsolation?: { mode: string } })
      .find((entry) => entry.level === 40);
    expect(warning).toMatchObject({
      msg: 'agents run as the service user: they are not isolated from it',
      agentIsolation: { mode: 'service-user' },
    });
  });

  it('root without the pool refuses to run agents rather than run them as root', async () => {
    const refused: AgentIsolation = { mode: 'refused', reason: 'não existe nenhum usuário de agentes' };
    const error = await rejection(startRun(null, { isolation: refused }).outcome);
    expect(error).toBeInstanceOf(AgentProcessError);
    expect(error.message).toBe('os agentes não podem rodar aqui: não existe nenhum usuário de agentes');
    expect((error as AgentProcessError).summary.pid).toBeNull();
  });

  it('the worker start gives each root to root and the pool group, mode 2770, and closes the data area', async () => {
    const root = path.join(outside, 'projects-root');
    await prepareAgentHost({ orchestration: { ...config.orchestration, workdirRoots: [root] } }, logger);
    const stat = fs.statSync(root);
    expect([stat.uid, stat.gid, stat.mode & 0o7777]).toEqual([0, agentGroupId(), 0o2770]);
    expect(fs.statSync(config.orchestration.dataDir).mode & 0o777).toBe(0o700);
  });

  it("a service that is not root but in the pool's group (the image's API) hands the agents its uploads through that group", () => {
    // As the image's API: an unprivileged uid (no passwd entry needed) whose groups are the pool's, or not.
    const membershipAs = (groups: number) =>
      execFileSync(
        SETPRIV,
        [
          '--reuid=54321',
          `--regid=${groups}`,
          `--groups=${groups}`,
          '--',
          process.execPath,
          '--import',
          'tsx',
          '-e',
          "import('./lib/agent-isolation').then((m) => console.log(JSON.stringify(m.agentGroupMembership())))",
        ],
        { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, HOME: outside, LOG_LEVEL: 'silent' } },
      ).trim();
    expect(membershipAs(pool.gid)).toBe(String(pool.gid));
    expect(membershipAs(65534)).toBe('null');
    // Root is never a "member": with the pool it gives uploads to the group as root (agentIsolation).
    expect(agentGroupMembership()).toBeNull();
  });

  it("a data area owned by another user (the image's API) has its reports directory given to that user", async () => {
    const dataDir = path.join(outside, 'data-of-the-api');
    fs.mkdirSync(path.join(dataDir, 'reports'), { recursive: true });
    fs.chownSync(dataDir, 10001, 10001);
    await prepareAgentHost({ orchestration: { ...config.orchestration, dataDir, workdirRoots: [path.join(outside, 'api-root')] } }, logger);
    const data = fs.statSync(dataDir);
    const reports = fs.statSync(path.join(dataDir, 'reports'));
    expect([data.uid, data.mode & 0o777]).toEqual([10001, 0o700]);
    expect([reports.uid, reports.gid]).toEqual([10001, 10001]);
  });

  it("the worker start makes the external reports directory, apart from the data area: closed, the data owner's", async () => {
    // As the image: the data area and the external reports directory side by side, the API's uid owning the data area.
    const volumes = path.join(outside, 'volumes');
    const dataDir = path.join(volumes, 'data');
    const reportsDir = path.join(volumes, 'reports');
    fs.mkdirSync(dataDir, { recursive: true });
    fs.chownSync(dataDir, 10001, 10001);
    const orchestration = { ...config.orchestration, dataDir, reportsDir, workdirRoots: [path.join(outside, 'reports-root')] };
    await prepareAgentHost({ orchestration }, logger);
    const made = fs.statSync(reportsDir);
    expect([made.isDirectory(), made.uid, made.gid, made.mode & 0o777]).toEqual([true, 10001, 10001, 0o700]);
    // Not a directory of the data area: nothing of the external one was made in it.
    expect(fs.readdirSync(dataDir)).toEqual(['reports']);

    // One that exists is the operator's (another system may read it): its owner and mode stay.
    fs.chownSync(reportsDir, 0, 0);
    fs.chmodSync(reportsDir, 0o750);
    await prepareAgentHost({ orchestration }, logger);
    const kept = fs.statSync(reportsDir);
    expect([kept.uid, kept.gid, kept.mode & 0o777]).toEqual([0, 0, 0o750]);
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
    await pruneStore(store, 2);
    expect(fs.readdirSync(store).sort()).toEqual(['agent-b', 'agent-c']);
  });

  it('keeps and gives back a session filed by date three directories deep, the CLI files written into the emptied HOME', async () => {
    // A CLI that files its sessions as <dir>/<year>/<month>/<day>/rollout-<time>-<id>.jsonl (Codex CLI's way).
    const layout = {
      dir: ['.cli', 'sessions'],
      depth: 3,
      matches: (fileName: string, sessionId: string) => fileName.startsWith('rollout-') && fileName.endsWith(`-${sessionId}.jsonl`),
    };
    const store = fs.mkdtempSync(path.join(outside, 'store-'));
    const agentId = randomUUID();
    const homeFiles = [{ path: '.cli/config.toml', content: 'analytics = false\n' }];
    const first = await leaseAgentUser(pool.users, { sessions: { store, agentId, layout }, homeFiles });
    const settings = path.join(first.user.home, '.cli', 'config.toml');
    expect(fs.readFileSync(settings, 'utf8')).toBe('analytics = false\n');
    expect([fs.statSync(settings).uid, fs.statSync(settings).mode & 0o777]).toEqual([first.user.uid, 0o600]);
    const day = path.join(first.user.home, '.cli', 'sessions', '2026', '11', '28');
    fs.mkdirSync(day, { recursive: true });
    fs.writeFileSync(path.join(day, 'rollout-2026-11-28T15-00-00-thread-1.jsonl'), '{"kept":true}\n');
    fs.writeFileSync(path.join(day, 'rollout-2026-11-28T15-00-01-thread-2.jsonl'), '{"kept":false}\n');
    execFileSync('chown', ['-R', `${first.user.uid}:${first.user.gid}`, path.join(first.user.home, '.cli')]);
    await first.release('thread-1');
    expect(fs.readdirSync(path.join(store, agentId, '2026', '11', '28'))).toEqual(['rollout-2026-11-28T15-00-00-thread-1.jsonl']);

    const second = await leaseAgentUser(pool.users, { sessions: { store, agentId, layout, resume: 'thread-1' } });
    const restored = path.join(second.user.home, '.cli', 'sessions', '2026', '11', '28', 'rollout-2026-11-28T15-00-00-thread-1.jsonl');
    expect(fs.readFileSync(restored, 'utf8')).toBe('{"kept":true}\n');
    expect(fs.statSync(restored).uid).toBe(second.user.uid);
    // The first lease's files went with its HOME.
    expect(fs.existsSync(path.join(second.user.home, '.cli', 'config.toml'))).toBe(false);
    await second.release(null);
  });

  it('refuses a CLI file whose path leaves HOME', async () => {
    await expect(leaseAgentUser(pool.users, { homeFiles: [{ path: '../escape', content: 'x' }] })).rejects.toThrow(
      '"../escape" is not a plain path below HOME',
    );
  });
});

describe('the stack start (scripts/stack/agent-users.sh reach)', () => {
  const script = path.join(repoRoot, 'scripts/stack/agent-users.sh');
  const reach = (repo?: string) => spawnSync('bash', [script, 'reach', ...(repo ? [repo] : [])], { encoding: 'utf8' });

  it('says the pool reaches node and the agent CLIs of this clone', () => {
    const result = reach();
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(
      `agentrun1 reaches ${execFileSync('sh', ['-c', 'command -v node'], { encoding: 'utf8' }).trim()} and the agent CLIs of ${repoRoot}`,
    );
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
      new ConfigError(`invalid environment: AGENT_SECRETS_KEY_FILE: ${open} is open to other users (mode 644): chmod 400 or 440 it`),
    );
    expect(() => loadConfig({ AGENT_SECRETS_KEY_FILE: bad })).toThrow(
      new ConfigError('invalid environment: AGENT_SECRETS_KEY_FILE: 64 hexadecimal characters (32 bytes)'),
    );
    expect(() => loadConfig({ AGENT_SECRETS_KEY_FILE: keyFile, AGENT_SECRETS_KEY: 'cd'.repeat(32) })).toThrow(
      new ConfigError('invalid environment: AGENT_SECRETS_KEY_FILE: set AGENT_SECRETS_KEY or AGENT_SECRETS_KEY_FILE, not both'),
    );
  });
});

/** Resolves when the run ends cancelled (the expected end of a run kept alive), rejects otherwise. */
async function cancelled(outcome: Promise<AgentRunSummary>): Promise<void> {
  const error = await rejection(outcome);
  if (!(error instanceof AgentCancelledError)) throw error;
}
