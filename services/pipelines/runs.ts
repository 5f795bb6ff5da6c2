import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { findAgent } from '../../db/agents-store';
import { readExecutionSettings } from '../../db/execution-settings';
import { createExecution, finishExecution, getExecution, type Execution, type NewExecution } from '../../db/executions-store';
import { activeRunsOfPipeline } from '../../db/pipelines-store';
import { isActiveStatus } from '../../domain/execution-status';
import { CANCELLED_ERROR } from '../../domain/run-messages';
import { cancelPipelineExecution, signalPipelineApproval, startPipelineExecution } from '../../temporal/pipeline-execution';
import type { PipelineStepLabel } from '../../temporal/contracts/pipeline-execution';
import { executionNotFound, InvalidInputError, NotFoundError } from '../errors';
import type { ExecutionDeps } from '../executions/deps';
import { startRecordWorkflow } from '../executions/workflow-start';
import { requestedRepository } from '../repos';
import { storedContextFiles, withContextFiles, type ContextFileRequest } from '../uploads';
import { confinedWorkingDirectory } from '../working-directories';
import { storedPipeline } from './pipelines';

/** Pipeline runs (docs/pipelines.md): execute, approve or reject, cancel, resume, retry. */

export type PipelineRunDeps = ExecutionDeps;

/** What a start answers (202): the contract's `{pipelineId, status}` plus the run's record id. */
export const startedPipelineRunSchema = z
  .object({
    pipelineId: z.string(),
    executionId: z.string().meta({ description: "The run's execution record (GET /api/executions/history/{id})" }),
    status: z.literal('started'),
  })
  .meta({ id: 'StartedPipelineRun' });
export type StartedPipelineRun = z.infer<typeof startedPipelineRunSchema>;

/** What POST /pipelines/resume/{executionId} answers (202): the new run, and the step it starts at. */
export const resumedPipelineRunSchema = z
  .object({
    pipelineId: z.string(),
    executionId: z.string().meta({ description: "The new run's execution record" }),
    resumedAtStep: z.number().int().meta({ description: 'The step (0-based) the new run starts at: the failed one' }),
    status: z.literal('resumed'),
  })
  .meta({ id: 'ResumedPipelineRun' });

/** What approve and reject answer (200). */
export const approvedSchema = z.object({ approved: z.literal(true) });
export const rejectedSchema = z.object({ rejected: z.literal(true) });
export type ApprovalDecision = z.infer<typeof approvedSchema> | z.infer<typeof rejectedSchema>;

/** What a cancel answers (200): how many runs were cancelled. */
export const cancelledPipelineRunsSchema = z.object({ cancelled: z.literal(true), count: z.number().int().min(1) });
export type CancelledPipelineRuns = z.infer<typeof cancelledPipelineRunsSchema>;

export interface PipelineRunRequest {
  input: string;
  /** Absent or null: the pipeline's, else the settings' working directory. */
  workingDirectory?: string | null;
  repoName?: string;
  repoBranch?: string;
  source?: NewExecution['source'];
  webhookId?: string | null;
  scheduleId?: string | null;
  /** Uploaded files named after the input, so in the first step's prompt; kept in the run's record (docs/uploads.md). */
  contextFiles?: readonly ContextFileRequest[];
  /** The input already lists the context files (a retry of a run: its stored input): checked and kept, not listed again. */
  inputListsContextFiles?: boolean;
  /** The run's id, when the caller chose it (a webhook delivery records it before the run starts); absent: a new one. */
  executionId?: string;
}

const NO_APPROVAL = 'Nenhuma aprovação pendente para este pipeline';
const NOT_RUNNING = 'Pipeline não está em execução';

/**
 * Starts a run of pipeline `pipelineId` on `request.input` for `clientId`. Checked before anything is
 * stored (contract 7.3): NotFoundError for an unknown pipeline, InvalidInputError for an inactive one,
 * a step whose agent is gone or inactive, a context file that is not a present upload of this service,
 * or a working directory outside the roots.
 */
export async function executePipeline(
  deps: PipelineRunDeps,
  pipelineId: string,
  clientId: string | null,
  request: PipelineRunRequest,
): Promise<StartedPipelineRun> {
  const pipeline = await storedPipeline(deps, pipelineId);
  if (pipeline.status !== 'active') throw new InvalidInputError(`O pipeline ${pipelineId} está inativo`);
  const repository = await requestedRepository(deps, request);
  const steps: PipelineStepLabel[] = [];
  for (const [index, step] of pipeline.steps.entries()) {
    const agent = await findAgent(deps.db, step.agentId);
    if (!agent) throw new InvalidInputError(`Passo ${index + 1}: o agente ${step.agentId} não existe mais`);
    if (agent.status !== 'active') throw new InvalidInputError(`Passo ${index + 1}: o agente "${agent.name}" está inativo`);
    steps.push({ agentId: agent.id, agentName: agent.name });
  }
  const contextFiles = await storedContextFiles(deps.db, request.contextFiles);
  const settings = await readExecutionSettings(deps.db, deps.workdirRoots);
  return startRun(
    deps,
    steps,
    {
      kind: 'pipeline',
      agentId: null,
      agentName: pipeline.name,
      pipelineId: pipeline.id,
      source: request.source ?? 'manual',
      clientId,
      task: request.inputListsContextFiles ? request.input : withContextFiles(request.input, contextFiles),
      contextFiles: contextFiles.length > 0 ? contextFiles : null,
      instructions: '',
      workingDirectory: repository?.workingDirectory ?? request.workingDirectory ?? pipeline.workingDirectory ?? settings.workingDirectory,
      repoName: repository?.repoName ?? null,
      repoBranch: repository?.repoBranch ?? null,
      model: settings.defaultModel,
      webhookId: request.webhookId ?? null,
      scheduleId: request.scheduleId ?? null,
    },
    request.executionId,
  );
}

/** Stores the run and starts its workflow; `steps`, each step's agent, and the record label it in the Temporal Web UI. */
async function startRun(
  deps: PipelineRunDeps,
  steps: PipelineStepLabel[],
  record: Omit<NewExecution, 'id'>,
  id: string = randomUUID(),
): Promise<StartedPipelineRun> {
  const workingDirectory = await confinedWorkingDirectory(deps.workdirRoots, record.workingDirectory, 'workingDirectory');
  const run = await createExecution(deps.db, { ...record, id, workingDirectory });
  const description = {
    pipelineId: run.pipelineId ?? '',
    pipelineName: run.agentName,
    source: run.source,
    scheduleId: run.scheduleId,
    webhookId: run.webhookId,
    resumedAtStep: run.resumedAtStep,
  };
  await startRecordWorkflow(
    deps,
    run,
    () => startPipelineExecution(deps.temporal, { runId: run.id, steps }, description),
    'Não foi possível iniciar o pipeline: o mecanismo de workflows está indisponível',
  );
  return { pipelineId: run.pipelineId ?? '', executionId: run.id, status: 'started' };
}

/** A run record by its id; null when `id` is not a pipeline run. */
async function runById(deps: Pick<ExecutionDeps, 'db'>, id: string): Promise<Execution | null> {
  const record = await getExecution(deps.db, id);
  return record && record.kind === 'pipeline' && record.pipelineExecutionId === null ? record : null;
}

/**
 * Approves or rejects the waiting step of a run: `id` is the run's id, or a pipeline's id, which
 * means its OLDEST run waiting for an approval (the banner the panel shows first). NotFoundError when
 * none waits.
 */
export async function decideApproval(deps: ExecutionDeps, id: string, approve: boolean): Promise<ApprovalDecision> {
  const byId = await runById(deps, id);
  const run = byId
    ? byId.status === 'awaiting_approval'
      ? byId
      : null
    : ((await activeRunsOfPipeline(deps.db, id, 'awaiting_approval'))[0] ?? null);
  if (!run) throw new NotFoundError(NO_APPROVAL);
  if (!(await signalPipelineApproval(deps.temporal, run.id, approve))) throw new NotFoundError(NO_APPROVAL);
  return approve ? { approved: true } : { rejected: true };
}

/**
 * Cancels a run (`id` its id) or every active run of a pipeline (`id` the pipeline's). The workflow
 * cancels its running step (the agent is killed) and ends the run `canceled`; a run whose workflow
 * is gone is ended here. NotFoundError when nothing runs.
 */
export async function cancelPipelineRuns(deps: ExecutionDeps, id: string): Promise<CancelledPipelineRuns> {
  const byId = await runById(deps, id);
  const runs = byId ? (isActiveStatus(byId.status) ? [byId] : []) : await activeRunsOfPipeline(deps.db, id);
  if (runs.length === 0) throw new NotFoundError(NOT_RUNNING);
  for (const run of runs) await cancelPipelineRun(deps, run.id);
  return { cancelled: true, count: runs.length };
}

/** Cancels one run's workflow (cancel-all too); ends the record itself when the workflow is gone. */
export async function cancelPipelineRun(deps: ExecutionDeps, runId: string): Promise<void> {
  if (!(await cancelPipelineExecution(deps.temporal, runId)))
    await finishExecution(deps.db, runId, { status: 'canceled', error: CANCELLED_ERROR });
}

/**
 * A new run of a failed one from its failed step with that step's stored input (a record without
 * `failedAtStep` starts from the first step with the run's input): source `resume`, `resumedFrom`,
 * `resumedAtStep`; the earlier steps stay in their records and count in the new run's detail and cost.
 * NotFoundError for an unknown run, InvalidInputError for one that did not fail.
 */
export async function resumePipelineRun(
  deps: PipelineRunDeps,
  runId: string,
  clientId: string | null,
): Promise<Omit<StartedPipelineRun, 'status'> & { resumedAtStep: number }> {
  const failed = await runById(deps, runId);
  if (!failed) throw executionNotFound(runId);
  if (failed.status !== 'error') throw new InvalidInputError(`Só é possível retomar execuções com erro (status atual: ${failed.status})`);
  const pipeline = await storedPipeline(deps, failed.pipelineId ?? '');
  if (pipeline.status !== 'active') throw new InvalidInputError(`O pipeline ${pipeline.id} está inativo`);
  const resumedAtStep = failed.failedAtStep ?? 0;
  // Names for the Web UI only: a step whose agent is gone shows its id (the run fails there, as it would).
  const steps: PipelineStepLabel[] = [];
  for (const step of pipeline.steps)
    steps.push({ agentId: step.agentId, agentName: (await findAgent(deps.db, step.agentId))?.name ?? step.agentId });
  const started = await startRun(deps, steps, {
    kind: 'pipeline',
    agentId: null,
    agentName: pipeline.name,
    pipelineId: pipeline.id,
    source: 'resume',
    clientId,
    task: failed.task,
    instructions: '',
    workingDirectory: failed.workingDirectory,
    model: failed.model,
    // The same working copy: a push refused after the last step is tried again there.
    repoName: failed.repoName,
    repoBranch: failed.repoBranch,
    resumedFrom: failed.id,
    resumedAtStep,
    lastStepInput: failed.failedAtStep === null ? null : failed.lastStepInput,
  });
  return { ...started, resumedAtStep };
}
