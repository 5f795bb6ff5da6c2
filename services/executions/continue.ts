import { latestExecutionOfSession } from '../../db/executions-store';
import { NotFoundError } from '../errors';
import type { ExecutionDeps } from './deps';
import { launchExecution, runnableAgent, type LaunchedExecution } from './launch';

/**
 * Continues session `sessionId` of agent `agentId` with `message`, in the directory and with the model
 * the session ran with; the record keeps the session as `parentSessionId`. NotFoundError for an unknown
 * agent or when no record of it holds the session, InvalidInputError for an inactive agent.
 */
export async function continueSession(
  deps: ExecutionDeps,
  agentId: string,
  clientId: string | null,
  request: { sessionId: string; message: string },
): Promise<LaunchedExecution> {
  const agent = await runnableAgent(deps, agentId);
  const parent = await latestExecutionOfSession(deps.db, agent.id, request.sessionId);
  if (!parent) throw new NotFoundError(`O agente ${agent.id} não tem a sessão ${request.sessionId}`);
  return launchExecution(
    deps,
    agent,
    clientId,
    {
      source: 'continue',
      task: request.message,
      // The session already holds the instructions; the message is the whole prompt.
      instructions: '',
      // A session belongs to the directory it ran in.
      workingDirectory: parent.workingDirectory,
      model: parent.model,
      // A session belongs to the CLI that wrote it, whatever the agent runs now.
      cli: parent.cli ?? agent.cli,
      // A conversation in a repository's working copy commits and pushes what it changes, as its first run.
      repoName: parent.repoName,
      repoBranch: parent.repoBranch,
      sessionId: request.sessionId,
      parentSessionId: request.sessionId,
      parentExecutionId: parent.id,
    },
    { resumeSessionId: request.sessionId },
  );
}
