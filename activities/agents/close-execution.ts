import type Redis from 'ioredis';
import type { Database } from '../../db';
import { findAgent } from '../../db/agents-store';
import { finishExecution, setExecutionReportFile, type Execution } from '../../db/executions-store';
import { raiseNotification } from '../../db/notifications-store';
import { writeExecutionReport } from '../../db/reports-store';
import type { FinalStatus } from '../../domain/execution-status';
import { finalErrorOf } from '../../domain/run-messages';
import type { Config } from '../../lib/config';
import { CANCELED_LINE, type OutputChunk } from '../../lib/live-output';
import type { Logger } from '../../lib/logger';
import { liveStreamOf, publishBestEffort } from '../../services/executions/live';
import { countFinishedRun } from '../../services/executions/run-metrics';
import { warnNearBudgets } from '../../services/budgets';
import type { AgentRunOutcome } from './run-outcome';
import { executionGone, existingRecord } from './records';
import { recordLineOf } from './record-output';

/**
 * The close of an agent execution (workflows/agents/execution.ts; docs/agent-executions.md): end the
 * record and tell the client, write the report, raise the notification; as one activity
 * (closeExecution) or, for histories recorded before it, three.
 */

export interface CloseActivityDeps {
  db: Database;
  /** A normal (command) connection: the final messages are published on it. */
  redis: Redis;
  config: Pick<Config, 'orchestration'>;
  logger: Logger;
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
  /** The completed run's agent delegates its result: the workflow then hands it on (storeDelegatedRun and a child). */
  delegates: boolean;
}

/** The line a cancelled run's output ends with (contract 4.4's system style: not an error). */
const CANCELED_CHUNK: OutputChunk = { type: 'system', content: CANCELED_LINE };

export function createCloseActivities(deps: CloseActivityDeps) {
  const { db, redis, config, logger } = deps;
  const { dataDir, reportsDir } = config.orchestration;
  const streamOf = (record: Execution, firstSeq?: number) => liveStreamOf({ redis }, record, firstSeq);
  const publish = (promise: Promise<unknown> | undefined) => publishBestEffort({ logger }, promise);

  const activities = {
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
      if (!finished) throw executionGone(input.executionId);
      const { execution, changed } = finished;
      if (changed) {
        countFinishedRun(execution);
        const canceled = execution.status === 'canceled';
        // The closing line is stored as number outputSeq: the stream numbers it so, then goes on from there.
        const live = streamOf(execution, canceled ? execution.outputSeq : execution.outputSeq + 1);
        if (live && canceled) await publish(live.output(CANCELED_CHUNK));
        if (live && execution.status === 'completed') {
          // Never fails the activity: a retry would find the record ended (changed false) and send no final message.
          try {
            const reportFile = await writeExecutionReport(execution, { dataDir, reportsDir }, config.orchestration.limits.reports);
            await setExecutionReportFile(db, execution.id, reportFile);
            await publish(live.report(reportFile));
          } catch (error) {
            logger.warn(
              { err: error, executionId: execution.id },
              'report not written before the final message: the report step writes it',
            );
          }
        }
        await publish(
          live?.finished({
            status: execution.status,
            costUsd: execution.costUsd,
            durationMs: execution.durationMs,
            sessionId: execution.sessionId,
            error: finalErrorOf(execution.status, execution.error),
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
      return reportOf(await existingRecord(db, executionId));
    },

    async notifyFinished(executionId: string): Promise<void> {
      await notify(await existingRecord(db, executionId));
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
    await raiseNotification(
      db,
      {
        kind: `execution.${record.status}`,
        title,
        message: `${record.agentName}: ${record.status === 'error' ? (record.error ?? '') : record.task}`,
        executionId: record.id,
      },
      config.orchestration.limits.notifications,
    );
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
      const record = await existingRecord(db, input.executionId);
      await reportOf(record);
      const [, delegates] = await Promise.all([
        notify(record),
        stored.status === 'completed' ? delegatesResult(record) : false,
        warnBudgets(record),
      ]);
      return { ...stored, delegates };
    },
  };

  /** A run that cost something may take a budget past 80 %: its warning, once a day (docs/budgets.md). Never the close's failure. */
  async function warnBudgets(record: Execution): Promise<void> {
    if (record.kind !== 'agent' || !record.agentId || !(Number(record.costUsd) > 0)) return;
    try {
      const agent = await findAgent(db, record.agentId);
      const notificationsKept = config.orchestration.limits.notifications;
      if (agent) await warnNearBudgets({ db, workdirRoots: config.orchestration.workdirRoots, notificationsKept }, agent);
    } catch (error) {
      logger.warn({ err: error, executionId: record.id }, 'budget warning not checked');
    }
  }

  /** The agent of a completed record delegates (the delegation step has something to do, or to say). */
  async function delegatesResult(record: Execution): Promise<boolean> {
    if ((record.result ?? '').trim() === '' || !record.agentId) return false;
    const agent = await findAgent(db, record.agentId);
    return Boolean(agent?.delegateTo);
  }
}
