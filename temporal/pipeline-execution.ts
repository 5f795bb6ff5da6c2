import type { WorkflowStartOptions } from '@temporalio/client';
import type { PipelineExecutionInput, pipelineExecutionWorkflow } from '../workflows/pipelines/execution';
import { TASK_QUEUES } from './task-queues';

/** The workflow of one pipeline run: a second start with the same id is refused, so a run runs once. */
export function pipelineExecutionWorkflowId(runId: string): string {
  return `pipeline-execution-${runId}`;
}

/** How the use cases start a pipeline run's workflow (docs/pipelines.md). */
export function pipelineExecutionStartOptions(input: PipelineExecutionInput): WorkflowStartOptions<typeof pipelineExecutionWorkflow> {
  return {
    taskQueue: TASK_QUEUES.agents,
    workflowId: pipelineExecutionWorkflowId(input.runId),
    workflowIdConflictPolicy: 'FAIL',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    args: [input],
  };
}
