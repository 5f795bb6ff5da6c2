import { defineSignal } from '@temporalio/workflow';

/** The contract of `pipelineExecutionWorkflow` (workflows/pipelines/execution.ts); workflow-safe. */

export const PIPELINE_EXECUTION_WORKFLOW = 'pipelineExecutionWorkflow';

export interface PipelineExecutionInput {
  /** The run's record (kind `pipeline`, created `queued` by the use case). */
  runId: string;
  /**
   * Each step's agent as the pipeline was when the run started: the steps' search attributes and
   * summaries in the Temporal Web UI ("step 2 of 5: Reviewer"). Absent in runs started before it.
   */
  steps?: PipelineStepLabel[];
}

export interface PipelineStepLabel {
  agentId: string;
  agentName: string;
}

export interface PipelineExecutionResult {
  runId: string;
  status: 'completed' | 'error' | 'rejected' | 'canceled';
}

export type PipelineExecutionWorkflow = (input: PipelineExecutionInput) => Promise<PipelineExecutionResult>;

/** The workflow of one pipeline run: a second start with the same id is refused, so a run runs once. */
export function pipelineExecutionWorkflowId(runId: string): string {
  return `pipeline-execution-${runId}`;
}

/** The approval signals of a pipeline run: POST /pipelines/:id/approve|reject send them, and so can `temporal workflow signal` (README). */
export const approveSignal = defineSignal('approve');
export const rejectSignal = defineSignal('reject');
