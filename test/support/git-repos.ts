import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Real git repositories for the repository tests (docs/repositories.md): git as a person would run
 * it, with no global configuration of the machine's, and bare repositories seeded with one commit.
 */

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t',
};

/** `git <args>` in `cwd`, its output trimmed. */
export function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV }).toString().trim();
}

/**
 * The bare repository `<dir>/<dirName>` whose `branches` (the first is its default) each hold one
 * commit with README.md `# <dirName>`; no branch: an empty repository. Seeded from a scratch clone
 * made under `scratch`.
 */
export function bareRepository(scratch: string, dir: string, dirName: string, branches: string[], description?: string): string {
  const bare = path.join(dir, dirName);
  gitIn(scratch, 'init', '--bare', '--quiet', `--initial-branch=${branches[0] ?? 'main'}`, bare);
  if (description !== undefined) fs.writeFileSync(path.join(bare, 'description'), `${description}\n`);
  if (branches.length === 0) return bare;
  const work = fs.mkdtempSync(path.join(scratch, 'seed-'));
  gitIn(work, 'init', '--quiet', `--initial-branch=${branches[0]}`);
  fs.writeFileSync(path.join(work, 'README.md'), `# ${dirName}\n`);
  gitIn(work, 'add', '-A');
  gitIn(work, 'commit', '--quiet', '-m', 'first');
  for (const branch of branches) gitIn(work, 'push', '--quiet', bare, `HEAD:refs/heads/${branch}`);
  return bare;
}
