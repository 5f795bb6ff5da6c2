import { finishExecution, getExecution, setExecutionReportFile, type Execution } from '../../db/executions-store';
import { findPipeline, setRunProgress, stepRecordsOfRun } from '../../db/pipelines-store';
import { writeExecutionReport } from '../../db/reports-store';
import { CANCELLED_ERROR } from '../../domain/execution-errors';
import { isActiveStatus } from '../../domain/execution-status';
import { STEP_RESULT_MESSAGE_MAX, stepInputOf } from '../../domain/pipeline-steps';
import { countStepOverheads } from '../../services/pipelines/run-metrics';
import { runStepRecords } from '../../services/pipelines/run-steps';
import type { FailRunInput, StrandedRunEnd } from '../../temporal/contracts/pipeline-activities';
import { idsOf, runCost, runOf, tell, type PipelineActivityDeps } from './run-context';

/** The activities that end a run: failed, completed, cancelled, or stranded (its workflow gone). */

/**
 * The Markdown report of a run that just ended, however it ended (the specification: a report per
 * pipeline execution). `report_generated` only for a completed run, as for an agent run: the panel
 * opens the report on it (contract 4.5, "after every successful run"; a cancel sends no event). A
 * report not written is logged, not the run's failure.
 */
export async function reportRun(deps: PipelineActivityDeps, ended: Execution): Promise<void> {
  const { db, config, logger } = deps;
  try {
    const reportFile = await writeExecutionReport(ended, config.orchestration, config.orchestration.limits.reports);
    await setExecutionReportFile(db, ended.id, reportFile);
    if (ended.status === 'completed') await tell(deps, ended, { type: 'report_generated', ...idsOf(ended), reportFile });
  } catch (error) {
    logger.warn({ err: error, runId: ended.id }, 'pipeline report not written');
  }
}

/** Each step's result so far under its number and agent: the run's output (and its report's). */
export function stepsOutput(steps: readonly Execution[]): string {
  return steps.map((step) => `## ${(step.stepIndex ?? 0) + 1}. ${step.agentName}\n\n${step.result ?? step.error ?? ''}`).join('\n\n');
}

/** A failed step fails the run: `error`, the step a resume starts at, the cost so far, `pipeline_error`. */
export async function failRun(deps: PipelineActivityDeps, input: FailRunInput): Promise<void> {
  const { db } = deps;
  const record = await runOf(deps, input.runId);
  // Ended already (cancelled on purpose while its step ended: finishStep): not a failure to resume.
  if (!isActiveStatus(record.status)) return;
  const { stepIndex, error } = input;
  await setRunProgress(db, record.id, { failedAtStep: stepIndex, costUsd: await runCost(deps, record) });
  const output = stepsOutput(await runStepRecords(db, record));
  const finished = await finishExecution(db, record.id, { status: 'error', error, output });
  if (!finished?.changed) return;
  await reportRun(deps, finished.execution);
  await tell(deps, record, { type: 'pipeline_error', ...idsOf(record), stepIndex, error });
}

/** Every step completed: the run's result is the last step's; the report; then `pipeline_complete`. */
export async function completeRun(deps: PipelineActivityDeps, runId: string): Promise<void> {
  await completeRunOf(deps, await runOf(deps, runId));
}

/** completeRun's work, given the run's record (finishStep calls it too, after the last step). */
export async function completeRunOf(deps: PipelineActivityDeps, record: Execution): Promise<void> {
  const { db } = deps;
  const runId = record.id;
  const steps = await runStepRecords(db, record);
  const last = steps[steps.length - 1] ?? null;
  const costUsd = await runCost(deps, record);
  const finishedAt = new Date();
  const startedAt = record.startedAt ?? record.createdAt;
  const finished = await finishExecution(db, runId, {
    status: 'completed',
    costUsd,
    result: last?.result ?? null,
    sessionId: last?.sessionId ?? null,
    durationMs: finishedAt.getTime() - startedAt.getTime(),
    output: stepsOutput(steps),
    finishedAt,
  });
  if (!finished?.changed) return;
  const pipeline = await findPipeline(db, record.pipelineId ?? '');
  countStepOverheads(finished.execution, await stepRecordsOfRun(db, runId), pipeline);
  await reportRun(deps, finished.execution);
  await tell(deps, record, {
    type: 'pipeline_complete',
    ...idsOf(record),
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

/** The run was cancelled: `canceled`, final (its running step's own workflow ends that step). No message (contract 4.5). */
export async function cancelRun(deps: PipelineActivityDeps, runId: string): Promise<void> {
  const record = await runOf(deps, runId);
  const output = stepsOutput(await runStepRecords(deps.db, record));
  const finished = await finishExecution(deps.db, runId, {
    status: 'canceled',
    error: CANCELLED_ERROR,
    costUsd: await runCost(deps, record),
    output,
  });
  if (finished?.changed) await reportRun(deps, finished.execution);
}

/**
 * The reconciler's end of a run whose workflow is gone (docs/pipelines.md, "Reconciler"): where a
 * resume starts (the step that was running, else the one after the last completed step, with its
 * result as input), the cost so far, then the record, conditional on it being unfinished, and
 * `pipeline_error` for an `error`. True when this call ended it.
 */
export async function endStrandedRun(deps: PipelineActivityDeps, input: StrandedRunEnd): Promise<boolean> {
  const { db } = deps;
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
    costUsd: await runCost(deps, record),
    ...(lastStepInput !== undefined ? { lastStepInput } : {}),
  });
  const output = stepsOutput(await runStepRecords(db, record));
  const finished = await finishExecution(db, record.id, { status: input.status, error: input.error, output });
  if (!finished?.changed) return false;
  await reportRun(deps, finished.execution);
  if (input.status === 'error')
    await tell(deps, record, { type: 'pipeline_error', ...idsOf(record), stepIndex: failedAtStep, error: input.error });
  return true;
}
