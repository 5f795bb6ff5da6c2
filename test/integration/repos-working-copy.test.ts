import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { leaseAgentUser, type AgentUserLease } from '../../activities/agents/agent-users';
import { prepareWorkingDirectory } from '../../activities/agents/agent-workdir';
import { asUser } from '../../activities/agents/parent-death';
import { commitAndPush, commitMessage, prepareWorkingCopy, RepositoryRunError } from '../../activities/repos/working-copy';
import { pushRefusedError } from '../../domain/run-messages';
import { agentIsolation, type AgentUser } from '../../lib/agent-isolation';
import { config } from '../../lib/config';
import { findRepository, type RepositoryConfig } from '../../services/repos';
import { bareRepository as makeBare, gitIn } from '../support/git-repos';

/**
 * A run's working copy (docs/repositories.md) against real bare repositories: cloned from the
 * service's mirror and committed in as an agent user (the pool's, as runs are), pushed by the
 * service from its mirror; what an agent plants in the working copy's .git never runs.
 */

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'repos-wc-'));
fs.chmodSync(scratch, 0o755);
const reposDir = path.join(scratch, 'repos');
const markers = path.join(scratch, 'markers');
const projects = path.join(config.orchestration.workdirRoots[0]!, `test-repos-${process.pid}-${Date.now()}`);
const repoConfig: RepositoryConfig = {
  dir: reposDir,
  remotes: [],
  credentials: null,
  mirrorsDir: path.join(scratch, 'mirrors'),
  publishDir: null,
};

const bareGit = (name: string, ...args: string[]) => gitIn(scratch, '--git-dir', path.join(reposDir, `${name}.git`), ...args);
const bareRepository = (name: string, branches: string[]) => makeBare(scratch, reposDir, `${name}.git`, branches);

let lease: AgentUserLease | null = null;
let user: AgentUser | null = null;

/** A shell command as the working copy's user, as an agent's Bash tool would run it. */
function asAgent(cwd: string, script: string): void {
  const { command, args } = user ? asUser(user, '/bin/sh', ['-c', script]) : { command: '/bin/sh', args: ['-c', script] };
  const done = spawnSync(command, args, { cwd, env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent' } });
  if (done.status !== 0) throw new Error(`${script}: ${done.stderr.toString()}`);
}

async function workingDirectory(name: string): Promise<string> {
  return prepareWorkingDirectory(path.join(projects, name), config.orchestration.workdirRoots, user);
}

beforeAll(async () => {
  fs.mkdirSync(reposDir);
  fs.mkdirSync(markers, { mode: 0o777 });
  fs.chmodSync(markers, 0o777);
  bareRepository('app', ['main', 'feature']);
  bareRepository('guarded', ['main']);
  // The remote's own policy refuses every push (a hook of the operator's bare repository).
  const hook = path.join(reposDir, 'guarded.git', 'hooks', 'pre-receive');
  fs.writeFileSync(hook, '#!/bin/sh\necho "pushes are closed by policy" >&2\nexit 1\n', { mode: 0o755 });
  const isolation = agentIsolation();
  if (isolation.mode === 'user-pool') {
    lease = await leaseAgentUser(isolation.users);
    user = lease.user;
  }
});

afterAll(async () => {
  await lease?.release();
  fs.rmSync(scratch, { recursive: true, force: true });
  fs.rmSync(projects, { recursive: true, force: true });
});

describe('a working copy of a repository', () => {
  it('runs as an agent user of the pool (the machine has the pool, as CI does)', () => {
    expect(agentIsolation().mode).toBe('user-pool');
    expect(user?.name).toMatch(/^agentrun\d+$/);
  });

  it('is cloned on the default branch, and the run’s changes are committed and pushed with a descriptive message', async () => {
    const repo = await findRepository(repoConfig, 'app');
    const dir = await workingDirectory('app');
    const prepared = await prepareWorkingCopy(repoConfig, repo, null, dir, user);
    expect(prepared.branch).toBe('main');
    expect(fs.readFileSync(path.join(dir, 'README.md'), 'utf8')).toBe('# app.git\n');
    expect(fs.statSync(path.join(dir, '.git')).uid).toBe(user!.uid);

    asAgent(dir, 'echo "hello" > hello.txt && mkdir -p src && echo "x" > src/x.ts');
    const message = commitMessage('Redator', 'Escreva o olá\nem dois arquivos', 'exec-123');
    const published = await commitAndPush(repoConfig, repo, prepared, dir, user, message);
    expect(published).toEqual({ commit: expect.stringMatching(/^[0-9a-f]{40}$/), files: 2, pushError: null });
    expect(bareGit('app', 'rev-parse', 'refs/heads/main')).toBe(published.commit);
    expect(bareGit('app', 'log', '-1', '--format=%B', 'main')).toBe(
      'Redator: Escreva o olá\n\nExecução: exec-123\nAgente: Redator\n\nTarefa:\nEscreva o olá\nem dois arquivos',
    );
    expect(bareGit('app', 'show', 'main:hello.txt')).toBe('hello');

    // A run that changes nothing pushes nothing.
    const again = await prepareWorkingCopy(repoConfig, repo, null, dir, user);
    expect(await commitAndPush(repoConfig, repo, again, dir, user, commitMessage('Redator', 'nada', 'exec-124'))).toEqual({
      commit: null,
      files: 0,
      pushError: null,
    });
    expect(bareGit('app', 'rev-parse', 'refs/heads/main')).toBe(published.commit);
  });

  it('never runs a hook or an fsmonitor the agent planted in the working copy', async () => {
    const repo = await findRepository(repoConfig, 'app');
    const dir = await workingDirectory('app');
    const prepared = await prepareWorkingCopy(repoConfig, repo, 'main', dir, user);
    const planted = (name: string) => `#!/bin/sh\ntouch ${markers}/${name}\n`;
    for (const hook of ['pre-commit', 'commit-msg', 'post-commit', 'pre-push', 'post-checkout', 'post-merge', 'reference-transaction']) {
      asAgent(dir, `printf '%s' '${planted(hook)}' > .git/hooks/${hook} && chmod +x .git/hooks/${hook}`);
    }
    asAgent(dir, `printf '%s' '${planted('fsmonitor')}' > /tmp/fsmonitor-${process.pid}.sh && chmod +x /tmp/fsmonitor-${process.pid}.sh`);
    asAgent(
      dir,
      `printf '[core]\\n\\tfsmonitor = /tmp/fsmonitor-${process.pid}.sh\\n\\thooksPath = .git/hooks\\n\\tpager = /tmp/fsmonitor-${process.pid}.sh\\n[filter "x"]\\n\\tclean = /tmp/fsmonitor-${process.pid}.sh\\n' >> .git/config`,
    );
    asAgent(dir, `echo '* filter=x' > .gitattributes && echo changed >> hello.txt`);

    const published = await commitAndPush(repoConfig, repo, prepared, dir, user, commitMessage('Redator', 'mude', 'exec-125'));
    expect(published).toMatchObject({ files: 2, pushError: null });
    expect(bareGit('app', 'rev-parse', 'refs/heads/main')).toBe(published.commit);
    expect(fs.readdirSync(markers)).toEqual([]);
    // The working copy's configuration is the service's again, its hooks gone.
    expect(fs.readFileSync(path.join(dir, '.git', 'config'), 'utf8')).not.toMatch(/fsmonitor|hooksPath|filter|pager/);
    expect(fs.readdirSync(path.join(dir, '.git', 'hooks'))).toEqual([]);
    fs.rmSync(`/tmp/fsmonitor-${process.pid}.sh`, { force: true });
  });

  it('checks out the branch asked for and pushes to it only; an unknown branch stops before anything runs', async () => {
    const repo = await findRepository(repoConfig, 'app');
    const dir = await workingDirectory('app');
    const mainBefore = bareGit('app', 'rev-parse', 'refs/heads/main');
    const prepared = await prepareWorkingCopy(repoConfig, repo, 'feature', dir, user);
    expect(gitIn(dir, '-c', `safe.directory=${dir}`, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('feature');
    asAgent(dir, 'echo feature > feature.txt');
    const published = await commitAndPush(repoConfig, repo, prepared, dir, user, commitMessage('Redator', 'na feature', 'exec-126'));
    expect(bareGit('app', 'rev-parse', 'refs/heads/feature')).toBe(published.commit);
    expect(bareGit('app', 'rev-parse', 'refs/heads/main')).toBe(mainBefore);

    await expect(prepareWorkingCopy(repoConfig, repo, 'nope', dir, user)).rejects.toThrow(
      new RepositoryRunError('branch "nope" não encontrado no repositório "app"'),
    );
  });

  it('a refused push says why and loses nothing: the commit stays in the working copy', async () => {
    const repo = await findRepository(repoConfig, 'guarded');
    const dir = await workingDirectory('guarded');
    const before = bareGit('guarded', 'rev-parse', 'refs/heads/main');
    const prepared = await prepareWorkingCopy(repoConfig, repo, null, dir, user);
    asAgent(dir, 'echo work > work.txt');
    const published = await commitAndPush(repoConfig, repo, prepared, dir, user, commitMessage('Redator', 'trabalho', 'exec-127'));
    expect(published.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(published.pushError).toContain(pushRefusedError('guarded', ''));
    expect(published.pushError).toContain('pushes are closed by policy');
    expect(bareGit('guarded', 'rev-parse', 'refs/heads/main')).toBe(before);
    expect(gitIn(dir, '-c', `safe.directory=${dir}`, 'rev-parse', 'HEAD')).toBe(published.commit);
    expect(fs.readFileSync(path.join(dir, 'work.txt'), 'utf8')).toBe('work\n');

    // Once the remote accepts again, the next run pushes the commit left behind, even when it changes nothing itself.
    fs.rmSync(path.join(reposDir, 'guarded.git', 'hooks', 'pre-receive'));
    const next = await prepareWorkingCopy(repoConfig, repo, null, dir, user);
    const retried = await commitAndPush(repoConfig, repo, next, dir, user, commitMessage('Redator', 'nada novo', 'exec-128'));
    expect(retried).toEqual({ commit: published.commit, files: 1, pushError: null });
    expect(bareGit('guarded', 'rev-parse', 'refs/heads/main')).toBe(published.commit);
  });
});
