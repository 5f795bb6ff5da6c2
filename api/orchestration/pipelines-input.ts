import { z } from 'zod';
import { PIPELINE_STATUSES, type PipelineInput, type PipelineStepInput } from '../../services/pipelines';
import { executeBody, TASK_MAX } from './execution-control-input';
import { optionalShape, strictBody, withoutDefaults, type Same } from './strict-body-input';
import { optionalWorkingDirectoryPath } from './working-directory-input';

/** The request bodies of the pipelines routes (contract 3.6), with their bounds (docs/pipelines.md). */

/** The name is also the run record's name (executions.agent_name, 100 characters). */
export const PIPELINE_NAME_MAX = 100;
export const PIPELINE_DESCRIPTION_MAX = 2_000;
export const STEPS_MAX = 20;
export const TEMPLATE_MAX = 50_000;
const ID_MAX = 100;

const ignored = z.unknown().optional();

/**
 * A step's fields. Each is kept as parsed and stored as given (db/pipelines-store.ts, storedSteps): a
 * new one is written here, in StoredPipelineStep (db/schema.ts) and in the view (services/pipelines/view.ts).
 */
export const pipelineStepFields = {
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
};

/** What the answers carry and the panel may send back in a step: accepted, not kept. */
export const STEP_IGNORED_KEYS = { agentName: ignored, promptMode: ignored };

const step = strictBody(pipelineStepFields, STEP_IGNORED_KEYS);

/**
 * A pipeline's fields, as a create takes them (an update: each optional). Each is kept as parsed and
 * stored as given: a new one is written here, as a column of `pipelines` (db/schema.ts, with its
 * migration) and in the view (services/pipelines/view.ts); the checks below fail to compile when one
 * of the first two is missing.
 */
export const pipelineFields = {
  name: z.string({ error: 'name é obrigatório' }).trim().min(1, 'name é obrigatório').max(PIPELINE_NAME_MAX),
  description: z.string().max(PIPELINE_DESCRIPTION_MAX).default(''),
  // '' (the panel's empty field) and null: the settings' working directory at run time. Confined by the use case.
  workingDirectory: optionalWorkingDirectoryPath.default(null),
  status: z.enum(PIPELINE_STATUSES).default('active'),
  steps: z
    .array(step, { error: 'steps é obrigatório: uma lista não vazia' })
    .min(1, 'steps é obrigatório: uma lista não vazia')
    .max(STEPS_MAX),
};

/** Keys of our own answers the panel may send back: accepted, not kept. */
export const PIPELINE_IGNORED_KEYS = { id: ignored, created_at: ignored, updated_at: ignored, createdAt: ignored, updatedAt: ignored };

/** POST /pipelines: `name` and `steps` required; `status` defaults to active. */
export const pipelineCreateBody = strictBody(pipelineFields, PIPELINE_IGNORED_KEYS);

/** PUT /pipelines/{id}: partial; a key left out keeps its stored value (no default applies). */
export const pipelineUpdateBody = strictBody(optionalShape(withoutDefaults(pipelineFields)), PIPELINE_IGNORED_KEYS);

// The request and the store name the same fields (PipelineInput is the table's columns): a field in one only fails here.
const _everyColumnParsed: Same<keyof z.output<typeof pipelineCreateBody>, keyof PipelineInput> = true;
const _everyStepFieldParsed: Same<keyof z.output<typeof step>, keyof PipelineStepInput> = true;
// And what they parse to is what the store takes.
const _createFitsTheStore: z.output<typeof pipelineCreateBody> extends PipelineInput ? true : never = true;
const _updateFitsTheStore: z.output<typeof pipelineUpdateBody> extends Partial<PipelineInput> ? true : never = true;

/** POST /pipelines/{id}/execute, as the panel sends it. */
export const pipelineExecuteBody = z.strictObject({
  input: z.string({ error: 'input é obrigatório' }).trim().min(1, 'input é obrigatório').max(TASK_MAX),
  workingDirectory: optionalWorkingDirectoryPath.optional(),
  repoName: z.string().trim().min(1).max(200).optional(),
  repoBranch: z.string().trim().min(1).max(200).optional(),
  contextFiles: executeBody.shape.contextFiles,
});
