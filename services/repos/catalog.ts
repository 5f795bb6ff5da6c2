import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { REPOSITORY_NAME, type Config } from '../../lib/config';
import { git, GitError } from '../../lib/git';
import { NotFoundError, UnavailableError } from '../errors';
import { askPassEnvironment } from './credentials';

/**
 * The repositories executions may work in (docs/repositories.md): the bare repositories of
 * GIT_REPOS_DIR and the named remotes of GIT_REMOTES, listed and asked for their branches through
 * git itself (`git ls-remote`), in the contract's shapes (3.14).
 */

export type RepositoryConfig = Config['orchestration']['repositories'];

export interface Repository {
  name: string;
  /** What git fetches from and pushes to: a local path or a URL (never with credentials in it). */
  url: string;
  /** The bare repository's `description` file (git's placeholder left out); '' for a remote. */
  description: string;
  /** Whether git needs the configured credentials for it (a remote URL). */
  remote: boolean;
}

/** GET /repos item (contract 3.14: `name`, `description` read; the rest as the legacy server answered). */
export const repositoryViewSchema = z
  .object({
    name: z.string(),
    fullName: z.string().meta({ description: 'O nome, como o servidor anterior (Gitea) o dava' }),
    description: z.string().meta({ description: "O arquivo `description` do repositório bare; '' para um remoto" }),
    defaultBranch: z
      .string()
      .nullable()
      .meta({ description: 'O branch do HEAD (ou o primeiro); null para um repositório vazio ou ilegível' }),
    updatedAt: z.string().nullable().meta({ description: 'Sempre null (git ls-remote não diz)' }),
    htmlUrl: z.null(),
    cloneUrl: z.string().meta({ description: 'O caminho local ou a URL de onde o git busca (nunca com credenciais)' }),
    empty: z.boolean().meta({ description: 'Sem branches (ou não pôde ser lido)' }),
  })
  .meta({ id: 'Repository' });
export type RepositoryView = z.infer<typeof repositoryViewSchema>;

/** Most repositories listed; each costs one `git ls-remote`. */
export const REPOSITORIES_MAX = 200;
const LS_REMOTE_AT_ONCE = 8;
const LS_REMOTE_TIMEOUT_MS = 20_000;
const GIT_PLACEHOLDER_DESCRIPTION = /^Unnamed repository;/;

async function bareRepositoriesIn(dir: string): Promise<Repository[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const found: Repository[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue; // a symlink is not followed
    const name = entry.name.replace(/\.git$/, '');
    if (!REPOSITORY_NAME.test(name)) continue;
    const repoPath = path.join(dir, entry.name);
    // A bare repository has HEAD and objects/ at its top.
    const isBare = await Promise.all([fs.stat(path.join(repoPath, 'HEAD')), fs.stat(path.join(repoPath, 'objects'))]).then(
      () => true,
      () => false,
    );
    if (!isBare) continue;
    const description = await fs.readFile(path.join(repoPath, 'description'), 'utf8').then(
      (text) => (GIT_PLACEHOLDER_DESCRIPTION.test(text) ? '' : text.trim().slice(0, 500)),
      () => '',
    );
    found.push({ name, url: repoPath, description, remote: false });
  }
  return found;
}

/** Every configured repository by name (a remote named like a local one wins), sorted, at most REPOSITORIES_MAX. */
export async function configuredRepositories(config: RepositoryConfig): Promise<Repository[]> {
  const byName = new Map<string, Repository>();
  if (config.dir) for (const repo of await bareRepositoriesIn(config.dir)) byName.set(repo.name, repo);
  for (const remote of config.remotes)
    byName.set(remote.name, {
      name: remote.name,
      url: remote.url,
      description: '',
      remote: !remote.url.startsWith('/') && !remote.url.startsWith('file://'),
    });
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)).slice(0, REPOSITORIES_MAX);
}

export async function findRepository(config: RepositoryConfig, name: string): Promise<Repository> {
  const repo = REPOSITORY_NAME.test(name) ? (await configuredRepositories(config)).find((item) => item.name === name) : undefined;
  if (!repo) throw new NotFoundError(`Repositório não encontrado: "${name.slice(0, 100)}"`);
  return repo;
}

export interface RemoteHeads {
  defaultBranch: string | null;
  branches: string[];
}

/** The branches and the default one, as `git ls-remote --symref` tells (the service's user; no working copy involved). */
export async function remoteHeads(config: RepositoryConfig, repo: Repository): Promise<RemoteHeads> {
  let listing: string;
  try {
    listing = await git(['ls-remote', '--symref', '--', repo.url, 'HEAD', 'refs/heads/*'], {
      env: repo.remote ? askPassEnvironment(config.credentials) : {},
      timeoutMs: LS_REMOTE_TIMEOUT_MS,
    });
  } catch (error) {
    if (error instanceof GitError) throw new UnavailableError(`Não foi possível ler o repositório "${repo.name}": ${error.message}`);
    throw error;
  }
  let defaultBranch: string | null = null;
  const branches: string[] = [];
  for (const line of listing.split('\n')) {
    const symref = /^ref: refs\/heads\/(\S+)\tHEAD$/.exec(line);
    if (symref) defaultBranch = symref[1]!;
    const head = /^[0-9a-f]{40,64}\trefs\/heads\/(\S+)$/.exec(line);
    if (head) branches.push(head[1]!);
  }
  branches.sort((a, b) => a.localeCompare(b));
  return { defaultBranch: defaultBranch !== null && branches.includes(defaultBranch) ? defaultBranch : (branches[0] ?? null), branches };
}

/** GET /repos: each repository with its default branch; one that cannot be read is listed as empty. */
export async function listRepositories(config: RepositoryConfig): Promise<RepositoryView[]> {
  const repos = await configuredRepositories(config);
  const views: RepositoryView[] = [];
  for (let start = 0; start < repos.length; start += LS_REMOTE_AT_ONCE) {
    const group = repos.slice(start, start + LS_REMOTE_AT_ONCE);
    const heads = await Promise.all(group.map((repo) => remoteHeads(config, repo).catch(() => ({ defaultBranch: null, branches: [] }))));
    group.forEach((repo, index) => {
      const { defaultBranch, branches } = heads[index]!;
      views.push({
        name: repo.name,
        fullName: repo.name,
        description: repo.description,
        defaultBranch,
        updatedAt: null,
        htmlUrl: null,
        cloneUrl: repo.url,
        empty: branches.length === 0,
      });
    });
  }
  return views;
}

/** GET /repos/{name}/branches: the branch names (contract 3.14: a bare array of strings). */
export async function listBranches(config: RepositoryConfig, name: string): Promise<string[]> {
  return (await remoteHeads(config, await findRepository(config, name))).branches;
}
