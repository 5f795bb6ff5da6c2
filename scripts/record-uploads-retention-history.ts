import { Client } from '@temporalio/client';
import { config } from '../lib/config';
import { logger } from '../lib/logger';
import { UPLOADS_RETENTION } from '../temporal/uploads-retention-schedule';
import { startAgentsWorker } from '../workers/agents';
import { saveHistoryFixture } from './history-fixtures';
import { connectTemporal } from '../temporal/connection';

/**
 * Records one pass of the uploads retention (docs/uploads.md) into test/fixtures/histories/ for the
 * replay test: the agents worker creates the Schedule, a pass is triggered at once and saved. Run with
 * the stack up and the test environment, e.g. `NODE_ENV=test MYSQL_DATABASE=consultores_test
 * TEMPORAL_NAMESPACE=test ... node --import tsx scripts/record-uploads-retention-history.ts`.
 */
async function main(): Promise<void> {
  const connection = await connectTemporal(config.temporal);
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const worker = await startAgentsWorker(config, logger);
  try {
    const since = new Date();
    const schedule = client.schedule.getHandle(UPLOADS_RETENTION.scheduleId);
    await schedule.trigger();
    const deadline = Date.now() + 60_000;
    for (;;) {
      const taken = (await schedule.describe()).info.recentActions.find((action) => action.takenAt.getTime() >= since.getTime() - 1_000);
      if (taken) {
        const handle = client.workflow.getHandle(taken.action.workflow.workflowId, taken.action.workflow.firstExecutionRunId);
        await handle.result();
        await saveHistoryFixture('agent-uploads-retention', handle);
        return;
      }
      if (Date.now() > deadline) throw new Error(`no pass of ${UPLOADS_RETENTION.scheduleId} within a minute`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await worker.stop();
    await connection.close();
  }
}

main().catch((error: unknown) => {
  logger.fatal({ err: error }, 'recording failed');
  process.exit(1);
});
