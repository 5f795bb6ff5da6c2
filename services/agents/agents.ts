import { AGENT_CHANGELOG } from '../../domain/agent-changelog';
import { z } from 'zod';
import { agentDataOf, changedDataFields, type AgentData, type AgentDataInput } from '../../db/agent-data';
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
} from '../../db/agents-store';
import { agentNotFound } from '../errors';
import { withConfinedWorkingDirectory } from '../working-directories';
import { deleteSchedulesOfAgent, type ScheduleDeps } from '../schedules';
import type { AgentDeps } from './deps';
import { storeErrorsTranslated } from './store-errors';
import { panelChangesFor, refuseWhatItsCliCannotHonour } from './cli-settings';
import { agentView, agentViewSchema, configView, updateChangelog, versionsView, type AgentVersionView, type AgentView } from './view';

/**
 * Agents: CRUD, versions, export/import/duplicate (docs/agents.md), answered in the admin panel's
 * shape (./view.ts). Every write is held to the store's bounds.
 */

/** Labels of the names given to copies and imports, as the legacy server's ("<name> (cópia)"). */
const COPY_LABEL = 'cópia';
const IMPORT_LABEL = 'importado';

export async function listAgents(deps: Pick<AgentDeps, 'db'>): Promise<AgentView[]> {
  return (await storedAgents(deps.db)).map(agentView);
}

async function storedAgent(deps: Pick<AgentDeps, 'db'>, id: string): Promise<Agent> {
  const agent = await findAgent(deps.db, id);
  if (!agent) throw agentNotFound(id);
  return agent;
}

export async function getAgent(deps: Pick<AgentDeps, 'db'>, id: string): Promise<AgentView> {
  return agentView(await storedAgent(deps, id));
}

/** `field` names the working directory in the caller's terms (e.g. `body.config.workingDirectory`). */
export async function createAgent(deps: AgentDeps, data: AgentDataInput, field = 'workingDirectory'): Promise<AgentView> {
  refuseWhatItsCliCannotHonour(agentDataOf(data));
  const confined = await withConfinedWorkingDirectory(deps.workdirRoots, data, field);
  return agentView(await storeErrorsTranslated(() => storeAgent(deps.db, confined, deps.limits)));
}

/**
 * An exported agent comes back under its name when free, else "<name> (importado)", "<name>
 * (importado 2)"... A delegate that is not an agent here (an export from another service) is dropped.
 */
export async function importAgent(deps: AgentDeps, data: AgentDataInput, field = 'workingDirectory'): Promise<AgentView> {
  refuseWhatItsCliCannotHonour(agentDataOf(data));
  const confined = await withConfinedWorkingDirectory(deps.workdirRoots, data, field);
  const delegateKnown = confined.delegateTo ? (await findAgent(deps.db, confined.delegateTo)) !== null : true;
  const kept = delegateKnown ? confined : { ...confined, delegateTo: null };
  return agentView(
    await storeErrorsTranslated(() => createAgentWithFreeName(deps.db, kept, IMPORT_LABEL, 0, deps.limits, AGENT_CHANGELOG.imported)),
  );
}

/**
 * The fields given replace the current ones (the panel's `config` merged over the stored one); a new
 * version records it. The result is checked against its CLI (an update without `cli` keeps the stored
 * one, and what the panel's form cannot show for it: panelChangesFor), in the writing transaction.
 */
export async function updateAgent(
  deps: AgentDeps,
  id: string,
  changes: Partial<AgentData>,
  field = 'workingDirectory',
): Promise<AgentView> {
  const confined = await withConfinedWorkingDirectory(deps.workdirRoots, changes, field);
  const checked = (current: AgentData): Partial<AgentData> => {
    const kept = panelChangesFor(current, confined);
    refuseWhatItsCliCannotHonour({ ...current, ...kept });
    return kept;
  };
  const agent = await storeErrorsTranslated(() => storeAgentChanges(deps.db, id, checked, deps.limits, updateChangelog));
  if (!agent) throw agentNotFound(id);
  return agentView(agent);
}

/**
 * Its schedules go with it (their Temporal Schedules first: a 503 when Temporal is away leaves the
 * agent in place), then the agent, its versions and secrets; agents that delegated to it delegate to none.
 */
export async function deleteAgent(deps: Pick<AgentDeps, 'db'> & { schedules: ScheduleDeps }, id: string): Promise<void> {
  await storedAgent(deps, id);
  await deleteSchedulesOfAgent(deps.schedules, id);
  if (!(await removeAgent(deps.db, id))) throw agentNotFound(id);
}

/** What GET /agents/{id}/export answers (contract 3.1): what POST /agents/import reads back. */
export const agentExportSchema = agentViewSchema
  .pick({ agent_name: true, description: true, tags: true, config: true, status: true })
  .meta({ id: 'AgentExport' });
export type AgentExport = z.infer<typeof agentExportSchema>;

/** The agent's data for an export, and a file name from its name reduced to safe characters. */
export async function exportAgent(deps: Pick<AgentDeps, 'db'>, id: string): Promise<{ fileName: string; data: AgentExport }> {
  const agent = await storedAgent(deps, id);
  const stem = agent.name
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const data = agentDataOf(agent);
  return {
    fileName: `agent-${stem || agent.id}.json`,
    data: { agent_name: data.name, description: data.description, tags: data.tags, config: configView(data), status: data.status },
  };
}

/** Always a new name: "<name> (cópia)", "<name> (cópia 2)"...; active, as the legacy server's; secrets stay with the original. */
export async function duplicateAgent(deps: AgentDeps, id: string): Promise<AgentView> {
  const source = await storedAgent(deps, id);
  const data: AgentData = { ...agentDataOf(source), status: 'active' };
  const changelog = AGENT_CHANGELOG.duplicatedFrom(source.name);
  return agentView(await storeErrorsTranslated(() => createAgentWithFreeName(deps.db, data, COPY_LABEL, 1, deps.limits, changelog)));
}

/** Newest first; index 0 is the current state (contract 7.2). */
export async function listVersions(deps: Pick<AgentDeps, 'db'>, id: string): Promise<AgentVersionView[]> {
  const agent = await storedAgent(deps, id);
  return versionsView(agent, await listAgentVersions(deps.db, agent.id), changedDataFields);
}

/** Brings back the data of `version` as a new version; NotFoundError for an unknown agent or version. */
export async function restoreVersion(deps: AgentDeps, id: string, version: number): Promise<AgentView> {
  const agent = await storeErrorsTranslated(() => restoreAgentVersion(deps.db, id, version, deps.limits));
  if (!agent) throw agentNotFound(id);
  return agentView(agent);
}
