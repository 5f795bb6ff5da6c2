import type { WorkflowStartOptions } from '@temporalio/client';
import type { RankingJobInput, rankingJobWorkflow } from '../workflows/ranking/job';
import { TASK_QUEUES } from './task-queues';
import { RANKING_JOB_WORKFLOW_ID } from './workflow-ids';

/**
 * How every caller starts the ranking job. The fixed id with conflict policy FAIL is the lock: a
 * start while a run is open fails with WorkflowExecutionAlreadyStartedError; a finished run's id
 * may be reused.
 */
export function rankingJobStartOptions(input: RankingJobInput): WorkflowStartOptions<typeof rankingJobWorkflow> {
  return {
    taskQueue: TASK_QUEUES.ranking,
    workflowId: RANKING_JOB_WORKFLOW_ID,
    workflowIdConflictPolicy: 'FAIL',
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    args: [input],
  };
}
