import { z } from 'zod';
import type { Pipeline, StoredPipelineStep } from '../../db/pipelines-store';
import { isoDateTime } from '../view-schema';

/** A pipeline as the admin panel reads it (contract 3.6 and 5.4). */

/** The states a pipeline is stored with (the request bodies accept only these). */
export const PIPELINE_STATUSES = ['active', 'inactive'] as const;

/** A step of a pipeline's definition as stored (its agent, template, approval), with its agent's name. */
export const pipelineStepDefinitionSchema = z
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

export const pipelineViewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    workingDirectory: z.string().nullable().meta({ description: "null: the settings' working directory at run time" }),
    status: z.enum(PIPELINE_STATUSES),
    steps: z.array(pipelineStepDefinitionSchema),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .meta({ id: 'Pipeline' });
export type PipelineView = z.infer<typeof pipelineViewSchema>;

/**
 * `names`: agent id -> name. Every stored column is answered as stored (but the computed ones below):
 * a new column needs no line here, only its place in pipelineViewSchema (checked just below).
 */
export function pipelineView(pipeline: Pipeline, names: ReadonlyMap<string, string>): PipelineView {
  const { createdAt, updatedAt, ...stored } = pipeline;
  return {
    ...stored,
    // Stored only from the request bodies' enum (or the column's default, 'active').
    status: pipeline.status as PipelineView['status'],
    steps: pipeline.steps.map((step) => ({ ...step, agentName: names.get(step.agentId) ?? step.agentId })),
    created_at: createdAt.toISOString(),
    updated_at: updatedAt.toISOString(),
  };
}

// Fail to compile when a column of `pipelines`, or a stored step's field, is answered but not in the
// view's schema (so not in the OpenAPI document).
const _viewNamesEveryColumn: Exclude<keyof Pipeline, 'createdAt' | 'updatedAt'> extends keyof PipelineView ? true : never = true;
const _viewNamesEveryStepField: keyof StoredPipelineStep extends keyof PipelineView['steps'][number] ? true : never = true;
