import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { AgentUser } from '../../lib/agent-isolation';
import type { HomeFile, SessionLayout } from './agent-cli';
import { defaultAgentCli } from './agent-clis';
import { emptyHome, privateTmpDir, restoreSession, stashSession, writeHomeFiles } from './agent-sessions';
import { asUser } from './parent-death';

/**
 * Leases of the pool's users: one user per run at a time on this machine, whatever process or
 * test environment runs it (docs/agent-process.md, "Users and leases").
 *
 * A lease is a claim file `<user>~<pid>~<start time>~<random>` in a root-only runtime directory,
 * created with O_EXCL. A claim whose process is gone (pid dead, or reused: its start time differs)
 * is stale and is ignored and removed. Taking a user: create my claim, then list the directory;
 * if another live claim for that user is there, withdraw mine and try the next user. Of two
 * processes racing for one user at least the later one sees the earlier one's claim, so two never
 * both hold it (both may withdraw: they try again). No claim is ever taken over, so a stale claim
 * needs no lock of its own.
 *
 * Before a user is handed out and when it is given back, every process of that uid is killed
 * (the shell's builtin `kill -KILL -1` run as the user, repeated until /proc shows none left):
 * nothing left by an earlier run (a tool started with setsid, a run of a worker that died) can
 * watch the next run's environment or files. Then its HOME is emptied (agent-sessions.ts): a HOME
 * lasts one lease; the run's private TMPDIR is made inside it.
 */

/** Root-only (0700) and emptied at boot, like every runtime directory. */
export const DEFAULT_LEASE_DIR = '/run/agent-users';
const WAIT_POLL_MS = 250;
/**
 * The shell's builtin kill (dash's takes `-KILL -1`): /usr/bin/kill comes from procps, which a slim
 * Debian does not have. kill(-1) reaches every process of the user but the shell itself.
 */
const KILL_ALL = ['-c', 'kill -KILL -1'];
/** Rounds of kill-and-look before a user whose processes keep coming back (a fork racing the kill) is refused. */
const KILL_ROUNDS = 20;
const KILL_ROUND_PAUSE_MS = 25;

export interface AgentUserLease {
  readonly user: AgentUser;
  /** The session file put into the user's HOME for the run to resume (`sessions.resume`); null when none was. */
  readonly restoredSession: string | null;
  /**
   * Kills what is left of the user's processes, keeps the session the run reported (`sessionId`,
   * from the CLI's own events) when the lease has a session store, then frees the user. Idempotent.
   * A store that refuses the session (a full disk) costs the session, not the run: the answer says why
   * it was not kept, and the user is freed all the same.
   */
  release(sessionId?: string | null): Promise<LeaseRelease>;
}

export interface LeaseRelease {
  /** Why the run's session could not be kept in the store; null when kept or when there was none to keep. */
  sessionNotKept: string | null;
}

export interface LeaseOptions {
  /** Waiting for a free user ends with the signal's reason. */
  signal?: AbortSignal;
  leaseDir?: string;
  /**
   * The root-only store of the CLI's sessions (agent-sessions.ts), in the namespace of the agent
   * `agentId`: the session the run reported is moved there at the release, and `resume` is copied
   * from there (that agent's sessions only) into the user's emptied HOME at the start. Without it,
   * sessions are not kept beyond the lease. `layout`: where the run's CLI keeps its sessions in HOME
   * (its adapter's; the default adapter's when absent, agent-clis.ts).
   */
  sessions?: { store: string; agentId: string; resume?: string; layout?: SessionLayout };
  /**
   * The uid to take first when free: the owner of the run's working directory, so a project keeps
   * one owner while nothing else runs (git refuses a repository of another user). Any free user otherwise.
   */
  preferUid?: number;
  /** Files the run's CLI needs in the emptied HOME (its adapter's `homeFiles`), written as the user's own. */
  homeFiles?: readonly HomeFile[];
}

interface Claim {
  file: string;
  user: string;
  pid: number;
  startTime: string;
}

/** The kernel's start time of a process (clock ticks since boot), null when it does not exist. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22; the command name (field 2, in parentheses) may hold spaces.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

const ownStartTime = startTimeOf(process.pid) ?? '0';

function parseClaim(file: string): Claim | null {
  const [user, pid, startTime, random] = file.split('~');
  if (user === undefined || pid === undefined || startTime === undefined || random === undefined) return null;
  if (!/^\d+$/.test(pid)) return null;
  return { file, user, pid: Number(pid), startTime };
}

const alive = (claim: Claim) => startTimeOf(claim.pid) === claim.startTime;

/**
 * A claim file of the lease directory as a lease reads it: `live` while its process runs (the same
 * pid and start time), `stale` once it died; null for a file that is not a claim. Reads only.
 */
export function leaseClaimState(file: string): { user: string; pid: number; state: 'live' | 'stale' } | null {
  const claim = parseClaim(file);
  return claim === null ? null : { user: claim.user, pid: claim.pid, state: alive(claim) ? 'live' : 'stale' };
}

async function removeQuietly(file: string): Promise<void> {
  await fs.rm(file, { force: true });
}

/** The directory, created root-only; refused when it is anything else (a symlink, another owner, open to others). */
async function ensureLeaseDir(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const stat = await fs.lstat(dir);
  if (!stat.isDirectory() || stat.uid !== process.getuid?.()) {
    throw new Error(`the agent lease directory ${dir} is not a directory owned by this service's user`);
  }
  if ((stat.mode & 0o077) !== 0) await fs.chmod(dir, 0o700);
}

/** Live claims by user name; stale claims are removed on the way. */
async function liveClaims(dir: string): Promise<Map<string, Claim[]>> {
  const byUser = new Map<string, Claim[]>();
  for (const file of await fs.readdir(dir)) {
    const claim = parseClaim(file);
    if (claim === null) continue;
    if (!alive(claim)) {
      await removeQuietly(path.join(dir, file));
      continue;
    }
    byUser.set(claim.user, [...(byUser.get(claim.user) ?? []), claim]);
  }
  return byUser;
}

/**
 * Pids of the processes with the user's real or effective uid that can still run (zombies and
 * the dead excepted), from /proc/<pid>/status (its Uid line: a process that made itself
 * non-dumpable shows /proc/<pid> as root's, not its status).
 */
export async function processesOf(uid: number): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const status = await fs.readFile(`/proc/${entry}/status`, 'utf8').catch(() => '');
    const field = (name: string) => status.match(new RegExp(`^${name}:\\s*(.*)$`, 'm'))?.[1] ?? '';
    const [real, effective] = field('Uid').split(/\s+/).map(Number);
    const state = field('State').charAt(0);
    if ((real === uid || effective === uid) && state !== '' && state !== 'Z' && state !== 'X') pids.push(Number(entry));
  }
  return pids;
}

/**
 * Ends every process of the user: kill(-1) as the user, again while /proc still shows one (a
 * process forking while the kill walks the process list can leave a child), at most KILL_ROUNDS times.
 */
export async function killUserProcesses(user: AgentUser): Promise<void> {
  for (let round = 1; ; round += 1) {
    await killAllAs(user);
    const left = await processesOf(user.uid);
    if (left.length === 0) return;
    if (round === KILL_ROUNDS)
      throw new Error(`could not end the processes of ${user.name}: still running after ${KILL_ROUNDS} kills (pids ${left.join(', ')})`);
    await new Promise((resolve) => setTimeout(resolve, KILL_ROUND_PAUSE_MS));
  }
}

async function killAllAs(user: AgentUser): Promise<void> {
  const { command, args } = asUser(user, '/bin/sh', KILL_ALL);
  await new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    // kill may exit 1 when the user had no process left ("No such process"): the usual case.
    child.once('close', (code) =>
      code === 0 || code === 1 ? resolve() : reject(new Error(`could not end the processes of ${user.name}: ${stderr.trim()}`)),
    );
  });
}

function abortable(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    // The wait ends as the signal says: with its reason as it came (the activity's CancelledFailure).
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Tries each free user once; the lease, or null when every user is taken. */
async function tryLease(users: readonly AgentUser[], dir: string, options: LeaseOptions): Promise<AgentUserLease | null> {
  const { sessions, preferUid, homeFiles = [] } = options;
  const taken = await liveClaims(dir);
  const ordered = [...users].sort((a, b) => Number(b.uid === preferUid) - Number(a.uid === preferUid));
  for (const user of ordered) {
    if (taken.has(user.name)) continue;
    const mine = `${user.name}~${process.pid}~${ownStartTime}~${randomBytes(6).toString('hex')}`;
    const file = path.join(dir, mine);
    await fs.writeFile(file, '', { flag: 'wx', mode: 0o600 });
    const rivals = (await liveClaims(dir)).get(user.name)?.filter((claim) => claim.file !== mine) ?? [];
    if (rivals.length > 0) {
      await removeQuietly(file);
      continue;
    }
    let restoredSession: string | null = null;
    try {
      await killUserProcesses(user);
      await emptyHome(user);
      await privateTmpDir(user);
      await writeHomeFiles(user, homeFiles);
      if (sessions?.resume !== undefined)
        restoredSession = await restoreSession(
          user,
          sessions.store,
          sessions.agentId,
          sessions.resume,
          sessions.layout ?? defaultAgentCli.sessions,
        );
    } catch (error) {
      await removeQuietly(file);
      throw error;
    }
    let released = false;
    return {
      user,
      restoredSession,
      async release(sessionId = null) {
        if (released) return { sessionNotKept: null };
        released = true;
        let sessionNotKept: string | null = null;
        try {
          await killUserProcesses(user);
          if (sessions !== undefined) {
            await stashSession(user, sessions.store, sessions.agentId, sessionId, sessions.layout ?? defaultAgentCli.sessions).catch(
              (error: unknown) => {
                const message = (error as { message?: unknown } | null)?.message;
                sessionNotKept = typeof message === 'string' ? message : String(error);
              },
            );
          }
          await emptyHome(user);
        } finally {
          await removeQuietly(file);
        }
        return { sessionNotKept };
      },
    };
  }
  return null;
}

/** A free user of the pool, waiting (abortably) while every one is in use: a smaller pool slows runs down, never fails them. */
export async function leaseAgentUser(users: readonly AgentUser[], options: LeaseOptions = {}): Promise<AgentUserLease> {
  if (users.length === 0) throw new Error('the pool of agent users is empty');
  const dir = options.leaseDir ?? DEFAULT_LEASE_DIR;
  await ensureLeaseDir(dir);
  for (;;) {
    if (options.signal?.aborted) throw options.signal.reason;
    const lease = await tryLease(users, dir, options);
    if (lease !== null) return lease;
    await abortable(WAIT_POLL_MS, options.signal);
  }
}
