import { getExecution } from '../../db/executions-store';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors';
import { isActive } from './cancel';
import type { ExecutionDeps } from './deps';
import { existingAgent, launchExecution, type LaunchedExecution } from './launch';

/**
 * Runs a finished agent execution again as a new record (source `retry`, same task, instructions,
 * directory and model). NotFoundError for an unknown execution or a deleted agent, ConflictError while
 * it is still active, InvalidInputError when it is not an agent's execution.
 */
export async function retryExecution(deps: ExecutionDeps, executionId: string, clientId: string | null): Promise<LaunchedExecution> {
  const parent = await getExecution(deps.db, executionId);
  if (!parent) throw new NotFoundError(`execution ${executionId} not found`);
  if (isActive(parent)) throw new ConflictError(`execution ${executionId} is still active`);
  if (parent.kind !== 'agent' || !parent.agentId) throw new InvalidInputError(`execution ${executionId} is not an agent execution`);
  const agent = await existingAgent(deps, parent.agentId);
  return launchExecution(deps, agent, clientId, {
    source: 'retry',
    task: parent.task,
    instructions: parent.instructions,
    workingDirectory: parent.workingDirectory,
    model: parent.model,
    parentExecutionId: parent.id,
  });
}
