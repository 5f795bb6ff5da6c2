import { ApplicationFailure, Context } from '@temporalio/activity';
import type Redis from 'ioredis';
import type { Database } from '../../db';
import { findAgent } from '../../db/agents-store';
import { readExecutionSettings } from '../../db/execution-settings';
import { createExecution, finishExecution, getExecution, setExecutionReportFile, type Execution } from '../../db/executions-store';
import {
  findPipeline,
  type Pipeline,
  markRunAwaitingApproval,
  markRunRunning,
  setRunProgress,
  stepRecordsOfRun,
} from '../../db/pipelines-store';
import type { Config } from '../../lib/config';
import { liveTargetOf, publishLiveMessage, type PipelineLiveMessage } from '../../lib/live-output';
import type { Logger } from '../../lib/logger';
import { PREVIOUS_OUTPUT_MAX, STEP_COMPLETE_RESULT_MAX, STEP_RESULT_MESSAGE_MAX, stepInputOf } from '../../domain/pipeline-steps';
import { runStepRecords } from '../../services/pipelines/run-steps';
import { countStepOverheads } from '../../services/pipelines/run-metrics';
import { refuseOtherHost } from '../agents/agent-hosts';
import { writeExecutionReport } from '../../db/reports-store';
import { pushRunChanges } from '../repos/run-push';
import { CANCELLED_ERROR } from '../../domain/execution-errors';
import { budgetRefusal, type BudgetExhaustedError } from '../../services/budgets';
import { roundUsd } from '../../domain/budgets';

function budgetWaitOf(agentName: string, refusal: BudgetExhaustedError | null): StepBudgetWait | null {
  if (refusal === null) return null;
  const { scope, agentId, limitUsd, spentUsd } = refusal.budget;
  return { text: refusal.message, agentName, budget: { scope, agentId, limitUsd, spentUsd: roundUsd(spentUsd) } };
}

/**
 * The activities of a pipeline run (workflows/pipelines/execution.ts; docs/pipelines.md). They pass
 * ids, never results: a step's input is read from the previous step's record here, so results of any
 * size never enter the workflow's history.
 */

export interface PipelineActivityDeps {
  db: Database;
  redis: Redis;
  config: Pick<Config, 'orchestration'>;
  logger: Logger;
}

/** What the workflow needs to know of the pipeline: small, whatever the templates. */
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

export interface StepRef {
  runId: string;
  stepIndex: number;
}

export interface StartStepInput extends StepRef {
  /** The step's agent record, chosen by the workflow (deterministic) so a retried activity creates it once. */
  stepExecutionId: string;
  /** The previous step's agent record; null: the run's input (a resumed run: the failed step's stored input). */
  previousExecutionId: string | null;
}

export interface StepOutcome {
  /** null when the step's agent completed. */
  error: string | null;
  /** The next step was started (`then.startStep`); false: the workflow starts it with startStep, which says why it cannot. */
  started?: boolean;
}

/**
 * What finishStep does after a completed step, in the same local activity (one fewer round of
 * queries and activations per step): start the next step's record, or complete the run.
 */
export type AfterStep = { startStep: string; checkBudget?: boolean } | 'completeRun' | null;

/** A step's agent's daily budget exhausted (docs/budgets.md): the text the approval banner shows, and the budget. */
export interface StepBudgetWait {
  text: string;
  /** The step's agent: the banner names it (a step's approval names the previous step's). */
  agentName: string;
  budget: { scope: 'global' | 'agent'; agentId: string | null; limitUsd: number; spentUsd: number };
}

const STEP_FAILED = 'PipelineStepFailed';

export function createPipelineActivities(deps: PipelineActivityDeps) {
  const { db, redis, config, logger } = deps;

  async function run(runId: string): Promise<Execution> {
    const record = await getExecution(db, runId);
    if (!record || record.kind !== 'pipeline' || !record.pipelineId)
      throw ApplicationFailure.nonRetryable(`pipeline run ${runId} not found`, 'ExecutionNotFound');
    return record;
  }

  /** To the client that started the run (or everyone, for a schedule's or a webhook's run); best effort. */
  async function tell(record: Execution, message: PipelineLiveMessage): Promise<void> {
    const target = liveTargetOf(record);
    if (!target) return;
    await publishLiveMessage(redis, target, message).catch((error: unknown) =>
      logger.warn({ err: error, runId: record.id }, 'pipeline message not published'),
    );
  }

  const ids = (record: Execution) => ({ pipelineId: record.pipelineId ?? '', executionId: record.id });
  const budgetDeps = { db, workdirRoots: config.orchestration.workdirRoots };

  return {
    /** The run starts (or goes on after a worker restart): running, and the plan of its steps. */
    async startPipelineRun(runId: string): Promise<PipelinePlan> {
      const record = await run(runId);
      const pipeline = await findPipeline(db, record.pipelineId ?? '');
      if (!pipeline) throw ApplicationFailure.nonRetryable(`pipeline ${record.pipelineId} no longer exists`, STEP_FAILED);
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
    },

    /**
     * Before a step that needs an approval: `awaiting_approval`, and the panel's banner with the
     * previous output. With `budget`, the wait is past an exhausted daily budget: the banner shows the
     * budget's text, and `waitingFor: 'budget'` says so (docs/budgets.md).
     */
    async requestApproval(input: StepRef & { previousExecutionId: string | null; budget?: StepBudgetWait }): Promise<void> {
      const record = await run(input.runId);
      await markRunAwaitingApproval(db, input.runId);
      const previous = input.previousExecutionId ? await getExecution(db, input.previousExecutionId) : null;
      const previousOutput =
        input.budget?.text ?? (previous ? (previous.result ?? '') : (record.lastStepInput ?? record.task)).slice(0, PREVIOUS_OUTPUT_MAX);
      const waitingFor = input.budget ? 'budget' : 'approval';
      await tell(record, { type: 'pipeline_status', ...ids(record), status: 'awaiting_approval', stepIndex: input.stepIndex, waitingFor });
      await tell(record, {
        type: 'pipeline_approval_required',
        ...ids(record),
        stepIndex: input.stepIndex,
        agentName: input.budget?.agentName ?? previous?.agentName ?? 'agente',
        previousOutput,
        waitingFor,
        ...(input.budget ? { budget: input.budget.budget } : {}),
      });
    },

    /** Whether a daily budget of step `stepIndex`'s agent is exhausted: the wait's text and budget, else null. */
    async stepBudget(input: StepRef): Promise<StepBudgetWait | null> {
      const record = await run(input.runId);
      const pipeline = await findPipeline(db, record.pipelineId ?? '');
      const step = pipeline?.steps[input.stepIndex];
      // A step or agent gone is startStep's to report, as the step's failure.
      const agent = step ? await findAgent(db, step.agentId) : null;
      return agent ? budgetWaitOf(agent.name, await budgetRefusal(budgetDeps, agent)) : null;
    },

    async approvalGranted(runId: string): Promise<void> {
      await markRunRunning(db, runId);
    },

    /** A rejection (or no decision in time) ends the run `rejected`. */
    async rejectRun(input: StepRef & { reason: 'rejected' | 'timeout' }): Promise<void> {
      const record = await run(input.runId);
      const error =
        input.reason === 'timeout' ? `a aprovação do passo ${input.stepIndex + 1} expirou` : `rejeitado no passo ${input.stepIndex + 1}`;
      const costUsd = await runCost(record);
      const finished = await finishExecution(db, input.runId, { status: 'rejected', error, costUsd });
      if (finished?.changed)
        await tell(record, { type: 'pipeline_rejected', ...ids(record), stepIndex: input.stepIndex, reason: input.reason });
    },

    /**
     * Creates the step's agent record (queued; its child workflow runs it like any execution), with the
     * previous result put through the step's template, and tells the panel the step starts.
     */
    async startStep(input: StartStepInput): Promise<void> {
      const record = await run(input.runId);
      const previous = input.previousExecutionId ? await getExecution(db, input.previousExecutionId) : null;
      await startStepOf(record, input, previous);
    },

    /**
     * After the step's workflow: its outcome from its record; a completed step adds its cost and tells
     * the panel, then (`then`) starts the next step or completes the run.
     */
    async finishStep(input: StepRef & { stepExecutionId: string; then?: AfterStep }): Promise<StepOutcome> {
      // Independent reads at once: this activity is on the path from one step to the next.
      const [record, step] = await Promise.all([run(input.runId), getExecution(db, input.stepExecutionId)]);
      if (!step) return { error: `o registro do passo ${input.stepIndex + 1} não existe mais` };
      const [costUsd, pipeline] = await Promise.all([runCost(record), findPipeline(db, record.pipelineId ?? '')]);
      await setRunProgress(db, input.runId, { costUsd });
      if (step.status !== 'completed') return { error: step.error ?? `step ${input.stepIndex + 1} ended ${step.status}` };
      await tell(record, {
        type: 'pipeline_step_complete',
        ...ids(record),
        stepIndex: input.stepIndex,
        stepId: pipeline?.steps[input.stepIndex]?.id ?? '',
        result: (step.result ?? '').slice(0, STEP_COMPLETE_RESULT_MAX),
        costUsd: step.costUsd ?? 0,
      });
      if (input.then === 'completeRun') await completeRunOf(record);
      if (!input.then || input.then === 'completeRun') return { error: null };
      try {
        const next = {
          runId: input.runId,
          stepIndex: input.stepIndex + 1,
          stepExecutionId: input.then.startStep,
          previousExecutionId: step.id,
        };
        const started = await startStepOf(record, next, step, pipeline, input.then.checkBudget === true);
        // Not started past an exhausted budget: the workflow checks again and waits for a decision.
        return { error: null, started };
      } catch (error) {
        // The next step cannot start (gone, inactive): startStep fails it as that step's failure.
        if (error instanceof ApplicationFailure && error.type === STEP_FAILED) return { error: null, started: false };
        throw error;
      }
    },

    /** A failed step fails the run: `error`, the step, and the input it was given (resume starts there). */
    async failRun(input: StepRef & { error: string }): Promise<void> {
      await failRunOf(await run(input.runId), input.stepIndex, input.error);
    },

    /** Every step completed: the run's result is the last step's; the report; then `pipeline_complete`. */
    async completeRun(runId: string): Promise<void> {
      await completeRunOf(await run(runId));
    },

    /**
     * The reconciler's end of a run whose workflow is gone (docs/pipelines.md, "Reconciler"): where a
     * resume starts (the step that was running, else the one after the last completed step, with its
     * result as input), the cost so far, then the record, conditional on it being unfinished, and
     * `pipeline_error` for an `error`. True when this call ended it.
     */
    async endStrandedRun(input: { runId: string; status: 'error' | 'canceled'; error: string }): Promise<boolean> {
      const record = await getExecution(db, input.runId);
      if (!record || record.kind !== 'pipeline') return false;
      const own = await stepRecordsOfRun(db, record.id);
      const last = own[own.length - 1];
      let failedAtStep = record.resumedAtStep ?? 0;
      let lastStepInput: string | undefined;
      if (last && last.status === 'completed') {
        failedAtStep = (last.stepIndex ?? 0) + 1;
        lastStepInput = stepInputOf(last.result ?? '', null).input;
      } else if (last) {
        failedAtStep = last.stepIndex ?? 0;
      }
      await setRunProgress(db, record.id, {
        failedAtStep,
        costUsd: await runCost(record),
        ...(lastStepInput !== undefined ? { lastStepInput } : {}),
      });
      const finished = await finishExecution(db, record.id, { status: input.status, error: input.error });
      if (!finished?.changed) return false;
      if (input.status === 'error')
        await tell(record, { type: 'pipeline_error', ...ids(record), stepIndex: failedAtStep, error: input.error });
      return true;
    },

    /**
     * After the last step of a run in a repository, before completeRun: one commit and push of the
     * working copy (docs/repositories.md), as a user of the pool. A regular activity, not a local one:
     * it may wait for a user and for git; heartbeats, and a cancel ends the wait. Null when pushed
     * (or nothing to push); else why not (the workflow then fails the run after its last step, so a
     * resume pushes again). Repeatable: a commit already made is pushed, one already pushed is not.
     */
    async pushRun(runId: string): Promise<{ error: string | null }> {
      const record = await run(runId);
      // The working copy is on the run's host (docs/multi-host.md).
      refuseOtherHost(record.host, config.orchestration.host, `pipeline run ${runId}`);
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), 5_000);
      try {
        const error = await pushRunChanges(
          {
            db,
            config: config.orchestration.repositories,
            announce: (content) => announceGit(record, content),
            signal: context.cancellationSignal,
          },
          record,
        );
        return { error };
      } finally {
        clearInterval(beat);
      }
    },

    /** The run was cancelled: `canceled`, final (its running step's own workflow ends that step). No message (contract 4.5). */
    async cancelRun(runId: string): Promise<void> {
      const record = await run(runId);
      await finishExecution(db, runId, { status: 'canceled', error: CANCELLED_ERROR, costUsd: await runCost(record) });
    },
  };

  /** startStep's work, given the run's record and the previous step's record (null: the run's input). */
  /**
   * Creates and announces the step's record; with `checkBudget`, only when no daily budget of its agent
   * is exhausted (false: not started). True when the record exists.
   */
  async function startStepOf(
    record: Execution,
    input: StartStepInput,
    previous: Execution | null,
    knownPipeline?: Pipeline | null,
    checkBudget = false,
  ): Promise<boolean> {
    const [existing, pipeline, settings] = await Promise.all([
      getExecution(db, input.stepExecutionId),
      knownPipeline ?? findPipeline(db, record.pipelineId ?? ''),
      readExecutionSettings(db, config.orchestration.workdirRoots),
    ]);
    if (existing) return true; // a retried activity: created (and announced) before
    const step = pipeline?.steps[input.stepIndex];
    if (!pipeline || !step)
      throw ApplicationFailure.nonRetryable(`step ${input.stepIndex + 1} of pipeline ${record.pipelineId} no longer exists`, STEP_FAILED);
    const agent = await findAgent(db, step.agentId);
    if (!agent) throw ApplicationFailure.nonRetryable(`agent ${step.agentId} of step ${input.stepIndex + 1} no longer exists`, STEP_FAILED);
    if (agent.status !== 'active')
      throw ApplicationFailure.nonRetryable(`agent "${agent.name}" of step ${input.stepIndex + 1} is inactive`, STEP_FAILED);
    if (checkBudget && (await budgetRefusal(budgetDeps, agent, new Date(), settings.dailyBudgetUsd)) !== null) return false;
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
      task: prompt,
      instructions: '',
      workingDirectory: record.workingDirectory,
      model: agent.model ?? settings.defaultModel,
      // In a repository: each step runs in its working copy, one at a time; the run pushes once at the end.
      repoName: record.repoName,
      repoBranch: record.repoBranch,
    });
    await tell(record, {
      type: 'pipeline_step_start',
      ...ids(record),
      stepIndex: input.stepIndex,
      stepId: step.id,
      agentName: agent.name,
      totalSteps: pipeline.steps.length,
      ...(record.resumedFrom ? { resumed: true as const } : {}),
      stepExecutionId: input.stepExecutionId,
    });
    return true;
  }

  /** completeRun's work, given the run's record. */
  async function completeRunOf(record: Execution): Promise<void> {
    const runId = record.id;
    const steps = await runStepRecords(db, record);
    const last = steps[steps.length - 1] ?? null;
    const costUsd = await runCost(record);
    const finishedAt = new Date();
    const startedAt = record.startedAt ?? record.createdAt;
    const finished = await finishExecution(db, runId, {
      status: 'completed',
      costUsd,
      result: last?.result ?? null,
      sessionId: last?.sessionId ?? null,
      durationMs: finishedAt.getTime() - startedAt.getTime(),
      output: steps.map((step) => `## ${(step.stepIndex ?? 0) + 1}. ${step.agentName}\n\n${step.result ?? ''}`).join('\n\n'),
      finishedAt,
    });
    if (!finished?.changed) return;
    const pipeline = await findPipeline(db, record.pipelineId ?? '');
    countStepOverheads(finished.execution, await stepRecordsOfRun(db, runId), pipeline);
    try {
      const reportFile = await writeExecutionReport(finished.execution, config.orchestration, config.orchestration.limits.reports);
      await setExecutionReportFile(db, runId, reportFile);
      await tell(record, { type: 'report_generated', ...ids(record), reportFile });
    } catch (error) {
      logger.warn({ err: error, runId }, 'pipeline report not written');
    }
    await tell(record, {
      type: 'pipeline_complete',
      ...ids(record),
      results: steps.map((step) => ({
        stepId: pipeline?.steps[step.stepIndex ?? 0]?.id ?? '',
        agentId: step.agentId ?? '',
        agentName: step.agentName,
        result: (step.result ?? '').slice(0, STEP_RESULT_MESSAGE_MAX),
        sessionId: step.sessionId,
      })),
      totalCostUsd: costUsd,
      lastAgentId: last?.agentId ?? null,
      lastAgentName: last?.agentName ?? null,
      lastSessionId: last?.sessionId ?? null,
    });
  }

  /** failRun's work: `error`, the step a resume starts at, the cost so far, `pipeline_error`. */
  async function failRunOf(record: Execution, stepIndex: number, error: string): Promise<void> {
    await setRunProgress(db, record.id, { failedAtStep: stepIndex, costUsd: await runCost(record) });
    const finished = await finishExecution(db, record.id, { status: 'error', error });
    if (finished?.changed) await tell(record, { type: 'pipeline_error', ...ids(record), stepIndex, error });
  }

  /** The git line after the last step: `pipeline_step_output` without an executionId (contract 4.3). */
  async function announceGit(record: Execution, content: string): Promise<void> {
    const steps = await stepRecordsOfRun(db, record.id);
    const stepIndex = steps[steps.length - 1]?.stepIndex ?? 0;
    await tell(record, {
      type: 'pipeline_step_output',
      pipelineId: record.pipelineId ?? '',
      pipelineExecutionId: record.id,
      stepIndex,
      data: { type: 'success', content },
    });
  }

  /** The run's cost: its steps' and, for a resumed run, the earlier runs' steps before it. */
  async function runCost(record: Execution): Promise<number> {
    const steps = await runStepRecords(db, record);
    return steps.reduce((sum, step) => sum + (step.costUsd ?? 0), 0);
  }
}

export type PipelineActivities = ReturnType<typeof createPipelineActivities>;
