import { rankingJobStartOptions } from '../temporal/ranking-job';
import { Client } from '@temporalio/client';
import { config } from '../lib/config';
import { logger } from '../lib/logger';
import { saveHistoryFixture } from './history-fixtures';
import { TASK_QUEUES } from '../temporal/task-queues';
import { RANKING_JOB_WORKFLOW_ID } from '../temporal/contracts/ranking-job';
import { startRankingWorker } from '../workers/ranking';
import { connectTemporal } from '../temporal/connection';

/**
 * Records one history per ranking workflow type into test/fixtures/histories/ (agent executions: scripts/record-agent-histories.ts), for the replay test that
 * catches non-deterministic changes to workflow code. Run after a deliberate, compatible change of
 * a workflow (with the stack up and the test environment): `npm run record-histories`.
 * Needs a person index with a few thousand persons and an otherwise idle `ranking` task queue.
 */

async function main(): Promise<void> {
  const connection = await connectTemporal(config.temporal);
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const worker = await startRankingWorker(config, logger);
  try {
    const job = await client.workflow.start(
      'rankingJobWorkflow',
      rankingJobStartOptions({ batchSize: 500, batchesPerExecution: 2, maxChildrenInFlight: 2 }),
    );
    await job.result();
    await saveHistoryFixture('ranking-job-first-execution', client.workflow.getHandle(RANKING_JOB_WORKFLOW_ID, job.firstExecutionRunId));
    await saveHistoryFixture('ranking-job-last-execution', client.workflow.getHandle(RANKING_JOB_WORKFLOW_ID));
    await saveHistoryFixture('ranking-batch', client.workflow.getHandle(`${RANKING_JOB_WORKFLOW_ID}-${job.firstExecutionRunId}-lote-0`));

    const trigger = await client.workflow.start('scheduledRankingWorkflow', {
      taskQueue: TASK_QUEUES.ranking,
      workflowId: `record-scheduled-${Date.now()}`,
    });
    await trigger.result();
    await client.workflow.getHandle(RANKING_JOB_WORKFLOW_ID).result();
    await saveHistoryFixture('scheduled-ranking', trigger);

    const probe = await client.workflow.start('probeWorkflow', {
      taskQueue: TASK_QUEUES.ranking,
      workflowId: `record-probe-${Date.now()}`,
      args: ['gravação'],
    });
    await probe.result();
    await saveHistoryFixture('probe', probe);
  } finally {
    await worker.stop();
    await connection.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`record-workflow-histories: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
