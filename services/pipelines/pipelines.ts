import { listAgents } from '../../db/agents-store';
import {
  createPipeline as storePipeline,
  deletePipeline as removePipeline,
  findPipeline,
  listPipelines as storedPipelines,
  updatePipeline as storePipelineChanges,
  type Pipeline,
  type PipelineInput,
} from '../../db/pipelines-store';
import { InvalidInputError, NotFoundError } from '../errors';
import type { ExecutionDeps } from '../executions/deps';
import { confinedWorkingDirectory } from '../working-directories';
import { pipelineView, type PipelineView } from './view';

/** Pipelines CRUD (contract 3.6; docs/pipelines.md). Every step's agent must exist when stored. */

export type PipelineDeps = Pick<ExecutionDeps, 'db' | 'workdirRoots'>;

export const pipelineNotFound = (id: string) => new NotFoundError(`Pipeline não encontrado: ${id}`);

async function agentNames(deps: Pick<ExecutionDeps, 'db'>): Promise<Map<string, string>> {
  return new Map((await listAgents(deps.db)).map((agent) => [agent.id, agent.name]));
}

export async function storedPipeline(deps: Pick<ExecutionDeps, 'db'>, id: string): Promise<Pipeline> {
  const pipeline = await findPipeline(deps.db, id);
  if (!pipeline) throw pipelineNotFound(id);
  return pipeline;
}

export async function listPipelines(deps: Pick<ExecutionDeps, 'db'>): Promise<PipelineView[]> {
  const [pipelines, names] = await Promise.all([storedPipelines(deps.db), agentNames(deps)]);
  return pipelines.map((pipeline) => pipelineView(pipeline, names));
}

export async function getPipeline(deps: Pick<ExecutionDeps, 'db'>, id: string): Promise<PipelineView> {
  const [pipeline, names] = await Promise.all([storedPipeline(deps, id), agentNames(deps)]);
  return pipelineView(pipeline, names);
}

/** Every step names an existing agent, and the working directory lies under the roots. */
async function checked<T extends Partial<PipelineInput>>(deps: PipelineDeps, input: T, names: Map<string, string>): Promise<T> {
  input.steps?.forEach((step, index) => {
    if (!names.has(step.agentId)) throw new InvalidInputError(`steps[${index}].agentId: Agente ${step.agentId} não encontrado`);
  });
  if (input.workingDirectory === undefined || input.workingDirectory === null) return input;
  return { ...input, workingDirectory: await confinedWorkingDirectory(deps.workdirRoots, input.workingDirectory, 'body.workingDirectory') };
}

export async function createPipeline(deps: PipelineDeps, input: PipelineInput): Promise<PipelineView> {
  const names = await agentNames(deps);
  return pipelineView(await storePipeline(deps.db, await checked(deps, input, names)), names);
}

/** Partial: a field left out keeps its stored value (the flow editor sends no `workingDirectory`). */
export async function updatePipeline(deps: PipelineDeps, id: string, changes: Partial<PipelineInput>): Promise<PipelineView> {
  const names = await agentNames(deps);
  const updated = await storePipelineChanges(deps.db, id, await checked(deps, changes, names));
  if (!updated) throw pipelineNotFound(id);
  return pipelineView(updated, names);
}

export async function deletePipeline(deps: Pick<ExecutionDeps, 'db'>, id: string): Promise<void> {
  if (!(await removePipeline(deps.db, id))) throw pipelineNotFound(id);
}
