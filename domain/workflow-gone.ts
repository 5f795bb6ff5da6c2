/**
 * What the reconcilers (docs/agent-executions.md, "Reconciler"; docs/ranking-job.md) make of a record
 * that is not final while its workflow is gone. Pure: the activities describe the workflow and store.
 */

/** A workflow as Temporal describes it: still open, closed with a status, or not found at all. */
export type WorkflowState =
  | { kind: 'open' }
  /** `status`: Temporal's closed status name (TERMINATED, FAILED, TIMED_OUT, CANCELLED, COMPLETED); `closedAt` when told. */
  | { kind: 'closed'; status: string; closedAt: Date | null }
  | { kind: 'missing' };

/**
 * A record whose workflow is not found is only ended once it is this old: the API stores an
 * execution `queued` a moment before it starts its workflow, so a young record may simply not have
 * one yet.
 */
export const MISSING_WORKFLOW_GRACE_MS = 60_000;
/**
 * A record whose workflow closed is only ended this long after the close. Every workflow ends its
 * record before it closes, so there is no race with the record; the wait is for the agent: the run
 * activity of a terminated workflow hears of it at its next heartbeat (every second) and kills the
 * agent's process group (SIGKILL after 1 s), so the slot is freed once the agent is gone.
 */
export const CLOSED_WORKFLOW_GRACE_MS = 10_000;

export interface StrandedExecutionOutcome {
  status: 'error' | 'canceled';
  error: string;
}

/** The error of an execution record whose workflow ended without ending it. */
export function workflowGoneError(state: Exclude<WorkflowState, { kind: 'open' }>): string {
  return state.kind === 'missing'
    ? 'o workflow da execução não foi encontrado: nunca começou ou não existe mais'
    : `o workflow da execução terminou como ${state.status} sem finalizar o registro`;
}

/**
 * The final status of an execution record that is still `queued` or `running`, or null when it must
 * be left alone: its workflow is open, closed less than CLOSED_WORKFLOW_GRACE_MS ago, or not found
 * while the record is younger than MISSING_WORKFLOW_GRACE_MS. A workflow cancelled from outside ends
 * the record `cancelled`; every other end (terminated, failed, timed out, even completed) is `failed`.
 */
export function strandedExecutionOutcome(state: WorkflowState, createdAt: Date, now: Date): StrandedExecutionOutcome | null {
  if (state.kind === 'open') return null;
  if (state.kind === 'missing' && now.getTime() - createdAt.getTime() < MISSING_WORKFLOW_GRACE_MS) return null;
  if (state.kind === 'closed' && state.closedAt && now.getTime() - state.closedAt.getTime() < CLOSED_WORKFLOW_GRACE_MS) return null;
  return { status: state.kind === 'closed' && state.status === 'CANCELLED' ? 'canceled' : 'error', error: workflowGoneError(state) };
}

/** The ranking job's run ended from outside, as `ranking_job_runs` records it. */
export interface InterruptedRunOutcome {
  estado: 'falhou' | 'cancelado';
  erro: string;
}

/**
 * A ranking run recorded `em_execucao` (its `runId` is the first run of its chain of executions),
 * given the latest execution of the workflow id `ranking_job`: null while its chain is open;
 * otherwise how it ended. The workflow records its own end before it closes, so a closed chain with
 * the run still `em_execucao` was stopped from outside (terminated, timed out, or a failure of the
 * recording itself). Only one chain of `ranking_job` is open at a time: when the latest execution
 * belongs to another chain, this run's chain closed before it, how is not known here.
 */
export function interruptedRunOutcome(
  runId: string,
  latest: { state: WorkflowState; firstRunId: string | null },
): InterruptedRunOutcome | null {
  const { state, firstRunId } = latest;
  // An open execution whose chain is not told is taken for this run's (a doubt never ends a run).
  const ownChain = firstRunId === null || firstRunId === runId;
  if (state.kind === 'open' && ownChain) return null;
  if (state.kind === 'closed' && ownChain) {
    return {
      estado: state.status === 'CANCELLED' ? 'cancelado' : 'falhou',
      erro: `processamento interrompido: o workflow terminou como ${state.status} sem registrar o fim`,
    };
  }
  return { estado: 'falhou', erro: 'processamento interrompido: o workflow não está mais em execução' };
}
