import type { Database } from '../../db';
import type { Execution } from '../../db/executions-store';
import { setExecutionRepoCommit } from '../../db/repository-runs';
import { findRepository, type Repository, type RepositoryConfig } from '../../services/repos';
import type { RunAgentOptions } from '../agents/run-agent';
import { commitAndPush, commitMessage, prepareWorkingCopy, pushAnnouncement, RepositoryRunError, type PreparedWorkingCopy } from './working-copy';

/** What the agent is told when it works in a repository (docs/repositories.md): the service commits and pushes. */
export const NO_GIT_INSTRUCTION =
  'Este diretório é um repositório git gerenciado pelo serviço: não execute operações git (commit, push, pull, checkout, reset); ' +
  'ao final, o serviço faz o commit e o push de todas as alterações.';

export interface RepositoryWorkspaceDeps {
  db: Database;
  config: RepositoryConfig;
  /** Shows a line in the run's output (the push's `success` line, contract 4.4). */
  announce: (content: string) => Promise<void>;
}

/**
 * The workspace of a run in a repository (runAgent's `workspace`): the working copy prepared before
 * the agent, its changes committed and pushed after it. A pipeline's step only prepares: the run
 * commits once after its last step (docs/pipelines.md). Undefined for a run without a repository.
 */
export function repositoryWorkspace(deps: RepositoryWorkspaceDeps, record: Execution): RunAgentOptions['workspace'] {
  const repoName = record.repoName;
  if (!repoName) return undefined;
  let repo: Repository | null = null;
  let prepared: PreparedWorkingCopy | null = null;
  return {
    async prepare(cwd, user) {
      repo = await findRepository(deps.config, repoName).catch((error: Error) => {
        throw new RepositoryRunError(error.message);
      });
      prepared = await prepareWorkingCopy(deps.config, repo, record.repoBranch, cwd, user);
    },
    async complete(cwd, user) {
      if (record.pipelineExecutionId !== null || repo === null || prepared === null) return;
      const published = await commitAndPush(deps.config, repo, prepared, cwd, user, commitMessage(record.agentName, record.task, record.id));
      if (published.commit === null) return;
      await setExecutionRepoCommit(deps.db, record.id, published.commit);
      if (published.pushError !== null) {
        throw new RepositoryRunError(`${published.pushError} (the commit ${published.commit.slice(0, 7)} stays in the working copy ${cwd})`);
      }
      await deps.announce(pushAnnouncement(repo, published.commit, published.files));
    },
  };
}
