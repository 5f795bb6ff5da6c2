/** Repositories executions work in (docs/repositories.md): the catalogue, branches, credentials. */
export { findRepository, listBranches, listRepositories, type Repository, type RepositoryConfig, repositoryViewSchema } from './catalog';
export { askPassEnvironment } from './credentials';
export { requestedRepository } from './target';
