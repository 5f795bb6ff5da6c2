import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { and, eq } from 'drizzle-orm';
import type Redis from 'ioredis';
import type { Database } from '../../db';
import { findAgent } from '../../db/agents-store';
import { readExecutionSettings } from '../../db/execution-settings';
import { getExecution, type Execution } from '../../db/executions-store';
import { executions } from '../../db/schema';
import type { Config } from '../../lib/config';
import { ExecutionLiveStream, liveTargetOf } from '../../lib/live-output';
import type { Logger } from '../../lib/logger';
import { launchExecution } from '../../services/executions';

/**
 * What follows a run, for the execution workflow (workflows/agents/execution.ts;
 * docs/agent-executions.md, "Retry on failure" and "Delegation"): another attempt of a failed run of
 * an agent with `retryOnFailure`, and the hand-over of a completed run's result to the agent named in
 * `delegateTo`. Both read the agent when they happen, so an edit made during the run applies.
 */

export interface FollowUpDeps {
  db: Database;
  redis: Redis;
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

/** The panel offers 1 to 3 retries (contract 3.1); stored values outside are held to that range. */
export const MAX_RETRIES_RANGE = { min: 1, max: 3 } as const;
/** The delegated task is the previous result; a result longer than this is cut (the prompt travels on stdin, but a bound is a bound). */
export const DELEGATED_TASK_MAX_CHARS = 100_000;

const clampRetries = (value: number) => Math.min(MAX_RETRIES_RANGE.max, Math.max(MAX_RETRIES_RANGE.min, value));

export function createFollowUpActivities(deps: FollowUpDeps) {
  const { db, redis, config, logger } = deps;
  const { retryDelayMs, delegationDepthMax } = config.orchestration.followUps;

  async function existingRecord(executionId: string): Promise<Execution> {
    const record = await getExecution(db, executionId);
    if (!record) throw ApplicationFailure.nonRetryable(`execution ${executionId} not found`, 'ExecutionNotFound');
    return record;
  }

  function liveStreamOf(record: Execution): ExecutionLiveStream | null {
    const target = liveTargetOf(record);
    const identity = { executionId: record.id, agentId: record.agentId ?? '', agentName: record.agentName, pipelineExecutionId: null, source: record.source };
    return target ? new ExecutionLiveStream(redis, target, identity, record.outputSeq + 1) : null;
  }

  /** Live messages are best effort: the record holds the outcome. */
  const published = (promise: Promise<unknown> | undefined) =>
    promise?.catch((error: unknown) => logger.warn({ err: error }, 'live output not published'));

  return {
    /**
     * Whether the failed attempt is tried again: only for an agent with `retryOnFailure` that has
     * retries left (`maxRetries`, 1..3). Then the record becomes `retrying` (error: why, attempt: the
     * next one), the client hears `execution_retry`, and the workflow sleeps `delayMs` (attempt ×
     * AGENT_RETRY_DELAY_SECONDS). Null when the failure is final. Repeatable: a retried call finds the
     * record already `retrying` for this attempt and answers the same.
     */
    async planRetry(input: PlanRetryInput): Promise<{ delayMs: number } | null> {
      const record = await existingRecord(input.executionId);
      const agent = record.agentId ? await findAgent(db, record.agentId) : null;
      if (!agent?.retryOnFailure) return null;
      const maxRetries = clampRetries(agent.maxRetries);
      if (input.attempt > maxRetries) return null;
      const delayMs = input.attempt * retryDelayMs;
      const [result] = await db
        .update(executions)
        .set({ status: 'retrying', error: input.reason, attempt: input.attempt + 1 })
        .where(and(eq(executions.id, record.id), eq(executions.status, 'running')));
      if (result.affectedRows === 0 && !(record.status === 'retrying' && record.attempt === input.attempt + 1)) return null;
      await published(
        liveStreamOf(record)?.retry({ attempt: input.attempt, maxRetries, nextRetryIn: delayMs / 1000, reason: input.reason }),
      );
      return { delayMs };
    },

    /** After the delay: back to `queued`, so the next attempt waits for a concurrency slot like any run. */
    async requeueForRetry(executionId: string): Promise<void> {
      await db
        .update(executions)
        .set({ status: 'queued', waitingHeartbeatAt: null })
        .where(and(eq(executions.id, executionId), eq(executions.status, 'retrying')));
    },

    /**
     * Hands a completed run's result to the agent its agent delegates to, as a new execution of that
     * agent for the same audience (source `delegation`, `delegatedFrom` this record; the same client, or every
     * client when the chain began with a schedule or a webhook, whose id it keeps). Nothing when the
     * agent has no `delegateTo`, the result is empty, the target is gone or inactive, or the chain is
     * already AGENT_DELEGATION_DEPTH_MAX long (A → B → A stops there). Repeatable: a record that
     * already delegated does not delegate twice.
     */
    async delegateResult(executionId: string): Promise<{ executionId: string } | null> {
      const record = await existingRecord(executionId);
      const result = (record.result ?? '').trim();
      const agent = record.agentId ? await findAgent(db, record.agentId) : null;
      if (!agent?.delegateTo || result === '') return null;
      const live = liveStreamOf(record);
      if (record.delegationDepth >= delegationDepthMax) {
        await published(live?.output({ type: 'system', content: `Delegação para outro agente não feita: limite de ${delegationDepthMax} delegações em cadeia atingido` }));
        return null;
      }
      const [already] = await db.select({ id: executions.id }).from(executions).where(eq(executions.delegatedFrom, record.id)).limit(1);
      if (already) return { executionId: already.id };
      const target = await findAgent(db, agent.delegateTo);
      if (!target || target.status !== 'active') {
        await published(live?.output({ type: 'system', content: `Delegação não feita: o agente ${agent.delegateTo} não existe ou está inativo` }));
        return null;
      }
      await published(live?.output({ type: 'system', content: `Delegando para ${target.name}...` }));
      const settings = await readExecutionSettings(db, config.orchestration.workdirRoots);
      const launched = await launchExecution(
        { db, redis, temporal: deps.temporal, logger, workdirRoots: config.orchestration.workdirRoots },
        target,
        record.clientId,
        {
          source: 'delegation',
          task: result.slice(0, DELEGATED_TASK_MAX_CHARS),
          instructions: '',
          // The same project: the delegated agent continues where this one worked.
          workingDirectory: record.workingDirectory,
          model: target.model ?? settings.defaultModel,
          delegatedFrom: record.id,
          delegationDepth: record.delegationDepth + 1,
          // The origin's schedule or webhook: the delegated run reaches the same audience (lib/live-output.ts, liveTargetOf).
          scheduleId: record.scheduleId,
          webhookId: record.webhookId,
          // In a repository's working copy, under its rules: one run at a time, commit and push after (docs/repositories.md).
          repoName: record.repoName,
          repoBranch: record.repoBranch,
        },
      );
      return { executionId: launched.executionId };
    },
  };
}

export type FollowUpActivities = ReturnType<typeof createFollowUpActivities>;
