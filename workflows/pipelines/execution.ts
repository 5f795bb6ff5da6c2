import {
  type ActivityOptions,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  condition,
  executeChild,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { PipelineActivities } from '../../activities/pipelines/pipeline-activities';
import { CANCELLED_ERROR } from '../../domain/execution-errors';
import { PIPELINE_PUSH_NON_RETRYABLE, PIPELINE_PUSH_ON_HOST_NON_RETRYABLE, PIPELINE_STEP_NON_RETRYABLE } from '../../domain/failure-types';
import { agentExecutionWorkflowId } from '../../temporal/contracts/agent-execution';
import {
  approveSignal,
  rejectSignal,
  type PipelineExecutionInput,
  type PipelineExecutionResult,
} from '../../temporal/contracts/pipeline-execution';
import type { AfterStep, PipelinePlan, StepOutcome } from '../../temporal/contracts/pipeline-activities';
import { agentsHostQueue } from '../../temporal/task-queues';
import { labelsOf, runSearchAttributes } from '../../temporal/contracts/search-attributes';
import { pipelineStepRunSummary, stepSummary } from '../../temporal/contracts/summaries';
import { agentExecutionWorkflow, HOST_PICKUP_TIMEOUT, runStatusSetter } from '../agents/execution';

// Records and messages only (the push is its own activity, below): short, idempotent, retried freely; a vanished record is final. Local
// activities (run by the worker of this workflow, no activity task round trip): a step's bookkeeping
// is a few queries, and the pipeline's overhead per step is what they cost (scripts/bench/pipeline.ts).
const acts = proxyLocalActivities<PipelineActivities>({
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    maximumInterval: '30 seconds',
    maximumAttempts: 20,
    nonRetryableErrorTypes: [...PIPELINE_STEP_NON_RETRYABLE],
  },
});

// A run in a repository pushes its changes after its last step: git and a user of the pool may take
// a while, so a regular activity (heartbeats; a few attempts, each repeatable).
const PUSH_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', maximumAttempts: 3, nonRetryableErrorTypes: [...PIPELINE_PUSH_NON_RETRYABLE] },
};
const push = proxyActivities<PipelineActivities>(PUSH_OPTIONS);
/** The push on the run's host queue (docs/multi-host.md): the same activity, where the working copy is. */
const pushOnHost = (host: string) =>
  proxyActivities<PipelineActivities>({
    ...PUSH_OPTIONS,
    taskQueue: agentsHostQueue(host),
    scheduleToStartTimeout: HOST_PICKUP_TIMEOUT,
    retry: { ...PUSH_OPTIONS.retry, nonRetryableErrorTypes: [...PIPELINE_PUSH_ON_HOST_NON_RETRYABLE] },
  });

/** Runs started before it (still running at a deploy) replay with startStep and completeRun on their own. */
export const STEP_IN_ONE_PATCH = 'pipeline-step-in-one';
/** The push goes to the run's host queue, not to `agents`. */
export const PUSH_ON_HOST_PATCH = 'pipeline-push-on-host';
/** A step cancelled on purpose ends the run `canceled` (finishStep ended it so): shown so here too, not as an error. */
export const CANCELLED_STEP_PATCH = 'pipeline-cancelled-step';
/** Before each step, its agent's daily budgets: exhausted, the run waits for an approval (docs/budgets.md). */
export const STEP_BUDGET_PATCH = 'pipeline-step-budget';

/** The run's end, as the Web UI's status shows it and as the workflow answers it. */
function endedAs(
  setStatus: (status: PipelineExecutionResult['status']) => void,
  runId: string,
  status: PipelineExecutionResult['status'],
): PipelineExecutionResult {
  setStatus(status);
  return { runId, status };
}

/**
 * One pipeline run (workflow id `pipeline-execution-<runId>`, queue `agents`; docs/pipelines.md): its
 * steps in order, each an agent execution of its own record run as a child agentExecutionWorkflow, so
 * a step takes a concurrency slot and runs exactly as a single execution does. Only ids pass through
 * here; results stay in the records. Before a step that requires it, the run waits for the `approve`
 * or `reject` signal (a timeout is a rejection); so does a step whose agent's daily budget is exhausted
 * (docs/budgets.md), approved past it for the rest of the run. A failed step fails the run; a cancellation cancels
 * the running step's workflow (its agent is killed) and ends the run `canceled`.
 */
export async function pipelineExecutionWorkflow(input: PipelineExecutionInput): Promise<PipelineExecutionResult> {
  const { runId } = input;
  const setStatus = runStatusSetter();
  // What the start labelled the run with: passed on to its steps, whose records share its source, schedule and webhook.
  const { status: _ownStatus, ...labels } = labelsOf(workflowInfo().typedSearchAttributes);
  let totalSteps = input.steps?.length ?? 0;
  /** "step 2 of 5: Reviewer": the activities' summaries in the Web UI's history. */
  const step = (index: number) => stepSummary(index, totalSteps, input.steps?.[index]?.agentName);
  let waitingFor: number | null = null;
  let decision: 'approve' | 'reject' | undefined;
  // Only a decision for the step being waited for counts; a stray signal (a double click) is ignored.
  setHandler(approveSignal, () => {
    if (waitingFor !== null && decision === undefined) decision = 'approve';
  });
  setHandler(rejectSignal, () => {
    if (waitingFor !== null && decision === undefined) decision = 'reject';
  });

  /** Asks (`request`) and waits for the decision on `index` (a timeout is a rejection); false: the run ended `rejected`. */
  const approved = async (index: number, timeoutSeconds: number, request: () => Promise<void>): Promise<boolean> => {
    waitingFor = index;
    decision = undefined;
    await request();
    setStatus('awaiting_approval');
    // The Web UI's "Current Details" (a query, not a command: nothing in the history).
    setCurrentDetails(`waiting for approval of ${step(index)}`);
    const decided = await condition(() => decision !== undefined, timeoutSeconds * 1000);
    waitingFor = null;
    if (!decided || decision === 'reject') {
      await acts.rejectRun.executeWithOptions({ summary: `${decided ? 'rejected' : 'approval timed out'} before ${step(index)}` }, [
        { runId, stepIndex: index, reason: decided ? 'rejected' : 'timeout' },
      ]);
      setStatus('rejected');
      return false;
    }
    await acts.approvalGranted.executeWithOptions({ summary: `approved: ${step(index)}` }, [runId]);
    setStatus('running');
    return true;
  };

  let stepIndex = 0;
  try {
    const inOne = patched(STEP_IN_ONE_PATCH);
    const budgets = patched(STEP_BUDGET_PATCH);
    // Approved past an exhausted budget once: the rest of this run is not paused by budgets again.
    let pastBudget = false;
    const plan = await acts.startPipelineRun.executeWithOptions({ summary: 'start the run' }, [runId]);
    totalSteps = plan.totalSteps;
    setStatus('running');
    let previous: string | null = null;
    // The step's record when the previous step's finishStep created it already (no approval between).
    let started: string | null = null;
    // Where the steps run (the first step pins the run; every step then goes there).
    let host: string | undefined = plan.host;
    for (stepIndex = plan.startStep; stepIndex < plan.totalSteps; stepIndex++) {
      const planned = plan.steps[stepIndex]!;
      if (stepIndex > 0 && planned.requiresApproval) {
        const request = () =>
          acts.requestApproval.executeWithOptions({ summary: `ask approval for ${step(stepIndex)}` }, [
            { runId, stepIndex, previousExecutionId: previous },
          ]);
        if (!(await approved(stepIndex, planned.approvalTimeoutSeconds, request))) return { runId, status: 'rejected' };
      }
      // A step not started yet by the previous one's finishStep (which checked its budget when it did).
      if (budgets && !pastBudget && started === null) {
        const budget = await acts.stepBudget.executeWithOptions({ summary: `budget of ${step(stepIndex)}` }, [{ runId, stepIndex }]);
        if (budget !== null) {
          const request = () =>
            acts.requestApproval.executeWithOptions({ summary: `ask approval past the budget for ${step(stepIndex)}` }, [
              { runId, stepIndex, previousExecutionId: previous, budget },
            ]);
          if (!(await approved(stepIndex, planned.approvalTimeoutSeconds, request))) return { runId, status: 'rejected' };
          pastBudget = true;
        }
      }
      const stepExecutionId: string = started ?? uuid4();
      if (started === null)
        await acts.startStep.executeWithOptions({ summary: step(stepIndex) }, [
          { runId, stepIndex, stepExecutionId, previousExecutionId: previous },
        ]);
      const agent = input.steps?.[stepIndex];
      setCurrentDetails(`running ${step(stepIndex)}`);
      const child = await executeChild(agentExecutionWorkflow, {
        workflowId: agentExecutionWorkflowId(stepExecutionId),
        args: [{ executionId: stepExecutionId }],
        // The step's record: this run's labels and its own agent, findable by PipelineId as by AgentName.
        typedSearchAttributes: runSearchAttributes({ ...labels, agentId: agent?.agentId, agentName: agent?.agentName, status: 'queued' }),
        staticSummary: pipelineStepRunSummary(stepIndex, plan.totalSteps, agent?.agentName, labels.pipelineName),
      });
      host = child.host ?? host;
      // The next step's start (or the run's end) in the same local activity: a step's overhead is round trips.
      const next = plan.steps[stepIndex + 1];
      const then = inOne ? afterStep(next, plan.repository === true, budgets && !pastBudget) : null;
      const outcome: StepOutcome = await acts.finishStep.executeWithOptions({ summary: step(stepIndex) }, [
        { runId, stepIndex, stepExecutionId, then },
      ]);
      if (outcome.error === CANCELLED_ERROR && patched(CANCELLED_STEP_PATCH)) {
        return endedAs(setStatus, runId, 'canceled');
      }
      if (outcome.error !== null) {
        await acts.failRun.executeWithOptions({ summary: `failed at ${step(stepIndex)}` }, [{ runId, stepIndex, error: outcome.error }]);
        return endedAs(setStatus, runId, 'error');
      }
      previous = stepExecutionId;
      started = then !== null && then !== 'completeRun' && outcome.started === true ? then.startStep : null;
    }
    if (plan.repository) {
      // One commit and push after every step (docs/repositories.md); refused: the run fails after its last step (a resume pushes again).
      const pushed = await (host !== undefined && patched(PUSH_ON_HOST_PATCH) ? pushOnHost(host) : push).pushRun.executeWithOptions(
        { summary: "commit and push the run's changes" },
        [runId],
      );
      if (pushed.error !== null) {
        await acts.failRun.executeWithOptions({ summary: 'failed at the push' }, [
          { runId, stepIndex: plan.totalSteps, error: pushed.error },
        ]);
        return endedAs(setStatus, runId, 'error');
      }
    }
    // The last step's finishStep completed the run (inOne); else, or with no step left to run, here.
    if (!inOne || plan.repository || plan.startStep >= plan.totalSteps)
      await acts.completeRun.executeWithOptions({ summary: 'complete the run' }, [runId]);
    return endedAs(setStatus, runId, 'completed');
  } catch (error) {
    if (isCancellation(error)) {
      // This run cancelled, or its running step's execution cancelled by itself (cancel-all): the run ends `canceled`.
      await CancellationScope.nonCancellable(() => acts.cancelRun.executeWithOptions({ summary: 'cancel the run' }, [runId]));
      setStatus('canceled');
      if (CancellationScope.current().consideredCancelled) throw error;
      return { runId, status: 'canceled' };
    }
    await acts.failRun.executeWithOptions({ summary: `failed at ${step(stepIndex)}` }, [{ runId, stepIndex, error: messageOf(error) }]);
    return endedAs(setStatus, runId, 'error');
  }
}

/**
 * What finishStep does after a step: start `next` at once (checking its budget when `checkBudget`),
 * complete the run after the last step, or nothing (an approval first; a run in a repository
 * completes after its push). uuid4 is the workflow's own: deterministic.
 */
function afterStep(next: PipelinePlan['steps'][number] | undefined, repository: boolean, checkBudget: boolean): AfterStep {
  if (next === undefined) return repository ? null : 'completeRun';
  if (next.requiresApproval) return null;
  return { startStep: uuid4(), ...(checkBudget ? { checkBudget: true } : {}) };
}

function messageOf(error: unknown): string {
  const cause = error instanceof ActivityFailure || error instanceof ChildWorkflowFailure ? (error.cause ?? error) : error;
  if (cause instanceof ApplicationFailure) return cause.message;
  return cause instanceof Error ? cause.message : String(cause);
}
