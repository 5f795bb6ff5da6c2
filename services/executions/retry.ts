import { z } from 'zod';
import { getExecution } from '../../db/executions-store';
import { executionNotFound, InvalidInputError } from '../errors';
import { storedContextFiles } from '../uploads';
import type { ExecutionDeps } from './deps';
import { executePipeline } from '../pipelines/runs';
import { launchExecution, runnableAgent } from './launch';

/** Only these end states may be run again (contract 3.8): a completed or active record is refused. */
const RETRYABLE = new Set<string>(['error', 'canceled']);

export const retriedExecutionSchema = z
  .object({
    success: z.literal(true),
    message: z.string().meta({ description: "'Execução reiniciada' (an agent's run) or 'Pipeline reexecutado'" }),
    executionId: z.string().meta({ description: 'The new record' }),
  })
  .meta({ id: 'RetriedExecution' });
export type RetriedExecution = z.infer<typeof retriedExecutionSchema>;

/**
 * Runs an agent execution that ended `error` or `canceled` again as a new record (source `retry`, same
 * task, instructions, directory and model; `parentExecutionId` the old one). NotFoundError for an
 * unknown execution or a deleted agent; InvalidInputError for another status, a pipeline record or an
 * inactive agent.
 */
export async function retryExecution(deps: ExecutionDeps, executionId: string, clientId: string | null): Promise<RetriedExecution> {
  const parent = await getExecution(deps.db, executionId);
  if (!parent) throw executionNotFound(executionId);
  if (!RETRYABLE.has(parent.status)) {
    throw new InvalidInputError(
      `Só é possível reexecutar execuções que terminaram com erro ou foram canceladas (status atual: ${parent.status})`,
    );
  }
  if (parent.kind === 'pipeline' && parent.pipelineId) {
    // A pipeline run again with its input, from the first step (resume starts from the failed one).
    const started = await executePipeline(deps, parent.pipelineId, clientId, {
      input: parent.task,
      workingDirectory: parent.workingDirectory,
      source: 'retry',
      ...(parent.repoName ? { repoName: parent.repoName, ...(parent.repoBranch ? { repoBranch: parent.repoBranch } : {}) } : {}),
      // Its input lists them already; still uploads of this service (400 when one was removed), kept in the new record.
      ...(parent.contextFiles?.length ? { contextFiles: parent.contextFiles, inputListsContextFiles: true } : {}),
    });
    return { success: true, message: 'Pipeline reexecutado', executionId: started.executionId };
  }
  if (parent.kind !== 'agent' || !parent.agentId) throw new InvalidInputError(`A execução ${executionId} não é uma execução de agente`);
  const agent = await runnableAgent(deps, parent.agentId);
  const launched = await launchExecution(deps, agent, clientId, {
    source: 'retry',
    task: parent.task,
    instructions: parent.instructions,
    workingDirectory: parent.workingDirectory,
    model: parent.model,
    // The model goes with the CLI it ran with.
    cli: parent.cli ?? agent.cli,
    parentExecutionId: parent.id,
    // The same repository and branch: its working copy is prepared and pushed again.
    repoName: parent.repoName,
    repoBranch: parent.repoBranch,
    // Its task lists them already; they must still be uploads of this service (400 when one was removed).
    contextFiles: parent.contextFiles?.length ? await storedContextFiles(deps.db, parent.contextFiles) : null,
  });
  return { success: true, message: 'Execução reiniciada', executionId: launched.executionId };
}
