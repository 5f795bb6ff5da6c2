import { agentDataOf, type AgentData } from '../../db/agent-data';
import {
  createAgent as storeAgent,
  createAgentWithFreeName,
  deleteAgent as removeAgent,
  findAgent,
  listAgents as storedAgents,
  listAgentVersions,
  restoreAgentVersion,
  updateAgent as storeAgentChanges,
  type Agent,
  type AgentVersion,
} from '../../db/agents-store';
import { NotFoundError } from '../errors';
import { withConfinedWorkingDirectory } from '../working-directories';
import type { AgentDeps } from './deps';
import { storeErrorsTranslated } from './store-errors';

/** Agents: CRUD, versions, export/import/duplicate (docs/agents.md). Every write is held to the store's bounds. */

const agentNotFound = (id: string) => new NotFoundError(`agent ${id} not found`);

export function listAgents(deps: Pick<AgentDeps, 'db'>): Promise<Agent[]> {
  return storedAgents(deps.db);
}

export async function getAgent(deps: Pick<AgentDeps, 'db'>, id: string): Promise<Agent> {
  const agent = await findAgent(deps.db, id);
  if (!agent) throw agentNotFound(id);
  return agent;
}

/** `field` names the working directory in the caller's terms (e.g. `body.workingDirectory`). */
export async function createAgent(deps: AgentDeps, data: AgentData, field = 'workingDirectory'): Promise<Agent> {
  const confined = await withConfinedWorkingDirectory(deps.workdirRoots, data, field);
  return storeErrorsTranslated(() => storeAgent(deps.db, confined, deps.limits));
}

/** An exported agent comes back under its name when free, else "<name> (imported)", "<name> (imported 2)"... */
export async function importAgent(deps: AgentDeps, data: AgentData, field = 'agent.workingDirectory'): Promise<Agent> {
  const confined = await withConfinedWorkingDirectory(deps.workdirRoots, data, field);
  return storeErrorsTranslated(() => createAgentWithFreeName(deps.db, confined, 'imported', 0, deps.limits));
}

/** The fields given replace the current ones; a new version records it. */
export async function updateAgent(deps: AgentDeps, id: string, changes: Partial<AgentData>, field = 'workingDirectory'): Promise<Agent> {
  const confined = await withConfinedWorkingDirectory(deps.workdirRoots, changes, field);
  const agent = await storeErrorsTranslated(() => storeAgentChanges(deps.db, id, confined, deps.limits));
  if (!agent) throw agentNotFound(id);
  return agent;
}

/** Its versions and secrets go with it. */
export async function deleteAgent(deps: Pick<AgentDeps, 'db'>, id: string): Promise<void> {
  if (!(await removeAgent(deps.db, id))) throw agentNotFound(id);
}

/** The agent's data for an export file, and a file name from its name reduced to safe characters. */
export async function exportAgent(deps: Pick<AgentDeps, 'db'>, id: string): Promise<{ fileName: string; data: AgentData }> {
  const agent = await getAgent(deps, id);
  const stem = agent.name.normalize('NFKD').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');
  return { fileName: `agent-${stem || agent.id}.json`, data: agentDataOf(agent) };
}

/** Always a new name: "<name> (copy)", "<name> (copy 2)"...; secrets stay with the original. */
export async function duplicateAgent(deps: AgentDeps, id: string): Promise<Agent> {
  const source = await getAgent(deps, id);
  return storeErrorsTranslated(() => createAgentWithFreeName(deps.db, agentDataOf(source), 'copy', 1, deps.limits));
}

/** Newest first. */
export async function listVersions(deps: Pick<AgentDeps, 'db'>, id: string): Promise<AgentVersion[]> {
  const agent = await getAgent(deps, id);
  return listAgentVersions(deps.db, agent.id);
}

/** Brings back the data of `version` as a new version; NotFoundError for an unknown agent or version. */
export async function restoreVersion(deps: AgentDeps, id: string, version: number): Promise<Agent> {
  const agent = await storeErrorsTranslated(() => restoreAgentVersion(deps.db, id, version, deps.limits));
  if (!agent) throw agentNotFound(id);
  return agent;
}
