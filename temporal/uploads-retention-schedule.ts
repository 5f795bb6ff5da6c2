import type { Client } from '@temporalio/client';
import { ensureIntervalSchedule, type IntervalSchedule } from './interval-schedules';
import { TASK_QUEUES } from './task-queues';

/**
 * The uploads' retention (docs/uploads.md): an interval Schedule (temporal/interval-schedules.ts:
 * created or brought up to date when the agents worker starts; overlap skip) that runs a pass every
 * hour removing the uploads older than AGENT_UPLOADS_RETENTION_HOURS.
 */
export const UPLOADS_RETENTION: IntervalSchedule = {
  scheduleId: 'uploads-retention',
  workflowType: 'removeExpiredUploadsWorkflow',
  taskQueue: TASK_QUEUES.agents,
  description: 'Removes uploaded context files older than the retention period, unless an active execution names them',
};

/** An upload lives at most the retention period plus this. */
export const UPLOADS_RETENTION_INTERVAL_SECONDS = 3_600;

export function ensureUploadsRetentionSchedule(client: Client): Promise<'created' | 'updated'> {
  return ensureIntervalSchedule(client, UPLOADS_RETENTION, UPLOADS_RETENTION_INTERVAL_SECONDS);
}
