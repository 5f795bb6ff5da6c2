import { Client, Connection } from '@temporalio/client';
import { config } from '../lib/config';
import { logger } from '../lib/logger';
import { RECONCILERS, type Reconciler } from '../temporal/reconciler-schedules';
import { startAgentsWorker } from '../workers/agents';
import { startRankingWorker } from '../workers/ranking';
import { saveHistoryFixture } from './history-fixtures';

/**
 * Records the history of one pass of each reconciler (temporal/reconciler-schedules.ts) into
 * test/fixtures/histories/ for the replay test: the workers start with a 1 s interval and the first
 * pass each Schedule starts afterwards is saved. Run with the stack up:
 * `npm run record-reconciler-histories`.
 */
async function main(): Promise<void> {
  const connection = await Connection.connect({ address: config.temporal.address });
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const quick = { ...config, reconciler: { intervalSeconds: 1 } };
  const workers = [await startAgentsWorker(quick, logger), await startRankingWorker(quick, logger)];
  try {
    const since = new Date();
    await save(client, RECONCILERS.executions, 'agent-executions-reconciler', since);
    await save(client, RECONCILERS.rankingRuns, 'ranking-runs-reconciler', since);
  } finally {
    await Promise.allSettled(workers.map((worker) => worker.stop()));
    await connection.close();
  }
}

/** Waits (at most a minute) for a pass of the Schedule started after `since`, lets it finish and saves its history. */
async function save(client: Client, reconciler: Reconciler, name: string, since: Date): Promise<void> {
  const schedule = client.schedule.getHandle(reconciler.scheduleId);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const taken = (await schedule.describe()).info.recentActions.find((action) => action.takenAt.getTime() > since.getTime());
    if (taken) {
      const handle = client.workflow.getHandle(taken.action.workflow.workflowId, taken.action.workflow.firstExecutionRunId);
      await handle.result();
      await saveHistoryFixture(name, handle);
      return;
    }
    if (Date.now() > deadline) throw new Error(`no pass of ${reconciler.scheduleId} within a minute`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

main().catch((error: unknown) => {
  logger.fatal({ err: error }, 'recording failed');
  process.exit(1);
});
