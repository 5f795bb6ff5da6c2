import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptionsAction, type ScheduleSpec } from '@temporalio/client';
import { TASK_QUEUES, type TaskQueueName } from './task-queues';

/**
 * The reconcilers: Temporal Schedules, each created (or brought up to date) when the worker of its
 * queue starts, that run a short workflow every RECONCILE_INTERVAL_SECONDS to end the records whose
 * workflow is gone (docs/agent-executions.md, "Reconciler"; docs/ranking-job.md). A Schedule rather
 * than a timer in a process: it runs whichever process is up, once per interval however many
 * workers there are, and is visible (and can be paused) in the Temporal Web UI.
 */
export interface Reconciler {
  scheduleId: string;
  workflowType: string;
  taskQueue: TaskQueueName;
  description: string;
}

export const RECONCILERS = {
  executions: {
    scheduleId: 'agent-executions-reconciler',
    workflowType: 'reconcileExecutionsWorkflow',
    taskQueue: TASK_QUEUES.agents,
    description: 'Ends agent executions whose workflow is gone (terminated, failed, not found)',
  },
  rankingRuns: {
    scheduleId: 'ranking-runs-reconciler',
    workflowType: 'reconcileRankingRunsWorkflow',
    taskQueue: TASK_QUEUES.ranking,
    description: 'Records ranking runs whose workflow is gone as interrupted',
  },
} as const satisfies Record<string, Reconciler>;

export function reconcilerSpec(intervalSeconds: number): ScheduleSpec {
  return { intervals: [{ every: `${intervalSeconds} seconds` }] };
}

function reconcilerAction(reconciler: Reconciler): ScheduleOptionsAction {
  return {
    type: 'startWorkflow',
    workflowType: reconciler.workflowType,
    taskQueue: reconciler.taskQueue,
    workflowId: reconciler.scheduleId,
    // A pass waiting for a worker that never comes must not block the Schedule (overlap: skip) for ever.
    workflowExecutionTimeout: '15 minutes',
  };
}

/**
 * Creates the Schedule, or updates an existing one's interval and action, so a changed
 * RECONCILE_INTERVAL_SECONDS takes effect when the worker restarts. Overlap policy skip: a pass still
 * running (or waiting for a worker) makes the next tick do nothing, so passes never pile up.
 */
export async function ensureReconcilerSchedule(client: Client, reconciler: Reconciler, intervalSeconds: number): Promise<'created' | 'updated'> {
  const spec = reconcilerSpec(intervalSeconds);
  const action = reconcilerAction(reconciler);
  try {
    await client.schedule.create({
      scheduleId: reconciler.scheduleId,
      spec,
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
      memo: { description: reconciler.description },
    });
    return 'created';
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule.getHandle(reconciler.scheduleId).update((previous) => ({ ...previous, spec, action }));
    return 'updated';
  }
}
