import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, startChild } from '@temporalio/workflow';
import { RANKING_JOB_WORKFLOW_ID } from '../../temporal/contracts/ranking-job';
import { rankingJobWorkflow } from './job';

/**
 * Started by the daily Schedule. Schedules suffix their workflow ids with the time, so the
 * schedule starts this trigger, which starts the job under the fixed id `ranking_job`: a run
 * already in progress (manual or not) makes the start fail, and the trigger skips.
 */
export async function scheduledRankingWorkflow(): Promise<'iniciado' | 'ignorado_em_execucao'> {
  try {
    await startChild(rankingJobWorkflow, {
      workflowId: RANKING_JOB_WORKFLOW_ID,
      args: [{ origem: 'agendado' }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      staticSummary: 'ranking job (agendado, daily Schedule ranking_job_daily)',
    });
    return 'iniciado';
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return 'ignorado_em_execucao';
    throw error;
  }
}
