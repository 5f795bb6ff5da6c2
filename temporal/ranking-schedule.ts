import {
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptionsAction,
  type ScheduleSpec,
} from '@temporalio/client';
import { TASK_QUEUES } from './task-queues';

/** The Temporal Schedule that runs the ranking job every day. */
export const RANKING_SCHEDULE_ID = 'ranking_job_daily';

/** Every day at 03:00 in the configured time zone. */
export const RANKING_CRON = '0 3 * * *';

export function rankingScheduleSpec(timezone: string): ScheduleSpec {
  return { cronExpressions: [RANKING_CRON], timezone };
}

const action: ScheduleOptionsAction = {
  type: 'startWorkflow',
  workflowType: 'scheduledRankingWorkflow',
  taskQueue: TASK_QUEUES.ranking,
  workflowId: `${RANKING_SCHEDULE_ID}_disparo`,
  staticSummary: `daily trigger of the ranking job (${RANKING_CRON})`,
};

/**
 * Creates the daily ranking Schedule, or brings an existing one up to date (time zone, action),
 * so a changed setting takes effect when the ranking worker restarts.
 */
export async function ensureRankingSchedule(client: Client, timezone: string): Promise<'created' | 'updated'> {
  const spec = rankingScheduleSpec(timezone);
  try {
    await client.schedule.create({
      scheduleId: RANKING_SCHEDULE_ID,
      spec,
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
      memo: { descricao: 'Processamento diário do ranking de consultores' },
    });
    return 'created';
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule.getHandle(RANKING_SCHEDULE_ID).update((previous) => ({ ...previous, spec, action }));
    return 'updated';
  }
}
