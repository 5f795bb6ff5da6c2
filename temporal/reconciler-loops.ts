import {
  ScheduleNotFoundError,
  WorkflowIdConflictPolicy,
  WorkflowNotFoundError,
  type Client,
  type WorkflowStartOptions,
} from '@temporalio/client';
import type { Logger } from '../lib/logger';
import { reconcilerSettingsSignal, type ReconcilerLoopInput } from './contracts/reconciler-loop';
import { TASK_QUEUES, type TaskQueueName } from './task-queues';

/**
 * The reconcilers (docs/agent-executions.md, "Reconciler"; docs/ranking-job.md): one long-lived
 * workflow each, under a fixed workflow id, that runs a pass every RECONCILE_INTERVAL_SECONDS with a
 * timer and continues as new about every hour (workflows/reconciler-loop.ts). Decision: rather than
 * the Schedules of the previous version, which started a workflow per pass (about 2 900 a day in the
 * Web UI's list for an idle service), the list gains one run per reconciler per hour, passes still
 * never overlap and run once per interval however many workers there are.
 *
 * Every worker of the queue, at start: deletes the previous version's Schedule if it exists, then
 * signals-with-start the loop (started if it is not running; its interval sent if it is, so a changed
 * RECONCILE_INTERVAL_SECONDS reaches it; Temporal makes two workers starting at once start one loop).
 * Then, while the worker runs, it checks every interval that the loop is running and starts it again
 * when it is not (terminated or cancelled from the Web UI): at most one pass is missed.
 */
export interface ReconcilerLoop {
  workflowId: string;
  workflowType: string;
  taskQueue: TaskQueueName;
  /** What a pass does, as the static summary says it. */
  what: string;
  /** The previous version's Schedule of this reconciler, deleted at start: an upgrade leaves none firing every minute. */
  legacyScheduleId: string;
  docs: string;
}

export const RECONCILER_LOOPS = {
  executions: {
    workflowId: 'agent-executions-reconciler',
    workflowType: 'reconcileExecutionsLoopWorkflow',
    taskQueue: TASK_QUEUES.agents,
    what: 'ends agent executions whose workflow is gone',
    legacyScheduleId: 'agent-executions-reconciler',
    docs: 'docs/agent-executions.md, "Reconciler"',
  },
  rankingRuns: {
    workflowId: 'ranking-runs-reconciler',
    workflowType: 'reconcileRankingRunsLoopWorkflow',
    taskQueue: TASK_QUEUES.ranking,
    what: 'records ranking runs whose workflow is gone as interrupted',
    legacyScheduleId: 'ranking-runs-reconciler',
    docs: 'docs/ranking-job.md, "Failures and restarts"',
  },
} as const satisfies Record<string, ReconcilerLoop>;

/** The workflow types the previous version's Schedules started, one per pass (still registered for a pass in flight at an upgrade). */
export const LEGACY_RECONCILER_WORKFLOW_TYPES = ['reconcileExecutionsWorkflow', 'reconcileRankingRunsWorkflow'] as const;

/** Id, queue and what the Web UI shows of a loop: its static summary and details (the first run of each start; see the workflow for continued runs). */
export function reconcilerLoopStartOptions(loop: ReconcilerLoop, intervalSeconds: number) {
  return {
    workflowId: loop.workflowId,
    taskQueue: loop.taskQueue,
    args: [{ intervalSeconds }] as [ReconcilerLoopInput],
    staticSummary: `Reconciler: ${loop.what}, every ${intervalSeconds} s`,
    staticDetails: [
      `Runs a pass every ${intervalSeconds} s (RECONCILE_INTERVAL_SECONDS) and continues as new about every hour; started again by the workers of the \`${loop.taskQueue}\` queue if it stops.`,
      '',
      `A pass by hand: signal \`runNow\`. Its last pass: query \`state\`. Stop and go on: updates \`pause\` and \`resume\`. See ${loop.docs}.`,
    ].join('\n'),
  } satisfies Partial<WorkflowStartOptions>;
}

/** Deletes the previous version's Schedule of this reconciler; true when there was one. */
export async function deleteLegacyReconcilerSchedule(client: Client, loop: ReconcilerLoop): Promise<boolean> {
  try {
    await client.schedule.getHandle(loop.legacyScheduleId).delete();
    return true;
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return false;
    throw error;
  }
}

/** What a worker does at start: the old Schedule gone, the loop started or its interval updated. */
export async function ensureReconcilerLoop(
  client: Client,
  loop: ReconcilerLoop,
  intervalSeconds: number,
): Promise<{ runId: string; legacyScheduleDeleted: boolean }> {
  const legacyScheduleDeleted = await deleteLegacyReconcilerSchedule(client, loop);
  const handle = await client.workflow.signalWithStart(loop.workflowType, {
    ...reconcilerLoopStartOptions(loop, intervalSeconds),
    signal: reconcilerSettingsSignal,
    signalArgs: [{ intervalSeconds }],
  });
  return { runId: handle.signaledRunId, legacyScheduleDeleted };
}

/** The status of the loop's latest run; null when it never ran. */
async function loopStatus(client: Client, loop: ReconcilerLoop): Promise<string | null> {
  try {
    return (await client.workflow.getHandle(loop.workflowId).describe()).status.name;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return null;
    throw error;
  }
}

export interface ReconcilerLoopKeeper {
  /** The loop's run when the worker started. */
  runId: string;
  stop(): void;
}

/**
 * ensureReconcilerLoop, then every interval (until `stop`): a loop that is not running is started
 * again (conflict policy USE_EXISTING, so workers that find it stopped at once start one). One
 * describe per interval per worker; no event in the loop's history.
 */
export async function startReconcilerLoop(
  client: Client,
  loop: ReconcilerLoop,
  intervalSeconds: number,
  logger: Logger,
): Promise<ReconcilerLoopKeeper> {
  const { runId, legacyScheduleDeleted } = await ensureReconcilerLoop(client, loop, intervalSeconds);
  logger.info({ workflowId: loop.workflowId, runId, intervalSeconds, legacyScheduleDeleted }, 'reconciler loop ready');
  let stopped = false;
  let checking = false;
  const check = async () => {
    if (stopped || checking) return;
    checking = true;
    try {
      const status = await loopStatus(client, loop);
      if (status === 'RUNNING' || stopped) return;
      const handle = await client.workflow.start(loop.workflowType, {
        ...reconcilerLoopStartOptions(loop, intervalSeconds),
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      });
      logger.warn(
        { workflowId: loop.workflowId, previousStatus: status ?? 'none', runId: handle.firstExecutionRunId },
        'reconciler loop was not running: started again',
      );
    } catch (error) {
      if (!stopped) logger.warn({ err: error, workflowId: loop.workflowId }, 'reconciler loop not checked; tried again next interval');
    } finally {
      checking = false;
    }
  };
  const timer = setInterval(() => void check(), intervalSeconds * 1_000);
  timer.unref();
  return {
    runId,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
