import { ApplicationFailure } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type Redis from 'ioredis';
import type { Database } from '../../db';
import { everyHostRoots } from '../../db/agent-hosts-store';
import { findAgent } from '../../db/agents-store';
import { recordFailedAttempt } from '../../db/execution-attempts';
import { markExecutionRetrying, requeueRetryingExecution } from '../../db/executions-store';
import type { Config } from '../../lib/config';
import type { Logger } from '../../lib/logger';
import { UseCaseError } from '../../services/errors';
import type { ExecutionDeps } from '../../services/executions/deps';
import { storeDelegatedExecution } from '../../services/executions/delegate';
import { budgetRefusal } from '../../services/budgets';
import { lifecycleStreamOf, publishBestEffort } from '../../services/executions/live';
import { startAgentExecution } from '../../temporal/agent-execution';
import { executionGone, existingRecord } from './records';

/**
 * What follows a run, for the execution workflow (workflows/agents/execution.ts;
 * docs/agent-executions.md, "Retry on failure" and "Delegation"): another attempt of a failed run of
 * an agent with `retryOnFailure`, and the record of the run a completed run's result is delegated to
 * (the workflow starts it). Both read the agent when they happen, so an edit made during the run applies.
 */

export interface FollowUpDeps {
  db: Database;
  redis: Redis;
  /** Only for delegateResult, the path of workflows started before the workflow started delegated runs itself. */
  temporal: Pick<Client, 'workflow'>;
  config: Pick<Config, 'orchestration'>;
  logger: Logger;
}

export interface PlanRetryInput {
  executionId: string;
  /** The attempt that just failed: 1 for the first run. */
  attempt: number;
  reason: string;
}

/** Another attempt after `delayMs`; `{error}`: none, refused by a budget, and the record ends with this error; null: the failure is final. */
export type PlannedRetry = { delayMs: number } | { error: string } | null;

/** The panel offers 1 to 3 retries (contract 3.1); stored values outside are held to that range. */
export const MAX_RETRIES_RANGE = { min: 1, max: 3 } as const;

const clampRetries = (value: number) => Math.min(MAX_RETRIES_RANGE.max, Math.max(MAX_RETRIES_RANGE.min, value));

export function createFollowUpActivities(deps: FollowUpDeps) {
  const { db, config } = deps;
  const { retryDelayMs, delegationDepthMax } = config.orchestration.followUps;
  const useCaseDeps: ExecutionDeps = { ...deps, workdirRoots: config.orchestration.workdirRoots };

  async function storeDelegatedRun(executionId: string): Promise<{ executionId: string } | null> {
    try {
      // Any worker of the shared queue stores it: the delegate's directory may be another host's (docs/multi-host.md).
      const workdirRoots = await everyHostRoots(db, useCaseDeps.workdirRoots);
      return await storeDelegatedExecution({ ...useCaseDeps, workdirRoots }, executionId, delegationDepthMax);
    } catch (error) {
      if (error instanceof UseCaseError && error.kind === 'not_found') throw executionGone(executionId);
      // A refused record (the working directory outside the roots) is refused again on every attempt.
      if (error instanceof UseCaseError && error.kind === 'invalid')
        throw ApplicationFailure.nonRetryable(error.message, 'DelegationRefused');
      throw error;
    }
  }

  return {
    /**
     * Whether the failed attempt is tried again: only for an agent with `retryOnFailure` that has
     * retries left (`maxRetries`, 1..3). Then the record becomes `retrying` (error: why, attempt: the
     * next one), the client hears `execution_retry`, and the workflow sleeps `delayMs` (attempt ×
     * AGENT_RETRY_DELAY_SECONDS). Null when the failure is final. The failed attempt is recorded first
     * (db/execution-attempts.ts): its cost counts in the record's and the day's, before the budgets are
     * read. A daily budget exhausted refuses the retry: `{error}` is then the record's final error, the
     * budget's text and the failure (docs/budgets.md).
     * Repeatable: a retried call finds the record already `retrying` for this attempt and answers the same.
     */
    async planRetry(input: PlanRetryInput): Promise<PlannedRetry> {
      const record = await existingRecord(db, input.executionId);
      const agent = record.agentId ? await findAgent(db, record.agentId) : null;
      if (!agent?.retryOnFailure) return null;
      const maxRetries = clampRetries(agent.maxRetries);
      if (input.attempt > maxRetries) return null;
      if (!(record.status === 'retrying' && record.attempt === input.attempt + 1)) {
        // The failed attempt's end and cost first: the budgets below count what it spent (docs/budgets.md).
        await recordFailedAttempt(db, record.id, input.attempt, input.reason);
        const refusal = await budgetRefusal(useCaseDeps, agent);
        if (refusal !== null)
          return { error: `${refusal.message}. Nova tentativa não feita; a tentativa ${input.attempt} falhou: ${input.reason}` };
      }
      const delayMs = input.attempt * retryDelayMs;
      const moved = await markExecutionRetrying(db, record.id, input.reason, input.attempt + 1);
      if (!moved && !(record.status === 'retrying' && record.attempt === input.attempt + 1)) return null;
      await publishBestEffort(
        deps,
        lifecycleStreamOf(deps, record)?.retry({ attempt: input.attempt, maxRetries, nextRetryIn: delayMs / 1000, reason: input.reason }),
      );
      return { delayMs };
    },

    /** After the delay: back to `queued`, so the next attempt waits for a concurrency slot like any run. */
    async requeueForRetry(executionId: string): Promise<void> {
      await requeueRetryingExecution(db, executionId);
    },

    /**
     * Stores the run a completed run's result is delegated to (services/executions/delegate.ts), for
     * the workflow to start as its child; null when there is none. Repeatable.
     */
    storeDelegatedRun,

    /**
     * The same, started here through the worker's client: the path of execution workflows started
     * before DELEGATION_CHILD_PATCH (workflows/agents/execution.ts), kept while one may still be open
     * at a deploy. A second start of the same record is refused by its workflow id, so it is repeatable.
     */
    async delegateResult(executionId: string): Promise<{ executionId: string } | null> {
      const delegated = await storeDelegatedRun(executionId);
      if (delegated) {
        await startAgentExecution(deps.temporal, { executionId: delegated.executionId }).catch((error: unknown) => {
          if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
        });
      }
      return delegated;
    },
  };
}

export type FollowUpActivities = ReturnType<typeof createFollowUpActivities>;
