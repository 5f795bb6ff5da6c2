import { ApplicationFailure, CancelledFailure, Context, heartbeat, sleep } from '@temporalio/activity';
import type Redis from 'ioredis';
import type { Pool } from 'mysql2/promise';
import { agentSecretsForRun } from '../../db/agent-secrets-store';
import { findAgent, type Agent } from '../../db/agents-store';
import { readExecutionSettings } from '../../db/execution-settings';
import { pinExecutionHost } from '../../db/execution-hosts';
import { tryTakeExecutionSlot } from '../../db/execution-slots';
import { appendOutputPiece, finishExecution, getExecution, OUTPUT_MAX_CHARS, setExecutionReportFile, type Execution } from '../../db/executions-store';
import type { FinalStatus } from '../../domain/execution-status';
import type { Database } from '../../db';
import { raiseNotification } from '../../db/notifications-store';
import type { Config } from '../../lib/config';
import { CANCELED_LINE, ExecutionLiveStream, liveTargetOf, type ExecutionIdentity, type OutputChunk } from '../../lib/live-output';
import type { Logger } from '../../lib/logger';
import { NO_GIT_INSTRUCTION, repositoryWorkspace } from '../repos/workspace';
import { DEFAULT_PERMISSION_MODE, PERMISSION_MODES, type AgentRunOptions, type AgentTokens, type PermissionMode } from './agent-cli';
import { agentCliFor } from './agent-clis';
import { noHostMessage, refuseOtherHost } from './agent-hosts';
import { sessionStoreIn } from './agent-sessions';
import { WORKER_STOPPED_ERROR } from '../../domain/execution-errors';
import { RecordOutput, recordLineOf } from './record-output';
import { writeExecutionReport } from '../../db/reports-store';
import { AgentCancelledError, AgentProcessError, runAgent, type AgentRunSummary } from './run-agent';

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
}

/** What the run gives the workflow (and the record). */
export interface AgentRunOutcome {
  sessionId: string | null;
  costUsd: number | null;
  durationMs: number | null;
  turns: number | null;
  /** The answer: the CLI's `result` text, else the assistant's text (contract 7.4). */
  result: string | null;
  /** The process's exit code, when it exited. */
  exitCode: number | null;
  /** The end of the agent's standard error (the final message's `data.stderr`); absent from older histories. */
  stderr?: string;
  /** Tokens the CLI's result reported (docs/statistics.md); null: none; absent from older histories. */
  tokens?: AgentTokens | null;
}

export interface RunAgentExecutionInput {
  executionId: string;
  /** `--resume` this session (a `continue` execution). */
  resumeSessionId?: string | null;
}

export interface FinishExecutionInput extends Partial<AgentRunOutcome> {
  executionId: string;
  status: FinalStatus;
  error: string | null;
}

export interface ClosedExecution {
  status: FinalStatus;
  error: string | null;
  changed: boolean;
  /** The completed run's agent delegates its result: the workflow runs delegateResult. */
  delegates: boolean;
}

/** How often output is written to the record, and how often a silent agent is still reported alive. */
export const OUTPUT_FLUSH_MS = 250;
/** After the run, how long output the database refused is tried again (every OUTPUT_RETRY_MS) before it is given up. */
const OUTPUT_STORE_PATIENCE_MS = 60_000;
const OUTPUT_RETRY_MS = 1_000;
const HEARTBEAT_EVERY_MS = 1_000;
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
 * The prompt on the CLI's stdin: the task, then (when the run has additional instructions) a blank
 * line, `Instruções adicionais:` and the instructions, as the legacy server wrote it (contract 4.4).
 * The agent's own instructions are its system prompt, not part of this.
 */
export function composePrompt(record: Pick<Execution, 'task' | 'instructions'> & Partial<Pick<Execution, 'repoName'>>): string {
  const instructions = record.instructions.trim();
  const prompt = instructions === '' ? record.task : `${record.task}\n\nInstruções adicionais:\n${instructions}`;
  // In a repository the service commits and pushes: the agent is told to leave git alone (docs/repositories.md).
  return record.repoName ? `${prompt}\n\n${NO_GIT_INSTRUCTION}` : prompt;
}

function identityOf(record: Execution): ExecutionIdentity {
  return {
    executionId: record.id,
    agentId: record.agentId ?? '',
    agentName: record.agentName,
    pipelineExecutionId: record.pipelineExecutionId,
    source: record.source,
    // A pipeline step: its output becomes pipeline_step_output (docs/pipelines.md).
    ...(record.pipelineExecutionId && record.pipelineId ? { pipelineStep: { pipelineId: record.pipelineId, stepIndex: record.stepIndex ?? 0 } } : {}),
  };
}

function permissionModeOf(value: string): PermissionMode {
  return (PERMISSION_MODES as readonly string[]).includes(value) ? (value as PermissionMode) : DEFAULT_PERMISSION_MODE;
}

/**
 * The agent's config as run options (docs/agents.md, "At run time"): its system prompt (none when
 * empty), allowed tools (comma-separated, blanks dropped), turn limit (0: none) and permission mode
 * ('' and unknown values: bypassPermissions). The execution's own `instructions` go into the prompt.
 */
export function agentRunConfigOf(
  agent: Pick<Agent, 'instructions' | 'allowedTools' | 'maxTurns' | 'permissionMode'>,
): Pick<AgentRunOptions, 'systemPrompt' | 'allowedTools' | 'maxTurns' | 'permissionMode'> {
  const allowedTools = agent.allowedTools.split(',').map((tool) => tool.trim()).filter((tool) => tool !== '');
  return {
    maxTurns: agent.maxTurns,
    permissionMode: permissionModeOf(agent.permissionMode),
    ...(agent.instructions.trim() !== '' ? { systemPrompt: agent.instructions } : {}),
    ...(allowedTools.length > 0 ? { allowedTools } : {}),
  };
}

/** The activity was cancelled because its worker is shutting down (not by the workflow). */
function shuttingDown(context: Context): boolean {
  return context.cancellationDetails?.workerShutdown === true;
}

function outcomeOf(summary: AgentRunSummary): AgentRunOutcome {
  const text = summary.output.trim() === '' ? null : summary.output;
  return {
    sessionId: summary.sessionId,
    costUsd: summary.costUsd,
    durationMs: summary.durationMs,
    turns: summary.turns,
    result: summary.resultText ?? text,
    exitCode: summary.exitCode,
    stderr: summary.stderr,
    tokens: summary.tokens,
  };
}

/** The line a cancelled run's output ends with (contract 4.4's system style: not an error). */
const CANCELED_CHUNK: OutputChunk = { type: 'system', content: CANCELED_LINE };

/** What a failed run throws to the workflow: a user's cancel, a worker's shutdown, or the agent's failure with what it reported. */
function runFailureOf(error: unknown, context: Context): unknown {
  if (error instanceof AgentCancelledError) {
    // The worker's own shutdown killed the agent: a failure of the run, not the user's cancel.
    if (shuttingDown(context)) {
      return ApplicationFailure.create({ message: WORKER_STOPPED_ERROR, type: 'WorkerShutdown', nonRetryable: true, details: [outcomeOf(error.summary)] });
    }
    return error.cause instanceof CancelledFailure ? error.cause : new CancelledFailure('agent run cancelled');
  }
  if (error instanceof AgentProcessError) {
    return ApplicationFailure.create({ message: error.message, type: 'AgentProcessError', nonRetryable: true, details: [outcomeOf(error.summary)] });
  }
  return error;
}

export function createAgentExecutionActivities(deps: AgentExecutionActivityDeps) {
  const { pool, db, redis, config, logger } = deps;
  const { dataDir, reportsDir } = config.orchestration;

  async function existingRecord(executionId: string): Promise<Execution> {
    const record = await getExecution(db, executionId);
    if (!record) throw ApplicationFailure.nonRetryable(`execution ${executionId} not found`, 'ExecutionNotFound');
    return record;
  }

  async function pinnedHost(executionId: string): Promise<string> {
    const pinned = await pinExecutionHost(pool, executionId);
    if (pinned.host !== null) return pinned.host;
    const record = await existingRecord(executionId);
    throw ApplicationFailure.nonRetryable(noHostMessage(record.workingDirectory, pinned.hosts), 'NoAgentHost');
  }

  /** The live stream of a record, or null when nobody is to be told (no client id, not a schedule). */
  function liveStreamOf(record: Execution, firstSeq = 1): ExecutionLiveStream | null {
    const target = liveTargetOf(record);
    return target ? new ExecutionLiveStream(redis, target, identityOf(record), firstSeq) : null;
  }

  /** Live output is best effort: a Redis outage must not fail an agent run (the record keeps the output). */
  const published = (promise: Promise<unknown> | undefined) =>
    promise?.catch((error: unknown) => logger.warn({ err: error }, 'live output not published'));

  const activities = {
    /**
     * Waits, heartbeating, until the record may run (queued -> running, FIFO, within the limit), then
     * pins it to an agents host and returns that host's name (docs/multi-host.md). Returns false when
     * the record is already finished (cancelled before it started). No live host holding its
     * working directory fails the run (NoAgentHost).
     */
    async waitForSlot(executionId: string): Promise<string | false> {
      const context = Context.current();
      for (;;) {
        const { maxConcurrentExecutions } = await readExecutionSettings(db, config.orchestration.workdirRoots);
        const attempt = await tryTakeExecutionSlot(pool, executionId, maxConcurrentExecutions);
        if (attempt.outcome === 'taken') return pinnedHost(executionId);
        if (attempt.outcome === 'gone') return false;
        heartbeat();
        try {
          await sleep(slotPollDelay(attempt.ahead, maxConcurrentExecutions)); // rejects with CancelledFailure when cancelled
        } catch (error) {
          // A worker shutting down hands the wait to another worker (retried); a cancel is rethrown.
          if (shuttingDown(context)) throw ApplicationFailure.retryable('the worker shut down while waiting for a slot', 'WorkerShutdown');
          throw error;
        }
      }
    },

    /**
     * Runs the agent for a `running` record: its secrets in the environment, each assistant message
     * published live to the requesting client and appended to the record (every OUTPUT_FLUSH_MS, with
     * its `seq`; what the database refuses is kept and tried again), heartbeats on a timer.
     * Cancellation kills the process group and rethrows.
     */
    async runAgentExecution(input: RunAgentExecutionInput): Promise<AgentRunOutcome> {
      const context = Context.current();
      // Alive from the first instant, before any query: an attempt that timed out without one heartbeat
      // is a task lost on its way here, and the workflow schedules it again (workflows/agents/execution.ts).
      let seq = 0;
      heartbeat({ seq });
      const heartbeatTimer = setInterval(() => heartbeat({ seq }), HEARTBEAT_EVERY_MS);
      let flushTimer: NodeJS.Timeout | undefined;
      try {
        const record = await existingRecord(input.executionId);
        refuseOtherHost(record.host, config.orchestration.host, `execution ${record.id}`);
        if (!record.agentId) throw ApplicationFailure.nonRetryable(`execution ${record.id} has no agent`, 'AgentNotFound');
        const agent = await findAgent(db, record.agentId);
        if (!agent) throw ApplicationFailure.nonRetryable(`agent ${record.agentId} no longer exists`, 'AgentNotFound');
        const secrets = await agentSecretsForRun(pool, agent.id, config.orchestration.secretsKey);
        const live = liveStreamOf(record);
        await published(live?.started());

        let lastRefusalLogged = 0;
        const output = new RecordOutput(
          (piece) => appendOutputPiece(db, record.id, piece),
          (error, unsavedChars) => {
            if (Date.now() - lastRefusalLogged < OUTPUT_RETRY_MS * 10) return;
            lastRefusalLogged = Date.now();
            logger.warn({ err: error, executionId: record.id, unsavedChars }, 'execution output not stored yet: kept for the next write');
          },
          OUTPUT_MAX_CHARS,
        );
        // The run goes on while the database refuses its output; what it refused is tried again here.
        const settleOutput = async (): Promise<void> => {
          await output.flush();
          const deadline = Date.now() + OUTPUT_STORE_PATIENCE_MS;
          while (!output.settled && Date.now() < deadline && !context.cancellationSignal.aborted) {
            await new Promise((resolve) => setTimeout(resolve, OUTPUT_RETRY_MS));
            await output.flush();
          }
          if (!output.settled) logger.error({ executionId: record.id, lostChars: output.unsavedLength }, 'execution output not stored');
        };
        const showLine = async (chunk: OutputChunk): Promise<void> => {
          seq += 1;
          output.add(recordLineOf(chunk), seq);
          await published(live?.output(chunk));
        };
        flushTimer = setInterval(() => void output.flush(), OUTPUT_FLUSH_MS);

        try {
          const summary = await runAgent({
            command: config.orchestration.agentCommand,
            cli: agentCliFor(config.orchestration.agentCommand),
            run: {
              prompt: composePrompt(record),
              model: record.model,
              ...agentRunConfigOf(agent),
              ...(input.resumeSessionId ? { resumeSessionId: input.resumeSessionId } : {}),
            },
            cwd: record.workingDirectory,
            workdirRoots: config.orchestration.workdirRoots,
            sessions: { store: sessionStoreIn(dataDir), agentId: agent.id },
            secrets,
            signal: context.cancellationSignal,
            // The terminal's lines (contract 4.4): published live and kept in the record, one line each.
            onOutput: showLine,
            // A run in a repository: its working copy before the agent, commit and push after (docs/repositories.md).
            workspace: repositoryWorkspace(
              { db, config: config.orchestration.repositories, announce: (content) => showLine({ type: 'success', content }) },
              record,
            ),
          });
          await settleOutput();
          return outcomeOf(summary);
        } catch (error) {
          await settleOutput();
          throw runFailureOf(error, context);
        }
      } finally {
        clearInterval(flushTimer);
        clearInterval(heartbeatTimer);
      }
    },

    /**
     * Ends the record (first call only) and tells the client: for a completed run, its report first
     * (`report_generated`, contract 4.5; the writeReport activity after this then has nothing to do),
     * then the final message. Idempotent.
     */
    async finishExecutionRecord(input: FinishExecutionInput): Promise<{ status: FinalStatus; error: string | null; changed: boolean }> {
      const finished = await finishExecution(db, input.executionId, {
        status: input.status,
        error: input.error,
        sessionId: input.sessionId ?? null,
        ...(input.costUsd !== undefined ? { costUsd: input.costUsd } : {}),
        ...(input.durationMs !== undefined ? { durationMs: input.durationMs } : {}),
        ...(input.turns !== undefined ? { turns: input.turns } : {}),
        ...(input.result !== undefined ? { result: input.result } : {}),
        ...(input.exitCode !== undefined ? { exitCode: input.exitCode } : {}),
        ...(input.tokens ? { tokens: input.tokens } : {}),
        // A stop the user asked for ends with a line that says so, stored and sent like the others.
        ...(input.status === 'canceled' ? { closingLine: recordLineOf(CANCELED_CHUNK) } : {}),
      });
      if (!finished) throw ApplicationFailure.nonRetryable(`execution ${input.executionId} not found`, 'ExecutionNotFound');
      const { execution, changed } = finished;
      if (changed) {
        const canceled = execution.status === 'canceled';
        // The closing line is stored as number outputSeq: the stream numbers it so, then goes on from there.
        const live = liveStreamOf(execution, canceled ? execution.outputSeq : execution.outputSeq + 1);
        if (live && canceled) await published(live.output(CANCELED_CHUNK));
        if (live && execution.status === 'completed') {
          // Never fails the activity: a retry would find the record ended (changed false) and send no final message.
          try {
            const reportFile = await writeExecutionReport(execution, { dataDir, reportsDir }, config.orchestration.limits.reports);
            await setExecutionReportFile(db, execution.id, reportFile);
            await published(live.report(reportFile));
          } catch (error) {
            logger.warn({ err: error, executionId: execution.id }, 'report not written before the final message: the report step writes it');
          }
        }
        await published(
          live?.finished({
            status: execution.status,
            costUsd: execution.costUsd,
            durationMs: execution.durationMs,
            sessionId: execution.sessionId,
            error: execution.error,
            result: execution.result,
            exitCode: execution.exitCode,
            stderr: input.stderr ?? null,
            turns: execution.turns,
          }),
        );
      }
      return { status: execution.status as FinalStatus, error: execution.error, changed };
    },

    /**
     * Writes the Markdown report in both directories and records its name. Repeatable. A finished
     * record that has its report already (written by finishExecutionRecord from the same final
     * record) is left as it is.
     */
    async writeReport(executionId: string): Promise<string> {
      return reportOf(await existingRecord(executionId));
    },

    async notifyFinished(executionId: string): Promise<void> {
      await notify(await existingRecord(executionId));
    },
  };

  /** The finished record's report: the one it has, else written now. */
  async function reportOf(record: Execution): Promise<string> {
    if (record.finishedAt !== null && record.reportFile !== null) return record.reportFile;
    const name = await writeExecutionReport(record, { dataDir, reportsDir }, config.orchestration.limits.reports);
    await setExecutionReportFile(db, record.id, name);
    return name;
  }

  /**
   * The notification of a finished run (contract 3.10): agent runs only, "Execução concluída" when it
   * completed and "Execução falhou" on its final error (a failed attempt retried raises none). A
   * continuation, a pipeline's step and a cancel the user asked for raise none; a delegated run is an
   * agent run and raises its own (docs/reports-notifications-settings.md).
   */
  async function notify(record: Execution): Promise<void> {
    if (record.kind !== 'agent' || record.pipelineExecutionId !== null || record.source === 'continue') return;
    const title = ({ completed: 'Execução concluída', error: 'Execução falhou' } as Record<string, string>)[record.status];
    if (title === undefined) return;
    await raiseNotification(db, {
      kind: `execution.${record.status}`,
      title,
      message: `${record.agentName}: ${record.status === 'error' ? (record.error ?? '') : record.task}`,
      executionId: record.id,
    }, config.orchestration.limits.notifications);
  }

  return {
    ...activities,

    /**
     * finishExecutionRecord, writeReport and notifyFinished as one activity (each part idempotent, so
     * the whole is): the workflow's close costs one activity round trip instead of three. Says whether
     * the completed run has a delegation to hand over, so the workflow skips that activity otherwise.
     */
    async closeExecution(input: FinishExecutionInput): Promise<ClosedExecution> {
      const stored = await activities.finishExecutionRecord(input);
      // Read once, as finished (with the report file the final message may have written already).
      const record = await existingRecord(input.executionId);
      await reportOf(record);
      const [, delegates] = await Promise.all([notify(record), stored.status === 'completed' ? delegatesResult(record) : false]);
      return { ...stored, delegates };
    },
  };

  /** The agent of a completed record delegates (followUps' delegateResult has something to do, or to say). */
  async function delegatesResult(record: Execution): Promise<boolean> {
    if ((record.result ?? '').trim() === '' || !record.agentId) return false;
    const agent = await findAgent(db, record.agentId);
    return Boolean(agent?.delegateTo);
  }
}

export type AgentExecutionActivities = ReturnType<typeof createAgentExecutionActivities>;
