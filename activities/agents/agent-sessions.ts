import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { AgentUser } from '../../lib/agent-isolation';

/**
 * A pool user's HOME lasts one lease (docs/agent-process.md, "HOME and sessions"): it is emptied
 * before each run, so nothing a run leaves there (Claude Code settings with hooks, shell start
 * files, transcripts holding its secrets) reaches the next run of that user, which may be another
 * agent with other secrets. The CLI's sessions are kept apart: after a run they are moved into a
 * root-only session store (the service's data area), and a `continue` gets its session copied into
 * the HOME of whichever user it leases.
 *
 * Everything here runs as root while no process of the user is alive (the lease has just killed
 * them all), so nothing changes under it; links the run left are never followed (lstat, O_NOFOLLOW).
 */

/** The store inside the service's data area (0700, agent-host.ts). */
export const sessionStoreIn = (dataDir: string): string => path.join(dataDir, 'agent-sessions');

/** Claude Code's sessions: `~/.claude/projects/<cwd, escaped>/<session id>.jsonl`. */
const PROJECTS = ['.claude', 'projects'];
const SESSION_FILE = /^[A-Za-z0-9_-]{1,128}\.jsonl$/;
const NAME = /^[A-Za-z0-9._-]{1,255}$/;
/** A session bigger than this is not kept (a run could otherwise fill the service's disk through it). */
export const SESSION_MAX_BYTES = 64 * 1024 * 1024;
/** Sessions kept in the store; beyond, the least recently written are deleted (a `continue` of those fails). */
export const SESSIONS_KEPT = 2_000;

async function isRealDirectory(file: string): Promise<boolean> {
  return fs.lstat(file).then((stat) => stat.isDirectory(), () => false);
}

/** The HOME itself, as the pool made it: a directory of the user, 0700; its content removed without following links. */
export async function emptyHome(user: AgentUser): Promise<void> {
  const stat = await fs.lstat(user.home);
  if (!stat.isDirectory() || stat.uid !== user.uid) throw new Error(`the HOME of ${user.name} (${user.home}) is not its directory: run scripts/stack/agent-users.sh`);
  for (const entry of await fs.readdir(user.home)) await fs.rm(path.join(user.home, entry), { recursive: true, force: true });
  await fs.chmod(user.home, 0o700);
}

/** Copies a regular file of the user, not through a link, at most `limit` bytes; false when it is not one. */
async function copyOwnedFile(from: string, to: string, owner: number, limit: number): Promise<boolean> {
  const source = await fs.open(from, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
  if (source === null) return false;
  try {
    const stat = await source.stat();
    if (!stat.isFile() || stat.uid !== owner || stat.size > limit) return false;
    const partial = `${to}.${process.pid}.partial`;
    await fs.writeFile(partial, await source.readFile(), { mode: 0o600 });
    await fs.rename(partial, to);
    return true;
  } finally {
    await source.close();
  }
}

/** Moves the sessions the run left in the user's HOME into the store (`<store>/<project dir>/<session>.jsonl`). */
export async function stashSessions(user: AgentUser, store: string): Promise<number> {
  const projects = path.join(user.home, ...PROJECTS);
  if (!(await isRealDirectory(path.join(user.home, PROJECTS[0]!))) || !(await isRealDirectory(projects))) return 0;
  let kept = 0;
  for (const project of await fs.readdir(projects)) {
    if (!NAME.test(project) || !(await isRealDirectory(path.join(projects, project)))) continue;
    for (const file of await fs.readdir(path.join(projects, project))) {
      if (!SESSION_FILE.test(file)) continue;
      await fs.mkdir(path.join(store, project), { recursive: true, mode: 0o700 });
      if (await copyOwnedFile(path.join(projects, project, file), path.join(store, project, file), user.uid, SESSION_MAX_BYTES)) kept += 1;
    }
  }
  if (kept > 0) await pruneStore(store, SESSIONS_KEPT);
  return kept;
}

/** Deletes the least recently written sessions beyond `keep` (and project directories left empty). */
export async function pruneStore(store: string, keep: number): Promise<void> {
  const sessions: Array<{ file: string; mtimeMs: number }> = [];
  for (const project of await fs.readdir(store)) {
    for (const file of await fs.readdir(path.join(store, project)).catch(() => [])) {
      const stat = await fs.lstat(path.join(store, project, file)).catch(() => null);
      if (stat?.isFile()) sessions.push({ file: path.join(store, project, file), mtimeMs: stat.mtimeMs });
    }
  }
  if (sessions.length <= keep) return;
  sessions.sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const { file } of sessions.slice(keep)) {
    await fs.rm(file, { force: true });
    await fs.rmdir(path.dirname(file)).catch(() => undefined); // only when empty
  }
}

/** Puts the stored session `sessionId` into the (emptied) HOME of `user`; false when the store has none. */
export async function restoreSession(user: AgentUser, store: string, sessionId: string): Promise<boolean> {
  const file = `${sessionId}.jsonl`;
  if (!SESSION_FILE.test(file) || !(await isRealDirectory(store))) return false;
  for (const project of await fs.readdir(store)) {
    const stored = path.join(store, project, file);
    if (!NAME.test(project) || !(await fs.lstat(stored).then((stat) => stat.isFile(), () => false))) continue;
    let dir = user.home;
    for (const part of [...PROJECTS, project]) {
      dir = path.join(dir, part);
      await fs.mkdir(dir, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      await fs.chown(dir, user.uid, user.gid);
    }
    const target = path.join(dir, file);
    await fs.copyFile(stored, target);
    await fs.chown(target, user.uid, user.gid);
    await fs.chmod(target, 0o600);
    return true;
  }
  return false;
}
