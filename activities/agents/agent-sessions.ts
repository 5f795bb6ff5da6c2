import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { AgentUser } from '../../lib/agent-isolation';
import type { HomeFile, SessionLayout } from './agent-cli';

/**
 * A pool user's HOME lasts one lease (docs/agent-process.md, "HOME and sessions"): it is emptied
 * before each run, so nothing a run leaves there (Claude Code settings with hooks, shell start
 * files, transcripts holding its secrets) reaches the next run of that user, which may be another
 * agent with other secrets. The CLI's sessions are kept apart: after a run the one session it
 * reported is moved into its agent's namespace of a root-only session store (the service's data
 * area), and a `continue` gets its session copied from that namespace only into the HOME of
 * whichever user it leases: a run cannot plant a transcript another agent's `continue` resumes.
 *
 * Everything here runs as root while no process of the user is alive (the lease has just killed
 * them all), so nothing changes under it; links the run left are never followed (lstat, O_NOFOLLOW).
 */

/** The store inside the service's data area (0700, agent-host.ts). */
export const sessionStoreIn = (dataDir: string): string => path.join(dataDir, 'agent-sessions');

/**
 * Where the CLI keeps its sessions in HOME is its adapter's (AgentCli.sessions; Claude Code:
 * `~/.claude/projects/<cwd, escaped>/<session id>.jsonl`); the store keeps the same directories
 * below the layout's `dir`, in the agent's namespace.
 */
const NAME = /^[A-Za-z0-9._-]{1,255}$/;
const plainName = (name: string) => NAME.test(name) && name !== '.' && name !== '..';

/**
 * The files of `sessionId` exactly `depth` directories below `root` (plain names, real directories,
 * regular files, never through a link), each with its path relative to `root` and when it was written.
 */
async function filesOfSession(
  root: string,
  depth: number,
  layout: SessionLayout,
  sessionId: string,
): Promise<Array<{ relative: string[]; mtimeMs: number }>> {
  const found: Array<{ relative: string[]; mtimeMs: number }> = [];
  const walk = async (dir: string, relative: string[]): Promise<void> => {
    for (const entry of await fs.readdir(dir).catch(() => [] as string[])) {
      if (!plainName(entry)) continue;
      const stat = await fs.lstat(path.join(dir, entry)).catch(() => null);
      if (relative.length === depth) {
        if (stat?.isFile() && layout.matches(entry, sessionId)) found.push({ relative: [...relative, entry], mtimeMs: stat.mtimeMs });
      } else if (stat?.isDirectory()) {
        await walk(path.join(dir, entry), [...relative, entry]);
      }
    }
  };
  await walk(root, []);
  return found;
}

/** Each directory from HOME down to the layout's (`.claude`, then `.claude/projects`) is a real directory, not a link. */
async function realDirectories(home: string, parts: readonly string[]): Promise<boolean> {
  for (let depth = 1; depth <= parts.length; depth += 1) {
    if (!(await isRealDirectory(path.join(home, ...parts.slice(0, depth))))) return false;
  }
  return true;
}
/** A session bigger than this is not kept (a run could otherwise fill the service's disk through it). */
export const SESSION_MAX_BYTES = 64 * 1024 * 1024;
/** Sessions kept in the whole store; beyond, the least recently written are deleted (a `continue` of those fails). */
export const SESSIONS_KEPT = 2_000;
/** Sessions kept per agent: one agent's runs take at most a tenth of the store, not every other agent's sessions. */
export const SESSIONS_KEPT_PER_AGENT = 200;
/** Agent ids are UUIDs; this only keeps a namespace one plain directory name. */
const AGENT_ID = /^[A-Za-z0-9_-]{1,64}$/;

async function isRealDirectory(file: string): Promise<boolean> {
  return fs.lstat(file).then(
    (stat) => stat.isDirectory(),
    () => false,
  );
}

/** The HOME itself, as the pool made it: a directory of the user, 0700; its content removed without following links. */
export async function emptyHome(user: AgentUser): Promise<void> {
  const stat = await fs.lstat(user.home);
  if (!stat.isDirectory() || stat.uid !== user.uid)
    throw new Error(`the HOME of ${user.name} (${user.home}) is not its directory: run scripts/stack/agent-users.sh`);
  for (const entry of await fs.readdir(user.home)) await fs.rm(path.join(user.home, entry), { recursive: true, force: true });
  await fs.chmod(user.home, 0o700);
}

/**
 * The run's own temporary directory, `$HOME/.tmp` (TMPDIR, TMP and TEMP of the agent, agent-env.ts):
 * /tmp is shared by every run of the machine, and what a run writes there with the pool's umask
 * (0007) the next run of another pool user could read. Inside the HOME it is private (0700, and the
 * HOME is 0700) and emptied with it.
 */
export const tmpDirOf = (home: string): string => path.join(home, '.tmp');

/** Makes the private TMPDIR in the (just emptied) HOME of `user`: no process of the user is alive to race it. */
export async function privateTmpDir(user: AgentUser): Promise<void> {
  const dir = tmpDirOf(user.home);
  await fs.mkdir(dir, { mode: 0o700 });
  await fs.chown(dir, user.uid, user.gid);
  await fs.chmod(dir, 0o700);
}

/**
 * Writes the CLI's files (its adapter's `homeFiles`) into the (just emptied) HOME of `user`, as the
 * user's own: directories 0700, files 0600. Plain relative paths only; nothing of the user runs yet.
 */
export async function writeHomeFiles(user: AgentUser, files: readonly HomeFile[]): Promise<void> {
  for (const file of files) {
    const parts = file.path.split('/');
    if (parts.some((part) => !NAME.test(part) || part === '.' || part === '..'))
      throw new Error(`"${file.path}" is not a plain path below HOME`);
    let dir = user.home;
    for (const part of parts.slice(0, -1)) {
      dir = path.join(dir, part);
      if (!(await isRealDirectory(dir))) {
        await fs.mkdir(dir, { mode: 0o700 });
        await fs.chown(dir, user.uid, user.gid);
      }
    }
    const target = path.join(user.home, ...parts);
    await fs.writeFile(target, file.content, { mode: 0o600, flag: 'wx' });
    await fs.chown(target, user.uid, user.gid);
  }
}

/** Copies a regular file of the user, not through a link, at most `limit` bytes; false when it is not one. */
async function copyOwnedFile(from: string, to: string, owner: number, limit: number): Promise<boolean> {
  const source = await fs.open(from, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
  if (source === null) return false;
  try {
    const stat = await source.stat();
    if (!stat.isFile() || stat.uid !== owner || stat.size > limit) return false;
    const partial = `${to}.${process.pid}.partial`;
    try {
      await fs.writeFile(partial, await source.readFile(), { mode: 0o600 });
      await fs.rename(partial, to);
    } catch (error) {
      // A write cut short (a full disk) leaves no partial file behind to fill the store.
      await fs.rm(partial, { force: true });
      throw error;
    }
    return true;
  } finally {
    await source.close();
  }
}

/** An agent's namespace in the store: its sessions are apart from every other agent's. */
export function agentNamespace(store: string, agentId: string): string {
  if (!AGENT_ID.test(agentId)) throw new Error(`"${agentId}" cannot name a session namespace (letters, digits, _ and -)`);
  return path.join(store, agentId);
}

/**
 * Moves the one session the run reported (the CLI's init/result event) from the user's HOME into the
 * agent's namespace (`<store>/<agent id>/<project dir>/<session>.jsonl`); any other file the run left
 * there is not kept, so a run can neither plant a transcript for another id nor flood the store.
 * When several project directories hold the id, the most recently written one is kept.
 */
export async function stashSession(
  user: AgentUser,
  store: string,
  agentId: string,
  sessionId: string | null,
  layout: SessionLayout,
): Promise<boolean> {
  const namespace = agentNamespace(store, agentId);
  if (sessionId === null) return false;
  if (!(await realDirectories(user.home, layout.dir))) return false;
  const candidates = await filesOfSession(path.join(user.home, ...layout.dir), layout.depth, layout, sessionId);
  const newest = candidates.sort((a, b) => b.mtimeMs - a.mtimeMs)[0];
  if (newest === undefined) return false;
  const target = path.join(namespace, ...newest.relative);
  await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
  const kept = await copyOwnedFile(path.join(user.home, ...layout.dir, ...newest.relative), target, user.uid, SESSION_MAX_BYTES);
  if (kept) {
    await pruneStore(namespace, SESSIONS_KEPT_PER_AGENT);
    await pruneStore(store, SESSIONS_KEPT);
  }
  return kept;
}

/** How deep a session may lie in the store: the agent's namespace, then any adapter's layout. */
const STORE_DEPTH_MAX = 8;

/** Every regular file below `dir`, however deep (up to STORE_DEPTH_MAX): the store holds nothing else. */
async function sessionFiles(dir: string, depth = 0): Promise<Array<{ file: string; mtimeMs: number }>> {
  const found: Array<{ file: string; mtimeMs: number }> = [];
  for (const entry of await fs.readdir(dir).catch(() => [] as string[])) {
    const full = path.join(dir, entry);
    const stat = await fs.lstat(full).catch(() => null);
    if (stat?.isFile()) found.push({ file: full, mtimeMs: stat.mtimeMs });
    if (stat?.isDirectory() && depth < STORE_DEPTH_MAX) found.push(...(await sessionFiles(full, depth + 1)));
  }
  return found;
}

/** Deletes the least recently written sessions below `store` beyond `keep`, and the directories they leave empty. */
export async function pruneStore(store: string, keep: number): Promise<void> {
  const sessions = await sessionFiles(store);
  if (sessions.length <= keep) return;
  sessions.sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const { file } of sessions.slice(keep)) {
    await fs.rm(file, { force: true });
    // Only when empty, up to (not including) the store itself.
    for (let dir = path.dirname(file); dir.startsWith(`${store}${path.sep}`); dir = path.dirname(dir)) {
      const removed = await fs.rmdir(dir).then(
        () => true,
        () => false,
      );
      if (!removed) break;
    }
  }
}

/**
 * Puts the session `sessionId` of the agent's namespace into the (emptied) HOME of `user`: the path of
 * the file put there, null when the namespace has no such session.
 */
export async function restoreSession(
  user: AgentUser,
  store: string,
  agentId: string,
  sessionId: string,
  layout: SessionLayout,
): Promise<string | null> {
  const namespace = agentNamespace(store, agentId);
  if (!(await isRealDirectory(namespace))) return null;
  const stored = (await filesOfSession(namespace, layout.depth, layout, sessionId)).sort((a, b) => b.mtimeMs - a.mtimeMs)[0];
  if (stored === undefined) return null;
  let dir = user.home;
  for (const part of [...layout.dir, ...stored.relative.slice(0, -1)]) {
    dir = path.join(dir, part);
    await fs.mkdir(dir, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    await fs.chown(dir, user.uid, user.gid);
  }
  const target = path.join(dir, stored.relative.at(-1)!);
  await fs.copyFile(path.join(namespace, ...stored.relative), target);
  await fs.chown(target, user.uid, user.gid);
  await fs.chmod(target, 0o600);
  return target;
}

/** How much of a session's file `sessionFileEnd` reads: the end holds its last token count. */
const SESSION_FILE_END_BYTES = 1024 * 1024;

/** The last whole lines of a session's file, at most SESSION_FILE_END_BYTES of them. */
export async function sessionFileEnd(file: string): Promise<string> {
  const handle = await fs.open(file, 'r');
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - SESSION_FILE_END_BYTES);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    const text = buffer.toString('utf8');
    // A cut first line is dropped: it would not parse.
    return start === 0 ? text : text.slice(text.indexOf('\n') + 1);
  } finally {
    await handle.close();
  }
}
