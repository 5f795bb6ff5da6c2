import { z } from 'zod';
import type { Pipeline, PipelineInput } from '../../db/pipelines-store';
import { isoDateTime } from '../view-schema';

/** A pipeline as the admin panel reads it (contract 3.6 and 5.4). */

/** The states a pipeline is stored with (the request bodies accept only these). */
export const PIPELINE_STATUSES = ['active', 'inactive'] as const satisfies readonly PipelineInput['status'][];

export const pipelineStepViewSchema = z
  .object({
    id: z.string(),
    agentId: z.string(),
    /** The list adds the agent's name (its id when the agent is gone); the detail too, for the flow editor. */
    agentName: z.string().meta({ description: "The agent's name; its id when the agent is gone" }),
    order: z.number().int().meta({ description: "The step's index (steps are stored sorted and renumbered 0..n-1)" }),
    inputTemplate: z
      .string()
      .nullable()
      .meta({ description: "Every `{{input}}` is replaced by the input (the previous step's result); null: the input unchanged" }),
    description: z.string(),
    requiresApproval: z.boolean().meta({ description: 'The run waits for an approval before this step (always false for the first step)' }),
    approvalTimeoutSeconds: z
      .number()
      .int()
      .nullable()
      .optional()
      .meta({ description: 'How long an approval of this step is awaited; absent: PIPELINE_APPROVAL_TIMEOUT_SECONDS' }),
  })
  .meta({ id: 'PipelineStepDefinition' });
export type PipelineStepView = z.infer<typeof pipelineStepViewSchema>;

export const pipelineViewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    workingDirectory: z.string().nullable().meta({ description: "null: the settings' working directory at run time" }),
    status: z.enum(PIPELINE_STATUSES),
    steps: z.array(pipelineStepViewSchema),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .meta({ id: 'Pipeline' });
export type PipelineView = z.infer<typeof pipelineViewSchema>;

/** `names`: agent id -> name. */
export function pipelineView(pipeline: Pipeline, names: ReadonlyMap<string, string>): PipelineView {
  return {
    id: pipeline.id,
    name: pipeline.name,
    description: pipeline.description,
    workingDirectory: pipeline.workingDirectory,
    // Stored only from the request bodies' enum (or the column's default, 'active').
    status: pipeline.status as PipelineView['status'],
    steps: pipeline.steps.map((step) => ({ ...step, agentName: names.get(step.agentId) ?? step.agentId })),
    created_at: pipeline.createdAt.toISOString(),
    updated_at: pipeline.updatedAt.toISOString(),
  };
}
