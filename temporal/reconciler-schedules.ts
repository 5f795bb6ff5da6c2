import {
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptionsAction,
  type ScheduleSpec,
} from '@temporalio/client';
import type { TaskQueueName } from './task-queues';

/**
 * Housekeeping Schedules, each created (or brought up to date) when the worker of its queue starts,
 * that start a short workflow every interval: today only the uploads' hourly retention
 * (temporal/uploads-retention-schedule.ts; one workflow an hour). The reconcilers were such Schedules,
 * every minute, until they became loop workflows (temporal/reconciler-loops.ts): a Schedule suits a
 * job of an hour or more, not a pass a minute, which floods the Web UI's list.
 */
export interface Reconciler {
  scheduleId: string;
  workflowType: string;
  taskQueue: TaskQueueName;
  description: string;
}

function reconcilerSpec(intervalSeconds: number): ScheduleSpec {
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
    // What the Web UI shows of each workflow the Schedule starts.
    staticSummary: `Housekeeping: ${reconciler.description}`,
  };
}

/**
 * Creates the Schedule, or updates an existing one's interval and action, so a changed
 * interval takes effect when the worker restarts. Overlap policy skip: a pass still
 * running (or waiting for a worker) makes the next tick do nothing, so passes never pile up.
 */
export async function ensureReconcilerSchedule(
  client: Client,
  reconciler: Reconciler,
  intervalSeconds: number,
): Promise<'created' | 'updated'> {
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
