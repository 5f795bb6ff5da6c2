import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { ExecutionSource } from '../domain/execution-status';
import {
  approveSignal,
  PIPELINE_EXECUTION_WORKFLOW,
  pipelineExecutionWorkflowId,
  rejectSignal,
  type PipelineExecutionInput,
  type PipelineExecutionWorkflow,
} from './contracts/pipeline-execution';
import { runSearchAttributes } from './contracts/search-attributes';
import { detailLines, pipelineRunSummary } from './contracts/summaries';
import { TASK_QUEUES } from './task-queues';
import { cancelWorkflow } from './workflow-state';

/** The client side of `pipelineExecutionWorkflow` (its contract: temporal/contracts/pipeline-execution.ts). */

type WorkflowClient = Pick<Client, 'workflow'>;

/** What the Web UI shows of a run (its record's fields and its pipeline's name): search attributes and summary (docs/observability.md). */
export interface PipelineRunDescription {
  pipelineId: string;
  pipelineName: string;
  source: ExecutionSource;
  scheduleId?: string | null;
  webhookId?: string | null;
  resumedAtStep?: number | null;
}

/** The start options that make a run findable in the Web UI: its attributes (RunStatus `queued`, as the record starts) and summary. */
export function pipelineRunStartOptions(input: PipelineExecutionInput, run: PipelineRunDescription) {
  const steps = input.steps ?? [];
  return {
    typedSearchAttributes: runSearchAttributes({ ...run, status: 'queued' }),
    staticSummary: pipelineRunSummary({ ...run, steps: steps.length }),
    // The steps in order, one line each: what the run's children will be.
    staticDetails: [
      detailLines({ run: input.runId, pipeline: run.pipelineId, source: run.source, schedule: run.scheduleId, webhook: run.webhookId }),
      ...steps.map((step, index) => `${index + 1}. ${step.agentName}`),
    ].join('  \n'),
  };
}

/** Starts the workflow of one pipeline run (docs/pipelines.md); a second start for the same run is refused. `run` labels it in the Web UI. */
export async function startPipelineExecution(
  client: WorkflowClient,
  input: PipelineExecutionInput,
  run?: PipelineRunDescription,
): Promise<WorkflowHandle<PipelineExecutionWorkflow>> {
  return client.workflow.start<PipelineExecutionWorkflow>(PIPELINE_EXECUTION_WORKFLOW, {
    taskQueue: TASK_QUEUES.agents,
    workflowId: pipelineExecutionWorkflowId(input.runId),
    workflowIdConflictPolicy: 'FAIL',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    args: [input],
    ...(run ? pipelineRunStartOptions(input, run) : {}),
  });
}

/** Sends a run's approval or rejection; false when Temporal knows no such workflow. */
export async function signalPipelineApproval(client: WorkflowClient, runId: string, approve: boolean): Promise<boolean> {
  try {
    await client.workflow.getHandle(pipelineExecutionWorkflowId(runId)).signal(approve ? approveSignal : rejectSignal);
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/** Asks a run's workflow to cancel (it cancels its running step); false when Temporal knows no such workflow. */
export async function cancelPipelineExecution(client: WorkflowClient, runId: string): Promise<boolean> {
  return cancelWorkflow(client, pipelineExecutionWorkflowId(runId));
}
