import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import {
  approveSignal,
  PIPELINE_EXECUTION_WORKFLOW,
  pipelineExecutionWorkflowId,
  rejectSignal,
  type PipelineExecutionInput,
  type PipelineExecutionWorkflow,
} from './contracts/pipeline-execution';
import { TASK_QUEUES } from './task-queues';
import { cancelWorkflow } from './workflow-state';

/** The client side of `pipelineExecutionWorkflow` (its contract: temporal/contracts/pipeline-execution.ts). */

type WorkflowClient = Pick<Client, 'workflow'>;

/** Starts the workflow of one pipeline run (docs/pipelines.md); a second start for the same run is refused. */
export async function startPipelineExecution(client: WorkflowClient, input: PipelineExecutionInput): Promise<WorkflowHandle<PipelineExecutionWorkflow>> {
  return client.workflow.start<PipelineExecutionWorkflow>(PIPELINE_EXECUTION_WORKFLOW, {
    taskQueue: TASK_QUEUES.agents,
    workflowId: pipelineExecutionWorkflowId(input.runId),
    workflowIdConflictPolicy: 'FAIL',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    args: [input],
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
