import {
  ActivityCancellationType,
  type ActivityOptions,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  isCancellation,
  log,
  ParentClosePolicy,
  patched,
  proxyActivities,
  type RetryPolicy,
  sleep,
  startChild,
  TimeoutFailure,
  upsertSearchAttributes,
  workflowInfo,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import type { ClosedExecution, FinishExecutionInput } from '../../activities/agents/close-execution';
import type { AgentExecutionActivities, RunGrant } from '../../activities/agents/execution-activities';
import type { AgentRunOutcome } from '../../activities/agents/run-outcome';
import type { FollowUpActivities } from '../../activities/agents/follow-ups';
import {
  AGENT_EXECUTION_WORKFLOW,
  agentExecutionWorkflowId,
  type AgentExecutionInput,
  type AgentExecutionResult,
  type AgentExecutionWorkflow,
} from '../../temporal/contracts/agent-execution';
import { ACTIVITY_QUEUES, agentsHostQueue, TASK_QUEUES } from '../../temporal/task-queues';
import { AGENT_NAME, labelsOf, RUN_STATUS, runSearchAttributes, type RunLabels } from '../../temporal/contracts/search-attributes';
import { agentRunSummary, detailLines } from '../../temporal/contracts/summaries';
import type { ExecutionStatus } from '../../domain/execution-status';
import { CANCELLED_ERROR, hostDownError, WORKER_LOST_ERROR, WORKER_STOPPED_ERROR } from '../../domain/execution-errors';
import { timedOutError } from '../../domain/run-limits';
import { AGENT_EXECUTION_NON_RETRYABLE } from '../../domain/failure-types';

/** Failures where another attempt cannot help: the record, the agent, its options or secrets are wrong (domain/failure-types.ts). */
const NON_RETRYABLE = [...AGENT_EXECUTION_NON_RETRYABLE];

/** The slot waiter's retries (its worker died): quick, as a waiter only holds a place in the queue. */
export const SLOT_RETRY: RetryPolicy = {
  initialInterval: '1 second',
  maximumInterval: '10 seconds',
  nonRetryableErrorTypes: NON_RETRYABLE,
};
/** Finishing, the report, the notification, retries and delegation are idempotent: retried freely. */
export const BOOKKEEPING_RETRY: RetryPolicy = {
  initialInterval: '1 second',
  maximumInterval: '30 seconds',
  maximumAttempts: 20,
  nonRetryableErrorTypes: NON_RETRYABLE,
};

// Waiting for a slot can last as long as the queue: one long activity that heartbeats; retried when its
// worker dies. On its own queue, so waiters never hold the activity slots the runs need.
const slot = proxyActivities<AgentExecutionActivities>({
  taskQueue: ACTIVITY_QUEUES.agentSlots,
  startToCloseTimeout: '7 days',
  heartbeatTimeout: '10 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: SLOT_RETRY,
});
// The agent run has side effects (files, money): one attempt, never repeated behind the user's back.
const RUN_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '24 hours',
  heartbeatTimeout: '30 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { maximumAttempts: 1 },
};
/** How long a run waits for its host's worker to take it: a host down longer fails the run (docs/multi-host.md). */
export const HOST_PICKUP_MINUTES = 5;
export const HOST_PICKUP_TIMEOUT = `${HOST_PICKUP_MINUTES} minutes`;
/**
 * What the run activity may take beyond its time limit before Temporal ends it: the work around the
 * agent's process (the working copy before it, the output's last writes and the push after it), which
 * the limit does not count. The limit itself is kept by the activity from the process start
 * (docs/agents.md, "Time limit").
 */
export const RUN_LIMIT_MARGIN_MS = 10 * 60_000;

/**
 * The run activity: on the task queue of the agents host its record is pinned to (else on `agents`,
 * as runs granted before hosts existed), and, when its grant says so, bounded by its time limit.
 */
function runner(host: string | undefined, timeLimitMs: number | undefined) {
  const onHost = host !== undefined && patched(HOST_QUEUE_PATCH);
  return proxyActivities<AgentExecutionActivities>({
    ...RUN_OPTIONS,
    ...(onHost ? { taskQueue: agentsHostQueue(host), scheduleToStartTimeout: HOST_PICKUP_TIMEOUT } : {}),
    ...(timeLimitMs !== undefined ? { startToCloseTimeout: timeLimitMs + RUN_LIMIT_MARGIN_MS } : {}),
  });
}

const finish = proxyActivities<AgentExecutionActivities>({
  startToCloseTimeout: '1 minute',
  retry: BOOKKEEPING_RETRY,
});

const followUp = proxyActivities<FollowUpActivities>({
  startToCloseTimeout: '1 minute',
  retry: BOOKKEEPING_RETRY,
});

/** Patch ids: histories recorded before these features replay without them (test/fixtures/histories). */
export const RETRY_ON_FAILURE_PATCH = 'agent-retry-on-failure';
export const DELEGATION_PATCH = 'agent-delegation';
/** The close as one activity (closeExecution), and delegateResult only when the agent delegates. */
export const CLOSE_IN_ONE_PATCH = 'agent-close-in-one';
/** The run on its host's queue (`agents-host-<name>`), not on `agents` (docs/multi-host.md). */
export const HOST_QUEUE_PATCH = 'agent-run-on-host';
/**
 * The delegated run is stored by an activity and started here, as a child abandoned when this
 * workflow closes (as a schedule's firing starts its run), not by an activity through a client.
 */
export const DELEGATION_CHILD_PATCH = 'agent-delegation-child';
/** A run task lost on its way to a worker (it timed out without one heartbeat) is scheduled again. */
export const REDELIVERY_PATCH = 'agent-run-redelivered';
/**
 * RunStatus kept current by the workflow (upsertSearchAttributes, a workflow command; docs/observability.md):
 * histories recorded before it replay without the upserts. Shared by the pipeline workflow.
 */
export const SEARCH_ATTRIBUTES_PATCH = 'run-search-attributes';

/** Sets the RunStatus search attribute to the record's status as this workflow now knows it; nothing in a run started before the patch. */
export function runStatusSetter(): (status: ExecutionStatus) => void {
  const searchable = patched(SEARCH_ATTRIBUTES_PATCH);
  let current: string | undefined = workflowInfo().typedSearchAttributes.get(RUN_STATUS);
  return (status) => {
    if (!searchable || status === current) return;
    upsertSearchAttributes([{ key: RUN_STATUS, value: status }]);
    current = status;
  };
}
/**
 * Deliveries of one run attempt: the first, and up to two more when a delivery was lost. Under load the
 * server can mark a task started that never reaches the worker (no delivery acknowledgement;
 * docs/agent-executions.md, "A run lost on its way to the worker"); three losses in a row mean
 * something else is wrong.
 */
export const RUN_DELIVERIES_MAX = 3;

/**
 * One agent execution (workflow id `agent-execution-<executionId>`, queue `agents`): waits for a
 * concurrency slot, runs the agent, then finishes the record, writes the report and raises a
 * notification. A failed run of an agent with `retryOnFailure` runs again after a durable timer (the
 * record is `retrying` meanwhile; docs/agent-executions.md, "Retry on failure"). A cancellation ends
 * the record `canceled` and is rethrown; a failed agent ends it `error` and the workflow completes
 * (the record holds the outcome). A completed run of an agent with `delegateTo` hands its result to
 * that agent as a new execution ("Delegation").
 */
export async function agentExecutionWorkflow(input: AgentExecutionInput): Promise<AgentExecutionResult> {
  const { executionId } = input;
  const setStatus = runStatusSetter();
  // The agent's name as the start labelled the run (absent in runs started unlabelled): the activities' summaries.
  const agentName = workflowInfo().typedSearchAttributes.get(AGENT_NAME);
  let outcome: FinishExecutionInput | undefined;
  let host: string | undefined;
  try {
    for (let attempt = 1; outcome === undefined; attempt++) {
      const mayRun: RunGrant | string | boolean = await slot.waitForSlot.executeWithOptions({ summary: 'wait for a concurrency slot' }, [
        executionId,
      ]);
      if (!mayRun) {
        // Ended while queued (the API cancels a queued record itself): the report and notification still follow.
        const closed = await CancellationScope.nonCancellable(() => close({ executionId, status: 'canceled', error: CANCELLED_ERROR }));
        setStatus(closed.status);
        return { executionId, ...closed };
      }
      setStatus('running');
      // A slot granted before hosts existed is `true` (the run goes to `agents`, as it did), before time limits a host's name.
      let timeLimitMs: number | undefined;
      if (typeof mayRun === 'string') host = mayRun;
      if (typeof mayRun === 'object') ({ host, timeLimitMs } = mayRun);
      const agentRun = runner(host, timeLimitMs);
      try {
        const result = await delivered(() =>
          agentRun.runAgentExecution.executeWithOptions({ summary: agentName ? `run ${agentName}` : 'run the agent' }, [
            { executionId, resumeSessionId: input.resumeSessionId ?? null, ...(timeLimitMs !== undefined ? { timeLimitMs } : {}) },
          ]),
        );
        outcome = { executionId, status: 'completed', error: null, ...result };
      } catch (error) {
        if (isCancellation(error) && CancellationScope.current().consideredCancelled) throw error;
        const failure: FinishExecutionInput = { executionId, status: 'error', ...failureOf(error, host, timeLimitMs) };
        const retry = patched(RETRY_ON_FAILURE_PATCH)
          ? await followUp.planRetry.executeWithOptions({ summary: `attempt ${attempt} failed: retry?` }, [
              { executionId, attempt, reason: failure.error ?? '' },
            ])
          : null;
        if (retry === null) {
          outcome = failure;
        } else if ('error' in retry) {
          // A daily budget refused the next attempt (docs/budgets.md).
          outcome = { ...failure, error: retry.error };
        } else {
          setStatus('retrying');
          await sleep(retry.delayMs);
          await followUp.requeueForRetry.executeWithOptions({ summary: `queue attempt ${attempt + 1}` }, [executionId]);
          setStatus('queued');
        }
      }
    }
  } catch (error) {
    // Only a cancellation of this workflow (the API's cancel) is `cancelled`; an activity cancelled by
    // its worker shutting down is a failure of the run.
    if (isCancellation(error) && CancellationScope.current().consideredCancelled) {
      const closed = await CancellationScope.nonCancellable(() => close({ executionId, status: 'canceled', error: CANCELLED_ERROR }));
      setStatus(closed.status);
      throw error;
    }
    outcome = { executionId, status: 'error', ...failureOf(error, host) };
  }
  const closed = await close(outcome);
  setStatus(closed.status);
  // `delegates` is absent from a close recorded before CLOSE_IN_ONE_PATCH: delegateResult then ran always.
  if (closed.status === 'completed' && closed.delegates !== false) {
    if (patched(DELEGATION_CHILD_PATCH)) await delegate(executionId);
    else if (patched(DELEGATION_PATCH)) await followUp.delegateResult(executionId);
  }
  return { executionId, status: outcome.status, error: outcome.error, ...(host !== undefined ? { host } : {}) };
}

/**
 * A run stored by a workflow's activity, started as that workflow's child (a schedule's firing, a
 * delegation): the record's usual id on `agents`, so the panel's cancel finds it, and never twice.
 * `labels` and `summary` make it findable in the Web UI as a run started by the client is
 * (RunStatus `queued`, as its record starts); Temporal's replay compares neither.
 */
export function agentExecutionChild(executionId: string, labels?: RunLabels, summary?: string) {
  return {
    workflowId: agentExecutionWorkflowId(executionId),
    taskQueue: TASK_QUEUES.agents,
    args: [{ executionId }] as [AgentExecutionInput],
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    ...(labels ? { typedSearchAttributes: runSearchAttributes({ ...labels, status: 'queued' }) } : {}),
    ...(summary
      ? {
          staticSummary: summary,
          staticDetails: detailLines({
            execution: executionId,
            agent: labels?.agentId,
            source: labels?.source,
            schedule: labels?.scheduleId,
            webhook: labels?.webhookId,
          }),
        }
      : {}),
  };
}

/**
 * Hands a completed run's result on ("Delegation"): the activity stores the delegated run's record,
 * then it starts as a child with the record's usual id, abandoned when this workflow completes right
 * after, so it runs, and is cancelled, on its own. This run's outcome is recorded already: a
 * delegation that cannot be made is logged, not this workflow's failure.
 */
async function delegate(executionId: string): Promise<void> {
  try {
    const delegated: DelegatedRun | null = await followUp.storeDelegatedRun.executeWithOptions(
      { summary: 'store the run this result is delegated to' },
      [executionId],
    );
    if (delegated === null) return;
    // The delegated record keeps this run's schedule and webhook (services/executions/delegate.ts); its agent is the target.
    const { scheduleId, webhookId } = labelsOf(workflowInfo().typedSearchAttributes);
    const labels: RunLabels = { agentId: delegated.agentId, agentName: delegated.agentName, source: 'delegation', scheduleId, webhookId };
    await startChild<AgentExecutionWorkflow>(AGENT_EXECUTION_WORKFLOW, {
      ...agentExecutionChild(
        delegated.executionId,
        labels,
        delegated.agentName ? agentRunSummary({ agentName: delegated.agentName, source: 'delegation' }) : undefined,
      ),
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    log.warn('delegation not made', { executionId, error: error instanceof Error ? error.message : String(error) });
  }
}

/**
 * What storeDelegatedRun answers: the service (services/executions/delegate.ts) names the target agent
 * too, though the activity declares the id only; absent in histories recorded before it.
 */
interface DelegatedRun {
  executionId: string;
  agentId?: string | null;
  agentName?: string | null;
}

/**
 * The run activity, scheduled again while its task never reached the activity: it timed out on its
 * heartbeat without details. The activity heartbeats without details until its agent's process
 * starts, so such an attempt started no agent and another is safe (and the record's claim of the
 * attempt, claimAgentStart, refuses a second start should the details have reached the server late);
 * a heartbeat timeout with details is a worker that stopped, and the run fails (its agent may have
 * done part of the work).
 */
async function delivered(run: () => Promise<AgentRunOutcome>): Promise<AgentRunOutcome> {
  for (let delivery = 1; ; delivery++) {
    try {
      return await run();
    } catch (error) {
      if (delivery >= RUN_DELIVERIES_MAX || !neverReachedTheActivity(error) || !patched(REDELIVERY_PATCH)) throw error;
      log.warn('agent run task timed out without a heartbeat (lost on its way to a worker): scheduled again', { delivery });
    }
  }
}

function neverReachedTheActivity(error: unknown): boolean {
  const cause = error instanceof ActivityFailure ? error.cause : undefined;
  return cause instanceof TimeoutFailure && cause.timeoutType === 'HEARTBEAT' && cause.lastHeartbeatDetails === undefined;
}

/** Ends the record (a record already ended keeps its outcome), then its report and notification. */
async function close(outcome: FinishExecutionInput): Promise<Pick<ClosedExecution, 'status' | 'error'> & { delegates?: boolean }> {
  // One activity round trip instead of three: a pipeline step's overhead is mostly such round trips (docs/benchmarks.md).
  if (patched(CLOSE_IN_ONE_PATCH))
    return finish.closeExecution.executeWithOptions({ summary: `close the record (${outcome.status}), report, notify` }, [outcome]);
  const stored = await finish.finishExecutionRecord(outcome);
  await finish.writeReport(outcome.executionId);
  await finish.notifyFinished(outcome.executionId);
  return stored;
}

/** The stored error of a failed run, and what the agent reported before failing. */
function failureOf(error: unknown, host: string | undefined, timeLimitMs?: number): { error: string } & Partial<AgentRunOutcome> {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  // Temporal ended the run activity at its limit and margin: the activity's own clock did not stop it.
  if (cause instanceof TimeoutFailure && cause.timeoutType === 'START_TO_CLOSE' && timeLimitMs !== undefined)
    return { error: timedOutError(timeLimitMs) };
  if (cause instanceof TimeoutFailure && cause.timeoutType === 'HEARTBEAT') return { error: WORKER_LOST_ERROR };
  if (cause instanceof TimeoutFailure && cause.timeoutType === 'SCHEDULE_TO_START')
    return { error: hostDownError(host ?? '?', HOST_PICKUP_MINUTES) };
  if (cause instanceof CancelledFailure) return { error: WORKER_STOPPED_ERROR };
  if (cause instanceof ApplicationFailure) {
    const reported = cause.details?.[0] as Partial<AgentRunOutcome> | undefined;
    return { error: cause.message, ...(reported ?? {}) };
  }
  return { error: cause instanceof Error ? cause.message : String(cause) };
}
