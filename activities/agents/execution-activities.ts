import { ApplicationFailure, Context, heartbeat, sleep } from '@temporalio/activity';
import type Redis from 'ioredis';
import type { Pool } from 'mysql2/promise';
import type { Database } from '../../db';
import { agentSecretsForRun } from '../../db/agent-secrets-store';
import { findAgent } from '../../db/agents-store';
import { agentHostDrains } from '../../db/agent-hosts-store';
import { pinExecutionHost } from '../../db/execution-hosts';
import { readExecutionSettings } from '../../db/execution-settings';
import { tryTakeExecutionSlot } from '../../db/execution-slots';
import { recordAttemptCost } from '../../db/execution-attempts';
import { agentTimeoutOfExecution, claimAgentStart, type Execution } from '../../db/executions-store';
import { untilDatabaseAnswers } from '../../db/mysql-errors';
import { AGENT_ALREADY_STARTED_FAILURE, WORKER_LOST_ERROR } from '../../domain/execution-errors';
import { FAILURE_TYPES } from '../../domain/failure-types';
import type { PriceTable } from '../../domain/model-prices';
import { runTimeLimitMs } from '../../domain/run-limits';
import { agentGoneError, noLiveHostError, recordWithoutAgentError } from '../../domain/run-messages';
import type { Config } from '../../lib/config';
import type { Logger } from '../../lib/logger';
import { liveStreamOf, publishBestEffort } from '../../services/executions/live';
import { countSlotWait, countStartedRun } from '../../services/executions/run-metrics';
import { repositoryWorkspace } from '../repos/workspace';
import { agentCliRun } from './agent-clis';
import { refuseOtherHost } from './agent-hosts';
import { sessionStoreIn } from './agent-sessions';
import { createCloseActivities } from './close-execution';
import { existingRecord } from './records';
import { executionOutput, type ExecutionOutput } from './execution-output';
import { AgentCancelledError, AgentProcessError, runAgent, type AgentRunSummary } from './run-agent';
import { runFailureOf, secretsFailureOf, shuttingDown } from './run-failures';
import { startRunHeartbeat } from './run-heartbeat';
import { agentRunConfigOf, composePrompt } from './run-options';
import { pricedRun, UNPRICED_LINE } from './run-cost';
import { outcomeOf, type AgentRunOutcome } from './run-outcome';

/**
 * The activities of an agent execution (workflows/agents/execution.ts; docs/agent-executions.md):
 * wait for a concurrency slot, run the agent process with live output, then finish the record,
 * write the report and raise the notification.
 */

export interface AgentExecutionActivityDeps {
  pool: Pool;
  db: Database;
  /** A normal (command) connection: live output is published on it. */
  redis: Redis;
  config: Pick<Config, 'orchestration'>;
  logger: Logger;
  /** The prices of the runs whose CLI reports no cost: the shipped table with MODEL_PRICES_FILE's entries over it (run-cost.ts). */
  prices: PriceTable;
  /**
   * Aborted when the agents worker's drain is over (workers/agents.ts): a run still going then stops
   * as at a worker's shutdown, with the worker-stopped error. Until then a stopping worker's runs go on.
   */
  stopRuns?: AbortSignal;
}

export interface RunAgentExecutionInput {
  executionId: string;
  /** `--resume` this session (a `continue` execution). */
  resumeSessionId?: string | null;
  /** The run's time limit from its slot's grant; absent (a run scheduled before limits): the agent's, computed here. */
  timeLimitMs?: number;
}

/** What waitForSlot grants: the agents host the record is pinned to, and the run's time limit. */
export interface RunGrant {
  host: string;
  timeLimitMs: number;
}

/**
 * How often a waiter looks for its slot: every 250 ms while fewer than `limit` waiters are ahead of
 * it (a slot may be handed to it any moment), less often further back (a burst of hundreds must not
 * poll the database thousands of times a second), and never less often than every 2 s, well within
 * the liveness window of db/execution-slots.ts (STALE_WAITER_MS).
 */
const SLOT_POLL_MS = 250;
const SLOT_POLL_MAX_MS = 2_000;
const slotPollDelay = (ahead: number, limit: number) => Math.min(SLOT_POLL_MS * (1 + Math.max(0, ahead - limit)), SLOT_POLL_MAX_MS);

/**
 * How often a granted run looks whether its draining host has come back. The draining worker would take
 * the run and hold its drain up with it, or stop it at the drain's end (docs/probes-and-drains.md).
 */
const HOST_DRAIN_POLL_MS = 1_000;

/** A waiter's pause, heartbeating: a worker shutting down hands the wait to another worker (retried); a cancel is rethrown. */
async function pause(context: Context, ms: number): Promise<void> {
  heartbeat();
  try {
    await sleep(ms); // rejects with CancelledFailure when cancelled
  } catch (error) {
    if (shuttingDown(context))
      throw ApplicationFailure.retryable('the worker shut down while waiting for a slot', FAILURE_TYPES.workerShutdown);
    throw error;
  }
}

/**
 * How long a run's preparation waits for its database to answer again (a restart takes seconds). The
 * run activity has one attempt, so a read refused before the agent starts would fail a run that never
 * ran (found by the fault suite, docs/reliability.md).
 */
export const RUN_PREPARATION_PATIENCE_MS = 120_000;

/** `read` made again every second while the database restarts; a cancel of the run ends the wait (context.sleep rejects). */
const whileDatabaseRestarts = <T>(context: Context, read: () => Promise<T>): Promise<T> =>
  untilDatabaseAnswers(read, { patienceMs: RUN_PREPARATION_PATIENCE_MS, sleep: (ms) => context.sleep(ms) });

/**
 * What a failed attempt's agent spent, kept on its record's attempt (db/execution-attempts.ts): a retry
 * (planRetry) then counts it in the record's cost and the day's, as the close does for the last attempt
 * (docs/executions.md, "Attempts"). Waits out a database restart; a cost that still cannot be written
 * is logged, and the run's failure goes on to the workflow.
 */
async function keepAttemptCost(
  deps: Pick<AgentExecutionActivityDeps, 'db' | 'logger'>,
  context: Context,
  record: Execution,
  costUsd: number | null,
): Promise<void> {
  if (costUsd === null) return;
  try {
    await whileDatabaseRestarts(context, () => recordAttemptCost(deps.db, record.id, record.attempt, costUsd));
  } catch (error) {
    deps.logger.warn({ err: error, executionId: record.id, attempt: record.attempt, costUsd }, "the failed attempt's cost not kept");
  }
}

export function createAgentExecutionActivities(deps: AgentExecutionActivityDeps) {
  const { pool, db, redis, config, logger, prices, stopRuns } = deps;
  const { dataDir } = config.orchestration;

  async function pinnedHost(executionId: string): Promise<string> {
    const pinned = await pinExecutionHost(pool, executionId);
    if (pinned.host !== null) return pinned.host;
    const record = await existingRecord(db, executionId);
    throw ApplicationFailure.nonRetryable(noLiveHostError(record.workingDirectory, pinned.hosts), FAILURE_TYPES.noAgentHost);
  }

  const timeLimitOf = async (executionId: string): Promise<number> =>
    runTimeLimitMs(await agentTimeoutOfExecution(db, executionId), config.orchestration.runTimeoutMs);

  async function grant(executionId: string): Promise<RunGrant> {
    const [host, timeLimitMs] = await Promise.all([pinnedHost(executionId), timeLimitOf(executionId)]);
    return { host, timeLimitMs };
  }

  const streamOf = (record: Execution, firstSeq?: number) => liveStreamOf({ redis }, record, firstSeq);

  /** Claims the attempt's agent start, just before the spawn: an earlier delivery whose worker died before its heartbeat said so may have started it. */
  async function claimStart(context: Context, record: Execution): Promise<void> {
    const claimed = await whileDatabaseRestarts(context, () => claimAgentStart(db, record.id, record.attempt));
    if (!claimed) throw ApplicationFailure.create({ message: WORKER_LOST_ERROR, type: AGENT_ALREADY_STARTED_FAILURE, nonRetryable: true });
  }
  const publish = (promise: Promise<unknown> | undefined) => publishBestEffort({ logger }, promise);

  const activities = {
    /**
     * Waits, heartbeating, until the record may run (queued -> running, FIFO, within the limit), then
     * pins it to an agents host and grants it that host (docs/multi-host.md) and its time limit (the
     * workflow bounds the run activity with it: docs/agents.md, "Time limit"). Returns false when
     * the record is already finished (cancelled before it started). No live host holding its
     * working directory fails the run (NoAgentHost).
     */
    waitForSlot: async (executionId: string): Promise<RunGrant | false> => {
      const context = Context.current();
      for (;;) {
        const { maxConcurrentExecutions } = await readExecutionSettings(db, config.orchestration.workdirRoots);
        const attempt = await tryTakeExecutionSlot(pool, executionId, maxConcurrentExecutions);
        if (attempt.outcome === 'taken') {
          const [granted, record] = await Promise.all([grant(executionId), existingRecord(db, executionId)]);
          // Granted a host that drains (the only one holding its directory): its agent starts on the host's next worker.
          while (await agentHostDrains(pool, granted.host)) await pause(context, HOST_DRAIN_POLL_MS);
          countSlotWait(record);
          return granted;
        }
        if (attempt.outcome === 'gone') return false;
        await pause(context, slotPollDelay(attempt.ahead, maxConcurrentExecutions));
      }
    },

    /**
     * Runs the agent for a `running` record: its secrets in the environment, each assistant message
     * published live to the requesting client and appended to the record (every OUTPUT_FLUSH_MS, with
     * its `seq`; what the database refuses is kept and tried again), heartbeats on a timer.
     * Cancellation kills the process group and rethrows; so does the time limit, counted from the
     * agent's process start, which fails the run with AgentTimeout.
     */
    runAgentExecution: async (input: RunAgentExecutionInput): Promise<AgentRunOutcome> => {
      const context = Context.current();
      // The SDK's cancellation (the workflow's cancel, the worker's shutdown), or the end of the drain.
      const signal = stopRuns ? AbortSignal.any([context.cancellationSignal, stopRuns]) : context.cancellationSignal;
      let output: ExecutionOutput | undefined;
      // Alive from the first instant (run-heartbeat.ts), with the output's progress once the agent started.
      const heartbeat = startRunHeartbeat(() => output?.seq ?? 0);
      try {
        // Nothing has run yet: while the database restarts, the reads are made again rather than the run failed.
        const { record, agent, secrets } = await whileDatabaseRestarts(context, async () => {
          const record = await existingRecord(db, input.executionId);
          refuseOtherHost(record.host, config.orchestration.host, `execution ${record.id}`);
          if (!record.agentId) throw ApplicationFailure.nonRetryable(recordWithoutAgentError(record.id), FAILURE_TYPES.agentNotFound);
          const agent = await findAgent(db, record.agentId);
          if (!agent) throw ApplicationFailure.nonRetryable(agentGoneError(record.agentId), FAILURE_TYPES.agentNotFound);
          const secrets = await agentSecretsForRun(pool, agent.id, config.orchestration.secretsKey).catch((error: unknown) => {
            throw secretsFailureOf(error);
          });
          return { record, agent, secrets };
        });
        countStartedRun(record);
        const live = streamOf(record);
        await publish(live?.started());
        // A delivery after a lost one goes on from what the lost one stored (its preparation's lines).
        const sink = executionOutput(
          { db, logger, publish: (chunk) => publish(live?.output(chunk)), cancelled: context.cancellationSignal },
          record,
        );
        output = sink;
        // The CLI the record was made for (its agent's when it was created): a queued run keeps it.
        const { cli, command } = agentCliRun(record.cli ?? agent.cli, config.orchestration);
        // A CLI that reports no cost (Codex CLI, Gemini CLI): the run priced from its tokens (lib/model-prices.json,
        // MODEL_PRICES_FILE), a failed run's too (its tokens were spent: the budgets count them).
        const price = async (summary: AgentRunSummary): Promise<void> => {
          const priced = pricedRun(summary, record.model, prices);
          if (priced.unpriced !== null) {
            logger.warn({ executionId: record.id, model: priced.unpriced }, 'no price known for the model: the run counts 0 USD');
            await sink.show({ type: 'stderr', content: `${UNPRICED_LINE} (${priced.unpriced})` });
          }
          summary.costUsd = priced.costUsd;
        };

        try {
          const summary = await runAgent({
            command,
            cli,
            run: {
              prompt: composePrompt(record),
              // '' (a Codex or Gemini agent without a model): the CLI's own default.
              ...(record.model !== '' ? { model: record.model } : {}),
              ...agentRunConfigOf(agent, cli),
              ...(input.resumeSessionId ? { resumeSessionId: input.resumeSessionId } : {}),
            },
            cwd: record.workingDirectory,
            workdirRoots: config.orchestration.workdirRoots,
            sessions: { store: sessionStoreIn(dataDir), agentId: agent.id },
            secrets,
            modelSecrets: config.orchestration.agentModelSecrets,
            runEnv: { AGENT_EXECUTION_ID: record.id, AGENT_EXECUTION_ATTEMPT: String(record.attempt) },
            signal,
            beforeSpawn: () => claimStart(context, record),
            onSpawn: () => heartbeat.spawned(),
            timeLimitMs: input.timeLimitMs ?? (await whileDatabaseRestarts(context, () => timeLimitOf(record.id))),
            // The terminal's lines (contract 4.4): published live and kept in the record, one line each.
            onOutput: (chunk) => sink.show(chunk),
            // A run in a repository: its working copy before the agent, commit and push after (docs/repositories.md).
            workspace: repositoryWorkspace(
              { db, config: config.orchestration.repositories, announce: (content) => sink.show({ type: 'success', content }) },
              record,
            ),
          });
          await price(summary);
          await sink.settle();
          return outcomeOf(summary);
        } catch (error) {
          if (error instanceof AgentProcessError || error instanceof AgentCancelledError) {
            await price(error.summary);
            await keepAttemptCost(deps, context, record, error.summary.costUsd);
          }
          await sink.settle();
          throw runFailureOf(error, context, stopRuns?.aborted === true);
        }
      } finally {
        output?.stop();
        heartbeat.stop();
      }
    },
  };

  return { ...activities, ...createCloseActivities(deps) };
}

export type AgentExecutionActivities = ReturnType<typeof createAgentExecutionActivities>;
