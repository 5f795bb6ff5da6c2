import type { Pipeline, StoredPipelineStep } from '../../db/pipelines-store';

/** A pipeline as the admin panel reads it (contract 3.6 and 5.4). */
export interface PipelineStepView extends StoredPipelineStep {
  /** The list adds the agent's name (its id when the agent is gone); the detail too, for the flow editor. */
  agentName: string;
}

export interface PipelineView {
  id: string;
  name: string;
  description: string;
  workingDirectory: string | null;
  status: string;
  steps: PipelineStepView[];
  created_at: string;
  updated_at: string;
}

/** `names`: agent id -> name. */
export function pipelineView(pipeline: Pipeline, names: ReadonlyMap<string, string>): PipelineView {
  return {
    id: pipeline.id,
    name: pipeline.name,
    description: pipeline.description,
    workingDirectory: pipeline.workingDirectory,
    status: pipeline.status,
    steps: pipeline.steps.map((step) => ({ ...step, agentName: names.get(step.agentId) ?? step.agentId })),
    created_at: pipeline.createdAt.toISOString(),
    updated_at: pipeline.updatedAt.toISOString(),
  };
}
