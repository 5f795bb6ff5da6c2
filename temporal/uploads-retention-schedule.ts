import type { Client } from '@temporalio/client';
import { ensureReconcilerSchedule, type Reconciler } from './reconciler-schedules';
import { TASK_QUEUES } from './task-queues';

/**
 * The uploads' retention (docs/uploads.md): a Temporal Schedule, made like the reconcilers' (created or
 * brought up to date when the agents worker starts; overlap skip), that runs a pass every hour
 * removing the uploads older than AGENT_UPLOADS_RETENTION_HOURS.
 */
export const UPLOADS_RETENTION: Reconciler = {
  scheduleId: 'uploads-retention',
  workflowType: 'removeExpiredUploadsWorkflow',
  taskQueue: TASK_QUEUES.agents,
  description: 'Removes uploaded context files older than the retention period, unless an active execution names them',
};

/** An upload lives at most the retention period plus this. */
export const UPLOADS_RETENTION_INTERVAL_SECONDS = 3_600;

export function ensureUploadsRetentionSchedule(client: Client): Promise<'created' | 'updated'> {
  return ensureReconcilerSchedule(client, UPLOADS_RETENTION, UPLOADS_RETENTION_INTERVAL_SECONDS);
}
