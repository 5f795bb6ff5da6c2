import { z } from 'zod';
import type { PipelineInput } from '../../services/pipelines';
import { executeBody, TASK_MAX } from './execution-control-input';
import { optionalWorkingDirectoryPath } from './working-directory-input';

/** The request bodies of the pipelines routes (contract 3.6), with their bounds (docs/pipelines.md). */

/** The name is also the run record's name (executions.agent_name, 100 characters). */
export const PIPELINE_NAME_MAX = 100;
export const PIPELINE_DESCRIPTION_MAX = 2_000;
export const STEPS_MAX = 20;
export const TEMPLATE_MAX = 50_000;
const ID_MAX = 100;

const ignored = z.unknown().optional();

const step = z.strictObject({
  id: z.string().trim().min(1).max(ID_MAX).optional(),
  agentId: z.string({ error: 'agentId é obrigatório' }).trim().min(1, 'agentId é obrigatório').max(ID_MAX),
  order: z.number().int().min(0).max(10_000).optional(),
  // '' and null: the input unchanged.
  inputTemplate: z.string().max(TEMPLATE_MAX).nullable().default(null),
  description: z.string().max(PIPELINE_DESCRIPTION_MAX).default(''),
  requiresApproval: z.boolean().default(false),
  // How long an approval of this step is awaited (1 s to 30 days); absent or null: PIPELINE_APPROVAL_TIMEOUT_SECONDS.
  approvalTimeoutSeconds: z
    .number()
    .int()
    .min(1)
    .max(30 * 86_400)
    .nullable()
    .optional(),
  // What the answers carry and the panel may send back.
  agentName: ignored,
  promptMode: ignored,
});

const fields = {
  name: z.string({ error: 'name é obrigatório' }).trim().min(1, 'name é obrigatório').max(PIPELINE_NAME_MAX),
  description: z.string().max(PIPELINE_DESCRIPTION_MAX),
  // '' (the panel's empty field) and null: the settings' working directory at run time. Confined by the use case.
  workingDirectory: optionalWorkingDirectoryPath,
  status: z.enum(['active', 'inactive']),
  steps: z
    .array(step, { error: 'steps é obrigatório: uma lista não vazia' })
    .min(1, 'steps é obrigatório: uma lista não vazia')
    .max(STEPS_MAX),
};

const IGNORED_KEYS = { id: ignored, created_at: ignored, updated_at: ignored, createdAt: ignored, updatedAt: ignored };

/** POST /pipelines: `name` and `steps` required; `status` defaults to active. */
export const pipelineCreateBody = z
  .strictObject({
    ...fields,
    description: fields.description.default(''),
    workingDirectory: fields.workingDirectory.default(null),
    status: fields.status.default('active'),
    ...IGNORED_KEYS,
  })
  .transform(({ name, description, workingDirectory, status, steps }): PipelineInput => ({
    name,
    description,
    workingDirectory,
    status,
    steps,
  }));

/** PUT /pipelines/{id}: partial; a key left out keeps its stored value. */
export const pipelineUpdateBody = z
  .strictObject({
    name: fields.name.optional(),
    description: fields.description.optional(),
    workingDirectory: fields.workingDirectory.optional(),
    status: fields.status.optional(),
    steps: fields.steps.optional(),
    ...IGNORED_KEYS,
  })
  .transform(({ name, description, workingDirectory, status, steps }): Partial<PipelineInput> =>
    Object.fromEntries(Object.entries({ name, description, workingDirectory, status, steps }).filter(([, value]) => value !== undefined)),
  );

/** POST /pipelines/{id}/execute, as the panel sends it. */
export const pipelineExecuteBody = z.strictObject({
  input: z.string({ error: 'input é obrigatório' }).trim().min(1, 'input é obrigatório').max(TASK_MAX),
  workingDirectory: optionalWorkingDirectoryPath.optional(),
  repoName: z.string().trim().min(1).max(200).optional(),
  repoBranch: z.string().trim().min(1).max(200).optional(),
  contextFiles: executeBody.shape.contextFiles,
});
