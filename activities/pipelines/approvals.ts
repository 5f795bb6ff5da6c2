import { findAgent } from '../../db/agents-store';
import { finishExecution, getExecution } from '../../db/executions-store';
import { findPipeline, markRunAwaitingApproval, markRunRunning } from '../../db/pipelines-store';
import { roundUsd } from '../../domain/budgets';
import { PREVIOUS_OUTPUT_MAX } from '../../domain/pipeline-steps';
import { budgetRefusal, type BudgetExhaustedError } from '../../services/budgets';
import type { ApprovalRequest, RejectRunInput, StepBudgetWait, StepRef } from '../../temporal/contracts/pipeline-activities';
import { runStepRecords } from '../../services/pipelines/run-steps';
import { budgetDepsOf, idsOf, runCost, runOf, tell, type PipelineActivityDeps } from './run-context';
import { reportRun, stepsOutput } from './run-end';

/** The activities around a run's waits: an approval before a gated step, or past an exhausted daily budget (docs/pipelines.md, "Approvals"). */

/**
 * Before a step that needs an approval: `awaiting_approval`, and the panel's banner with the
 * previous output. With `budget`, the wait is past an exhausted daily budget: the banner shows the
 * budget's text, and `waitingFor: 'budget'` says so (docs/budgets.md).
 */
export async function requestApproval(deps: PipelineActivityDeps, input: ApprovalRequest): Promise<void> {
  const { db } = deps;
  const record = await runOf(deps, input.runId);
  await markRunAwaitingApproval(db, input.runId);
  const previous = input.previousExecutionId ? await getExecution(db, input.previousExecutionId) : null;
  const previousOutput =
    input.budget?.text ?? (previous ? (previous.result ?? '') : (record.lastStepInput ?? record.task)).slice(0, PREVIOUS_OUTPUT_MAX);
  const waitingFor = input.budget ? 'budget' : 'approval';
  await tell(deps, record, {
    type: 'pipeline_status',
    ...idsOf(record),
    status: 'awaiting_approval',
    stepIndex: input.stepIndex,
    waitingFor,
  });
  await tell(deps, record, {
    type: 'pipeline_approval_required',
    ...idsOf(record),
    stepIndex: input.stepIndex,
    agentName: input.budget?.agentName ?? previous?.agentName ?? 'agente',
    previousOutput,
    waitingFor,
    ...(input.budget ? { budget: input.budget.budget } : {}),
  });
}

/** Whether a daily budget of step `stepIndex`'s agent is exhausted: the wait's text and budget, else null. */
export async function stepBudget(deps: PipelineActivityDeps, input: StepRef): Promise<StepBudgetWait | null> {
  const record = await runOf(deps, input.runId);
  const pipeline = await findPipeline(deps.db, record.pipelineId ?? '');
  const step = pipeline?.steps[input.stepIndex];
  // A step or agent gone is startStep's to report, as the step's failure.
  const agent = step ? await findAgent(deps.db, step.agentId) : null;
  return agent ? budgetWaitOf(agent.name, await budgetRefusal(budgetDepsOf(deps), agent)) : null;
}

/** The wait a budget refusal means (null: none), its spending rounded as the banner shows it. */
function budgetWaitOf(agentName: string, refusal: BudgetExhaustedError | null): StepBudgetWait | null {
  if (refusal === null) return null;
  const { scope, agentId, limitUsd, spentUsd } = refusal.budget;
  return { text: refusal.message, agentName, budget: { scope, agentId, limitUsd, spentUsd: roundUsd(spentUsd) } };
}

/** The decision was `approve`: the run is `running` again. */
export async function approvalGranted({ db }: PipelineActivityDeps, runId: string): Promise<void> {
  await markRunRunning(db, runId);
}

/** A rejection (or no decision in time) ends the run `rejected`. */
export async function rejectRun(deps: PipelineActivityDeps, input: RejectRunInput): Promise<void> {
  const record = await runOf(deps, input.runId);
  const error =
    input.reason === 'timeout' ? `a aprovação do passo ${input.stepIndex + 1} expirou` : `rejeitado no passo ${input.stepIndex + 1}`;
  const costUsd = await runCost(deps, record);
  const output = stepsOutput(await runStepRecords(deps.db, record));
  const finished = await finishExecution(deps.db, input.runId, { status: 'rejected', error, costUsd, output });
  if (!finished?.changed) return;
  await reportRun(deps, finished.execution);
  await tell(deps, record, { type: 'pipeline_rejected', ...idsOf(record), stepIndex: input.stepIndex, reason: input.reason });
}
