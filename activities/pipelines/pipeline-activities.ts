import { approvalGranted, rejectRun, requestApproval, stepBudget } from './approvals';
import { pushRun } from './push';
import { cancelRun, completeRun, endStrandedRun, failRun } from './run-end';
import type { PipelineActivityDeps } from './run-context';
import { finishStep, startPipelineRun, startStep } from './steps';

export type { PipelineActivityDeps } from './run-context';

/**
 * The activities of a pipeline run (workflows/pipelines/execution.ts; docs/pipelines.md), each a
 * module-level function of this folder taking its deps first: this only binds them. They pass ids,
 * never results: a step's input is read from the previous step's record, so results of any size never
 * enter the workflow's history. The keys are the names the worker registers and recorded histories
 * replay against: never rename one. Their inputs and answers: temporal/contracts/pipeline-activities.ts.
 */
export function createPipelineActivities(deps: PipelineActivityDeps) {
  return {
    // The run's start and its steps (./steps.ts).
    startPipelineRun: startPipelineRun.bind(null, deps),
    startStep: startStep.bind(null, deps),
    finishStep: finishStep.bind(null, deps),
    // Waits for a decision (./approvals.ts).
    requestApproval: requestApproval.bind(null, deps),
    stepBudget: stepBudget.bind(null, deps),
    approvalGranted: approvalGranted.bind(null, deps),
    rejectRun: rejectRun.bind(null, deps),
    // The run's end (./run-end.ts, ./push.ts).
    failRun: failRun.bind(null, deps),
    completeRun: completeRun.bind(null, deps),
    endStrandedRun: endStrandedRun.bind(null, deps),
    pushRun: pushRun.bind(null, deps),
    cancelRun: cancelRun.bind(null, deps),
  };
}

export type PipelineActivities = ReturnType<typeof createPipelineActivities>;
