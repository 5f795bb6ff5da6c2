import { ApplicationFailure } from '@temporalio/activity';
import { findAgent } from '../../db/agents-store';
import { readExecutionSettings } from '../../db/execution-settings';
import { createExecution, getExecution, type Execution } from '../../db/executions-store';
import { findPipeline, markRunRunning, setRunProgress, type Pipeline } from '../../db/pipelines-store';
import { CANCELLED_ERROR } from '../../domain/execution-errors';
import {
  pipelineGoneError,
  stepAgentGoneError,
  stepAgentInactiveError,
  stepEndedError,
  stepGoneError,
  stepRecordGoneError,
} from '../../domain/run-messages';
import { STEP_COMPLETE_RESULT_MAX, stepInputOf } from '../../domain/pipeline-steps';
import { runModelOf } from '../../domain/agent-clis';
import { budgetRefusal } from '../../services/budgets';
import type { FinishStepInput, PipelinePlan, StartStepInput, StepOutcome } from '../../temporal/contracts/pipeline-activities';
import { cancelRun, completeRunOf } from './run-end';
import { budgetDepsOf, idsOf, runCost, runOf, STEP_FAILED, tell, type PipelineActivityDeps } from './run-context';

/** The activities of a run's start and of each step: the plan, a step's record, its outcome (docs/pipelines.md, "Runs"). */

/** The run starts (or goes on after a worker restart): running, and the plan of its steps. */
export async function startPipelineRun(deps: PipelineActivityDeps, runId: string): Promise<PipelinePlan> {
  const { db, config } = deps;
  const record = await runOf(deps, runId);
  const pipeline = await findPipeline(db, record.pipelineId ?? '');
  if (!pipeline) throw ApplicationFailure.nonRetryable(pipelineGoneError(record.pipelineId), STEP_FAILED);
  await markRunRunning(db, runId);
  const host = record.host ?? (record.resumedFrom ? (await getExecution(db, record.resumedFrom))?.host : null);
  return {
    totalSteps: pipeline.steps.length,
    startStep: Math.min(record.resumedAtStep ?? 0, pipeline.steps.length),
    steps: pipeline.steps.map((step) => ({
      requiresApproval: step.requiresApproval,
      approvalTimeoutSeconds: step.approvalTimeoutSeconds ?? config.orchestration.pipelines.approvalTimeoutSeconds,
    })),
    ...(record.repoName ? { repository: true } : {}),
    ...(host ? { host } : {}),
  };
}

/**
 * Creates the step's agent record (queued; its child workflow runs it like any execution), with the
 * previous result put through the step's template, and tells the panel the step starts.
 */
export async function startStep(deps: PipelineActivityDeps, input: StartStepInput): Promise<void> {
  const record = await runOf(deps, input.runId);
  const previous = input.previousExecutionId ? await getExecution(deps.db, input.previousExecutionId) : null;
  await startStepOf(deps, record, input, previous);
}

/**
 * After the step's workflow: its outcome from its record; a completed step adds its cost and tells
 * the panel, then (`then`) starts the next step or completes the run.
 */
export async function finishStep(deps: PipelineActivityDeps, input: FinishStepInput): Promise<StepOutcome> {
  const { db } = deps;
  // Independent reads at once: this activity is on the path from one step to the next.
  const [record, step] = await Promise.all([runOf(deps, input.runId), getExecution(db, input.stepExecutionId)]);
  if (!step) return { error: stepRecordGoneError(input.stepIndex + 1) };
  const [costUsd, pipeline] = await Promise.all([runCost(deps, record), findPipeline(db, record.pipelineId ?? '')]);
  await setRunProgress(db, input.runId, { costUsd });
  // A step cancelled on purpose (its record ended before the run's own cancel reached the workflow, e.g. a
  // cancel-all that met the step queued): the run ends `canceled`, never an error to resume.
  if (step.status === 'canceled' && step.error === CANCELLED_ERROR) {
    await cancelRun(deps, input.runId);
    return { error: CANCELLED_ERROR };
  }
  if (step.status !== 'completed') return { error: step.error ?? stepEndedError(input.stepIndex + 1, step.status) };
  await tell(deps, record, {
    type: 'pipeline_step_complete',
    ...idsOf(record),
    stepIndex: input.stepIndex,
    stepId: pipeline?.steps[input.stepIndex]?.id ?? '',
    result: (step.result ?? '').slice(0, STEP_COMPLETE_RESULT_MAX),
    costUsd: step.costUsd ?? 0,
  });
  if (input.then === 'completeRun') await completeRunOf(deps, record);
  if (!input.then || input.then === 'completeRun') return { error: null };
  try {
    const next = {
      runId: input.runId,
      stepIndex: input.stepIndex + 1,
      stepExecutionId: input.then.startStep,
      previousExecutionId: step.id,
    };
    const started = await startStepOf(deps, record, next, step, pipeline, input.then.checkBudget === true);
    // Not started past an exhausted budget: the workflow checks again and waits for a decision.
    return { error: null, started };
  } catch (error) {
    // The next step cannot start (gone, inactive): startStep fails it as that step's failure.
    if (error instanceof ApplicationFailure && error.type === STEP_FAILED) return { error: null, started: false };
    throw error;
  }
}

/**
 * startStep's work, given the run's record and the previous step's record (null: the run's input):
 * creates and announces the step's record; with `checkBudget`, only when no daily budget of its agent
 * is exhausted (false: not started). True when the record exists.
 */
async function startStepOf(
  deps: PipelineActivityDeps,
  record: Execution,
  input: StartStepInput,
  previous: Execution | null,
  knownPipeline?: Pipeline | null,
  checkBudget = false,
): Promise<boolean> {
  const { db, config } = deps;
  const [existing, pipeline, settings] = await Promise.all([
    getExecution(db, input.stepExecutionId),
    knownPipeline ?? findPipeline(db, record.pipelineId ?? ''),
    readExecutionSettings(db, config.orchestration.workdirRoots),
  ]);
  if (existing) return true; // a retried activity: created (and announced) before
  const step = pipeline?.steps[input.stepIndex];
  if (!pipeline || !step) throw ApplicationFailure.nonRetryable(stepGoneError(input.stepIndex + 1, record.pipelineId), STEP_FAILED);
  const agent = await findAgent(db, step.agentId);
  if (!agent) throw ApplicationFailure.nonRetryable(stepAgentGoneError(step.agentId, input.stepIndex + 1), STEP_FAILED);
  if (agent.status !== 'active')
    throw ApplicationFailure.nonRetryable(stepAgentInactiveError(agent.name, input.stepIndex + 1), STEP_FAILED);
  if (checkBudget && (await budgetRefusal(budgetDepsOf(deps), agent, new Date(), settings.dailyBudgetUsd)) !== null) return false;
  const { input: stepInput, prompt } = stepInputOf(
    previous ? (previous.result ?? '') : (record.lastStepInput ?? record.task),
    step.inputTemplate,
  );
  await setRunProgress(db, input.runId, { lastStepInput: stepInput });
  await createExecution(db, {
    id: input.stepExecutionId,
    kind: 'agent',
    agentId: agent.id,
    agentName: agent.name,
    pipelineId: record.pipelineId,
    pipelineExecutionId: record.id,
    stepIndex: input.stepIndex,
    source: record.source,
    clientId: record.clientId,
    // Who hears the step's runs (and what it delegates) live: the run's client, or everyone for a
    // webhook's or a schedule's run (contract 4.2).
    webhookId: record.webhookId,
    scheduleId: record.scheduleId,
    task: prompt,
    instructions: '',
    workingDirectory: record.workingDirectory,
    model: runModelOf(agent, settings.defaultModel),
    cli: agent.cli,
    // In a repository: each step runs in its working copy, one at a time; the run pushes once at the end.
    repoName: record.repoName,
    repoBranch: record.repoBranch,
  });
  await tell(deps, record, {
    type: 'pipeline_step_start',
    ...idsOf(record),
    stepIndex: input.stepIndex,
    stepId: step.id,
    agentName: agent.name,
    totalSteps: pipeline.steps.length,
    ...(record.resumedFrom ? { resumed: true as const } : {}),
    stepExecutionId: input.stepExecutionId,
  });
  return true;
}
