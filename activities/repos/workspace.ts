import type { Execution } from '../../db/executions-store';
import { findRepository, type Repository } from '../../services/repos';
import type { RunAgentOptions } from '../agents/run-agent';
import {
  commitMessage,
  commitPushAndRecord,
  prepareWorkingCopy,
  RepositoryRunError,
  type PreparedWorkingCopy,
  type RecordedPushDeps,
} from './working-copy';

/** What the agent is told when it works in a repository (docs/repositories.md): the service commits and pushes. */
export const NO_GIT_INSTRUCTION =
  'Este diretório é um repositório git gerenciado pelo serviço: não execute operações git (commit, push, pull, checkout, reset); ' +
  'ao final, o serviço faz o commit e o push de todas as alterações.';

export type RepositoryWorkspaceDeps = RecordedPushDeps;

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
      const problem = await commitPushAndRecord(
        deps,
        repo,
        prepared,
        cwd,
        user,
        commitMessage(record.agentName, record.task, record.id),
        record.id,
      );
      if (problem !== null) throw new RepositoryRunError(problem);
    },
  };
}
