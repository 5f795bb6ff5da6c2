import path from 'node:path';
import { InvalidInputError, NotFoundError } from '../errors';
import { findRepository, remoteHeads, type RepositoryConfig } from './catalog';

/** Where an execution in a repository runs (docs/repositories.md, "A run in a repository"). */
export interface RepositoryTarget {
  repoName: string;
  /** The branch asked for, else the repository's default one. */
  repoBranch: string;
  /** `<projects root>/<name>`: the working copy the panel's Files page shows. */
  workingDirectory: string;
}

/**
 * Checks `repoName` and `repoBranch` against git before anything is stored: an unknown repository or
 * branch is NotFoundError, an empty repository (no branch to check out) InvalidInputError; a
 * repository git cannot read now is UnavailableError (from remoteHeads).
 */
export async function repositoryTarget(
  config: RepositoryConfig | undefined,
  projectsRoot: string,
  repoName: string,
  repoBranch: string | undefined,
): Promise<RepositoryTarget> {
  if (config === undefined) throw new NotFoundError(`Repositório não encontrado: "${repoName.slice(0, 100)}"`);
  const repo = await findRepository(config, repoName);
  const heads = await remoteHeads(config, repo);
  if (heads.branches.length === 0) throw new InvalidInputError(`O repositório "${repo.name}" está vazio: não há branch em que trabalhar`);
  const branch = repoBranch ?? heads.defaultBranch!;
  if (!heads.branches.includes(branch))
    throw new NotFoundError(`Branch "${branch.slice(0, 200)}" não encontrada no repositório "${repo.name}"`);
  return { repoName: repo.name, repoBranch: branch, workingDirectory: path.join(projectsRoot, repo.name) };
}

/** The repository a request names, checked (null: none); a branch without a repository is refused. */
export async function requestedRepository(
  deps: { repositories?: RepositoryConfig; workdirRoots: readonly string[] },
  request: { repoName?: string; repoBranch?: string },
): Promise<RepositoryTarget | null> {
  if (request.repoName === undefined) {
    if (request.repoBranch !== undefined) throw new InvalidInputError('repoBranch exige repoName');
    return null;
  }
  return repositoryTarget(deps.repositories, deps.workdirRoots[0]!, request.repoName, request.repoBranch);
}
