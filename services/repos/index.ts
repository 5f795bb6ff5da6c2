/** Repositories executions work in (docs/repositories.md): the catalogue, branches, credentials. */
export {
  configuredRepositories,
  findRepository,
  listBranches,
  listRepositories,
  remoteHeads,
  REPOSITORIES_MAX,
  type Repository,
  type RepositoryConfig,
  type RepositoryView,
  repositoryViewSchema,
} from './catalog';
export { askPassEnvironment } from './credentials';
export { repositoryTarget, requestedRepository, type RepositoryTarget } from './target';
