import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Database } from '../../db';
import { setExecutionRepoCommit } from '../../db/repository-runs';
import { bundleMismatchError, commitKeptError, pushRefusedError } from '../../domain/run-messages';
import type { AgentUser } from '../../lib/agent-isolation';
import { git, GitError } from '../../lib/git';
import { askPassEnvironment, type Repository, type RepositoryConfig } from '../../services/repos';
import { asUser } from '../agents/parent-death';

/**
 * A run's working copy of a repository (docs/repositories.md). The service keeps its own bare
 * mirror of each repository (fetched and pushed by the service, with the credentials); the working
 * copy is cloned from that mirror, committed in and bundled by the agent's own user, whose git never
 * sees the credentials nor runs anything the working copy configures (its `.git/config` is replaced
 * and its hooks removed before every use, and lib/git.ts switches the rest off). The service then
 * fetches the bundle into its mirror and pushes from there: data only crosses back, never code.
 */

export class RepositoryRunError extends Error {
  override name = 'RepositoryRunError';
}

/** A branch name git accepts and a config file can hold as it is. */
const BRANCH_NAME = /^(?!.*\.\.)(?!.*\/\/)(?!\/)(?!.*\/$)(?!.*\.lock$)(?!-)[A-Za-z0-9._/-]{1,200}$/;

export function validBranchName(name: string): boolean {
  return BRANCH_NAME.test(name);
}

/** The service's mirror of `repo`: a bare repository the pool may read, never write. */
export function mirrorPath(config: RepositoryConfig, repo: Repository): string {
  return path.join(config.mirrorsDir, `${repo.name}.git`);
}

const userGit = (user: AgentUser | null) =>
  user === null ? {} : { asUser: (command: string, args: string[]) => asUser(user, command, args) };

/** Runs a constant shell script as `user` (or the service's user) in `cwd`, `input` on stdin. */
function shellAs(user: AgentUser | null, cwd: string, script: string, input: string): Promise<void> {
  const { command, args } = user === null ? { command: '/bin/sh', args: ['-c', script] } : asUser(user, '/bin/sh', ['-c', script]);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { PATH: '/usr/bin:/bin' }, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0
        ? resolve()
        : reject(new RepositoryRunError(`a cópia de trabalho não pôde ser restaurada: ${stderr.trim() || `código ${code}`}`)),
    );
    child.stdin.end(input);
  });
}

/**
 * The working copy's configuration, whatever the agent left in it: origin is the mirror, the branch
 * tracks it; no include, no filter, no hook path, nothing that names a program.
 */
function canonicalConfig(mirror: string, branch: string): string {
  return [
    '[core]',
    '\trepositoryformatversion = 0',
    '\tfilemode = true',
    '\tbare = false',
    '\tlogallrefupdates = true',
    '[remote "origin"]',
    `\turl = ${mirror}`,
    '\tfetch = +refs/heads/*:refs/remotes/origin/*',
    `[branch "${branch}"]`,
    '\tremote = origin',
    `\tmerge = refs/heads/${branch}`,
    '',
  ].join('\n');
}

/** Replaces `.git/config` and empties `.git/hooks`, as the working copy's user (a planted symlink only reaches what that user can). */
async function resetGitDirectory(user: AgentUser | null, dir: string, mirror: string, branch: string): Promise<void> {
  const gitDir = await fs.lstat(path.join(dir, '.git')).catch(() => null);
  if (!gitDir?.isDirectory()) throw new RepositoryRunError(`a cópia de trabalho ${dir} não tem diretório .git`);
  await shellAs(user, dir, 'rm -rf -- .git/hooks && mkdir -- .git/hooks && cat > .git/config', canonicalConfig(mirror, branch));
}

/**
 * The global configuration the working copy's git reads: it trusts the service's mirror (owned by
 * the service, so git would refuse to clone or fetch from it as "dubious ownership", and git 2.39
 * takes safe.directory only from a global or system file) and says nothing else.
 */
async function mirrorTrustFile(mirror: string): Promise<string> {
  const file = `${mirror}.gitconfig`;
  await fs.writeFile(file, `[safe]\n\tdirectory = ${mirror}\n`, { mode: 0o644 });
  return file;
}

/** Clones the repository into the mirror, or fetches it there; the service's own git, with the credentials. */
export async function updateMirror(config: RepositoryConfig, repo: Repository): Promise<string> {
  const mirror = mirrorPath(config, repo);
  const env = repo.remote ? askPassEnvironment(config.credentials) : {};
  await fs.mkdir(config.mirrorsDir, { recursive: true, mode: 0o755 });
  const exists = await fs.stat(path.join(mirror, 'HEAD')).then(
    () => true,
    () => false,
  );
  try {
    if (!exists) {
      const staging = `${mirror}.${randomUUID()}.tmp`;
      await git(['clone', '--mirror', '--quiet', '--', repo.url, staging], { env });
      await fs.rename(staging, mirror).catch(async (error: NodeJS.ErrnoException) => {
        // Another run made it meanwhile: keep theirs.
        await fs.rm(staging, { recursive: true, force: true });
        if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
      });
    } else {
      await git(['--git-dir', mirror, 'remote', 'set-url', 'origin', repo.url]);
      await git(['--git-dir', mirror, 'fetch', '--prune', '--quiet', 'origin'], { env });
    }
  } catch (error) {
    if (error instanceof GitError) throw new RepositoryRunError(`o repositório "${repo.name}" não pôde ser baixado: ${error.message}`);
    throw error;
  }
  return mirror;
}

export interface PreparedWorkingCopy {
  mirror: string;
  branch: string;
}

/**
 * Makes `dir` (an existing directory, see prepareWorkingDirectory) a working copy of `branch` (null:
 * the repository's default) as `user`: cloned from the mirror when empty, else reset, fetched,
 * checked out and fast-forwarded. A working copy whose branch has commits the repository lacks (a
 * push refused earlier) stops the run with git's message rather than dropping them.
 */
export async function prepareWorkingCopy(
  config: RepositoryConfig,
  repo: Repository,
  branch: string | null,
  dir: string,
  user: AgentUser | null,
): Promise<PreparedWorkingCopy> {
  const mirror = await updateMirror(config, repo);
  const trustMirror = { env: { GIT_CONFIG_GLOBAL: await mirrorTrustFile(mirror) } };
  const as = userGit(user);
  try {
    const chosen = branch ?? (await defaultBranchOf(mirror));
    if (!validBranchName(chosen)) throw new RepositoryRunError(`"${chosen}" não é um nome de branch`);
    const known = await git(['--git-dir', mirror, 'rev-parse', '--verify', '--quiet', `refs/heads/${chosen}^{commit}`]).then(
      () => true,
      () => false,
    );
    if (!known) throw new RepositoryRunError(`branch "${chosen}" não encontrado no repositório "${repo.name}"`);
    const hasGit = await fs.lstat(path.join(dir, '.git')).then(
      () => true,
      () => false,
    );
    if (!hasGit) {
      if ((await fs.readdir(dir)).length > 0)
        throw new RepositoryRunError(`${dir} não está vazio e não é uma cópia de trabalho de "${repo.name}"`);
      await git(['clone', '--quiet', '--no-hardlinks', '--branch', chosen, '--', mirror, '.'], { cwd: dir, ...trustMirror, ...as });
      await resetGitDirectory(user, dir, mirror, chosen);
    } else {
      await resetGitDirectory(user, dir, mirror, chosen);
      await git(['fetch', '--quiet', '--prune', 'origin'], { cwd: dir, ...trustMirror, ...as });
      const local = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${chosen}`], { cwd: dir, ...as }).then(
        () => true,
        () => false,
      );
      if (local) await git(['checkout', '--quiet', chosen], { cwd: dir, ...as });
      else await git(['checkout', '--quiet', '-b', chosen, `refs/remotes/origin/${chosen}`], { cwd: dir, ...as });
      await git(['merge', '--ff-only', '--quiet', `refs/remotes/origin/${chosen}`], { cwd: dir, ...as });
    }
    return { mirror, branch: chosen };
  } catch (error) {
    if (error instanceof GitError)
      throw new RepositoryRunError(`a cópia de trabalho de "${repo.name}" não pôde ser preparada: ${error.message}`);
    throw error;
  }
}

async function defaultBranchOf(mirror: string): Promise<string> {
  const head = await git(['--git-dir', mirror, 'symbolic-ref', '--quiet', 'HEAD']).catch(() => '');
  const name = head.replace(/^refs\/heads\//, '');
  if (!name) throw new RepositoryRunError('o repositório não tem branch padrão (está vazio?)');
  return name;
}

export interface PublishedChanges {
  /** The commit made (null: nothing changed, nothing pushed). */
  commit: string | null;
  /** Files in the commit. */
  files: number;
  /** The push's failure (the commit stays in the working copy); null when pushed or nothing to push. */
  pushError: string | null;
}

/**
 * After a completed run: every change committed as `user` with `message`, bundled by `user`, fetched
 * into the mirror and pushed from it by the service. Nothing changed and nothing left from an earlier
 * refused push: nothing committed or pushed. `files` counts what the push brings to the branch.
 */
export async function commitAndPush(
  config: RepositoryConfig,
  repo: Repository,
  prepared: PreparedWorkingCopy,
  dir: string,
  user: AgentUser | null,
  message: string,
): Promise<PublishedChanges> {
  const as = userGit(user);
  const { mirror, branch } = prepared;
  try {
    await resetGitDirectory(user, dir, mirror, branch);
    await git(['checkout', '--quiet', branch], { cwd: dir, ...as });
    await git(['add', '--all', '--', '.'], { cwd: dir, ...as });
    const staged = await git(['diff', '--cached', '--name-only', '-z'], { cwd: dir, ...as });
    if (staged !== '') await git(['commit', '--quiet', '--no-verify', '--no-gpg-sign', '-m', message], { cwd: dir, ...as });
    // What the repository lacks: this commit, and any an earlier refused push left behind.
    const pending = await git(['diff', '--name-only', '-z', `refs/remotes/origin/${branch}`, 'HEAD'], { cwd: dir, ...as });
    const files = pending.split('\0').filter(Boolean).length;
    const ahead = Number(await git(['rev-list', '--count', `refs/remotes/origin/${branch}..HEAD`], { cwd: dir, ...as }));
    if (ahead === 0) return { commit: null, files: 0, pushError: null };
    const commit = await git(['rev-parse', 'HEAD'], { cwd: dir, ...as });
    const pushError = await pushFromBundle(config, repo, dir, user, mirror, branch, commit);
    return { commit, files, pushError };
  } catch (error) {
    if (error instanceof GitError) throw new RepositoryRunError(`as alterações não puderam ser commitadas: ${error.message}`);
    throw error;
  }
}

/** The bundle of the branch crosses from the working copy (its user's git) to the mirror (the service's), then is pushed. */
async function pushFromBundle(
  config: RepositoryConfig,
  repo: Repository,
  dir: string,
  user: AgentUser | null,
  mirror: string,
  branch: string,
  commit: string,
): Promise<string | null> {
  const bundleDir = await fs.mkdtemp(path.join(config.mirrorsDir, '.bundle-'));
  const bundle = path.join(bundleDir, 'changes.bundle');
  const incoming = `refs/incoming/${randomUUID()}`;
  try {
    await git(['bundle', 'create', '--quiet', '-', `refs/heads/${branch}`], {
      cwd: dir,
      stdoutTo: createWriteStream(bundle, { mode: 0o600 }),
      ...userGit(user),
    });
    await git(['--git-dir', mirror, 'fetch', '--quiet', bundle, `refs/heads/${branch}:${incoming}`]);
    const received = await git(['--git-dir', mirror, 'rev-parse', incoming]);
    if (received !== commit) return bundleMismatchError(received, commit);
    const env = repo.remote ? askPassEnvironment(config.credentials) : {};
    await git(['--git-dir', mirror, 'push', '--quiet', '--', repo.url, `${commit}:refs/heads/${branch}`], { env });
    return null;
  } catch (error) {
    if (error instanceof GitError) return pushRefusedError(repo.name, error.message);
    throw error;
  } finally {
    await git(['--git-dir', mirror, 'update-ref', '-d', incoming]).catch(() => undefined);
    await fs.rm(bundleDir, { recursive: true, force: true });
  }
}

/** The commit message (docs/repositories.md): agent, task, execution. */
export function commitMessage(agentName: string, task: string, executionId: string): string {
  const firstLine =
    task
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? '';
  const subject = `${agentName}: ${firstLine}`.slice(0, 72);
  return `${subject}\n\nExecução: ${executionId}\nAgente: ${agentName}\n\nTarefa:\n${task.slice(0, 4000)}\n`;
}

/** The output line the panel shows after a push (contract 4.4, `success`). */
export function pushAnnouncement(repo: Repository, commit: string, files: number): string {
  return `Git: commit ${commit.slice(0, 7)} pushed para ${repo.name} (${files} arquivos) → ${repo.url}`;
}

export interface RecordedPushDeps {
  db: Database;
  config: RepositoryConfig;
  /** Shows the push's line in the run's output (contract 4.4, `success`). */
  announce: (content: string) => Promise<void>;
}

/**
 * commitAndPush for a record: the commit stored in it as soon as it exists, the push announced. Null
 * when pushed (or nothing to push); else why not, saying where the commit stays.
 */
export async function commitPushAndRecord(
  deps: RecordedPushDeps,
  repo: Repository,
  prepared: PreparedWorkingCopy,
  dir: string,
  user: AgentUser | null,
  message: string,
  executionId: string,
): Promise<string | null> {
  const published = await commitAndPush(deps.config, repo, prepared, dir, user, message);
  if (published.commit === null) return null;
  await setExecutionRepoCommit(deps.db, executionId, published.commit);
  if (published.pushError !== null) return commitKeptError(published.pushError, published.commit, dir);
  await deps.announce(pushAnnouncement(repo, published.commit, published.files));
  return null;
}
