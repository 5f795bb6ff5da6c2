/**
 * What `pipelineExecutionWorkflow` (workflows/pipelines/execution.ts) passes to and gets from its
 * activities (activities/pipelines/): the inputs and answers of each. Workflow-safe (types only), so
 * the workflow and the activities share them without either importing the other. Only ids and small
 * figures: results of any size stay in the records, never in the workflow's history (docs/pipelines.md).
 */

/** What the workflow needs to know of the pipeline (startPipelineRun): small, whatever the templates. */
export interface PipelinePlan {
  totalSteps: number;
  /** 0, or the step a resumed run starts at. */
  startStep: number;
  /** Each step's approval wait: its own timeout, else PIPELINE_APPROVAL_TIMEOUT_SECONDS. */
  steps: { requiresApproval: boolean; approvalTimeoutSeconds: number }[];
  /** The run works in a repository: its changes are pushed (pushRun) before completeRun (docs/repositories.md). */
  repository?: boolean;
  /** The agents host the run is pinned to already (a resumed run: where the run it resumes was); absent: none yet. */
  host?: string;
}

/** One step of one run. */
export interface StepRef {
  runId: string;
  stepIndex: number;
}

/** startStep's input (and the next step finishStep starts, `then.startStep`). */
export interface StartStepInput extends StepRef {
  /** The step's agent record, chosen by the workflow (deterministic) so a retried activity creates it once. */
  stepExecutionId: string;
  /** The previous step's agent record; null: the run's input (a resumed run: the failed step's stored input). */
  previousExecutionId: string | null;
}

/** A step's agent's daily budget exhausted (docs/budgets.md): the text the approval banner shows, and the budget. */
export interface StepBudgetWait {
  text: string;
  /** The step's agent: the banner names it (a step's approval names the previous step's). */
  agentName: string;
  budget: { scope: 'global' | 'agent'; agentId: string | null; limitUsd: number; spentUsd: number };
}

/** requestApproval's input: the step waited for, the previous step's record, and the exhausted budget when the wait is past one. */
export interface ApprovalRequest extends StepRef {
  previousExecutionId: string | null;
  budget?: StepBudgetWait;
}

/** rejectRun's input: the step refused, and why (a rejection, or no decision in time). */
export interface RejectRunInput extends StepRef {
  reason: 'rejected' | 'timeout';
}

/**
 * What finishStep does after a completed step, in the same local activity (one fewer round of
 * queries and activations per step): start the next step's record, or complete the run.
 */
export type AfterStep = { startStep: string; checkBudget?: boolean } | 'completeRun' | null;

/** finishStep's input: the step, its agent record, and what to do after it when it completed. */
export interface FinishStepInput extends StepRef {
  stepExecutionId: string;
  then?: AfterStep;
}

/** finishStep's answer. */
export interface StepOutcome {
  /** null when the step's agent completed. */
  error: string | null;
  /** The next step was started (`then.startStep`); false: the workflow starts it with startStep, which says why it cannot. */
  started?: boolean;
}

/** failRun's input: the step that failed (the number of steps: the push), and why. */
export interface FailRunInput extends StepRef {
  error: string;
}

/** endStrandedRun's input (the reconciler's, not the workflow's): how the run whose workflow is gone ends. */
export interface StrandedRunEnd {
  runId: string;
  status: 'error' | 'canceled';
  error: string;
}

/** pushRun's answer: null when pushed (or nothing to push); else why not. */
export interface PushOutcome {
  error: string | null;
}
