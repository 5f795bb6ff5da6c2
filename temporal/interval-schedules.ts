import {
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptionsAction,
  type ScheduleSpec,
} from '@temporalio/client';
import type { TaskQueueName } from './task-queues';

/**
 * A Temporal Schedule that starts a short housekeeping workflow every interval, created (or brought
 * up to date) when the worker of its queue starts. Used by the uploads' hourly retention
 * (temporal/uploads-retention-schedule.ts). The reconcilers were such Schedules, every minute, until
 * they became loop workflows (temporal/reconciler-loops.ts): a Schedule suits a job of an hour or
 * more, not a pass a minute, which floods the Web UI's list.
 */
export interface IntervalSchedule {
  scheduleId: string;
  workflowType: string;
  taskQueue: TaskQueueName;
  description: string;
}

function intervalSpec(intervalSeconds: number): ScheduleSpec {
  return { intervals: [{ every: `${intervalSeconds} seconds` }] };
}

function intervalAction(schedule: IntervalSchedule): ScheduleOptionsAction {
  return {
    type: 'startWorkflow',
    workflowType: schedule.workflowType,
    taskQueue: schedule.taskQueue,
    workflowId: schedule.scheduleId,
    // A pass waiting for a worker that never comes must not block the Schedule (overlap: skip) for ever.
    workflowExecutionTimeout: '15 minutes',
    // What the Web UI shows of each workflow the Schedule starts.
    staticSummary: `Housekeeping: ${schedule.description}`,
  };
}

/**
 * Creates the Schedule, or updates an existing one's interval and action, so a changed
 * interval takes effect when the worker restarts. Overlap policy skip: a pass still
 * running (or waiting for a worker) makes the next tick do nothing, so passes never pile up.
 */
export async function ensureIntervalSchedule(
  client: Client,
  schedule: IntervalSchedule,
  intervalSeconds: number,
): Promise<'created' | 'updated'> {
  const spec = intervalSpec(intervalSeconds);
  const action = intervalAction(schedule);
  try {
    await client.schedule.create({
      scheduleId: schedule.scheduleId,
      spec,
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
      memo: { description: schedule.description },
    });
    return 'created';
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule.getHandle(schedule.scheduleId).update((previous) => ({ ...previous, spec, action }));
    return 'updated';
  }
}
