import { createProbeActivities } from '../activities/probe';
import { createRankingActivities } from '../activities/ranking';
import { createRankingReconcilerActivities } from '../activities/reconcile-ranking-runs';
import { createDatabase } from '../db';
import { PERSON_INDEX_BASE } from '../domain/person-index';
import type { Config } from '../lib/config';
import { createElasticsearch, indexName } from '../lib/elasticsearch';
import type { Logger } from '../lib/logger';
import { closeTemporalClient, createTemporalClient } from '../temporal/client';
import { ensureRankingSchedule } from '../temporal/ranking-schedule';
import { ensureSearchAttributes } from '../temporal/search-attributes';
import { isTemporalCloud } from '../lib/connection-settings';
import { RECONCILER_LOOPS, startReconcilerLoop, type ReconcilerLoopKeeper } from '../temporal/reconciler-loops';
import { TASK_QUEUES } from '../temporal/task-queues';
import { startQueueWorker, type QueueWorker } from './queue-worker';

/** The worker of the `ranking` task queue: the ranking job, its batches, the daily schedule and the runs' reconciler. */
export async function startRankingWorker(config: Config, logger: Logger): Promise<QueueWorker> {
  const taskQueue = TASK_QUEUES.ranking;
  // Also the reconciler activity's client: closed with the worker.
  const temporal = createTemporalClient(config.temporal);
  let reconcilerLoop: ReconcilerLoopKeeper;
  try {
    // Registered by every worker kind: whichever starts first makes the namespace ready (docs/observability.md).
    logger.info(
      {
        outcome: await ensureSearchAttributes(temporal.connection, config.temporal.namespace, {
          cloud: isTemporalCloud(config.temporal.address),
        }),
      },
      'run search attributes ready',
    );
    const outcome = await ensureRankingSchedule(temporal.client, config.ranking.scheduleTimezone);
    logger.info({ outcome, timezone: config.ranking.scheduleTimezone }, 'ranking schedule ready');
    // The runs reconciler's loop workflow: started, or sent this worker's interval; restarted while this worker runs if it stops.
    reconcilerLoop = await startReconcilerLoop(temporal.client, RECONCILER_LOOPS.rankingRuns, config.reconciler.intervalSeconds, logger);
  } catch (error) {
    await closeTemporalClient(temporal);
    throw error;
  }

  const database = createDatabase(config.mysql);
  const es = createElasticsearch(config.elasticsearch);
  return startQueueWorker({
    temporal: config.temporal,
    taskQueue,
    logger,
    // A batch still running past it is cancelled and retried on another worker, as its retry policy says.
    shutdownGraceMs: config.shutdown.workerGraceMs,
    activities: {
      ...createProbeActivities({ taskQueue }),
      ...createRankingActivities({
        pool: database.pool,
        db: database.db,
        es,
        personIndex: indexName(config.elasticsearch, PERSON_INDEX_BASE),
        cvBaseUrl: config.ranking.cvBaseUrl,
        logger,
      }),
      ...createRankingReconcilerActivities({ db: database.db, temporal: temporal.client, logger }),
    },
    closeDependencies: async () => {
      reconcilerLoop.stop();
      await Promise.allSettled([database.pool.end(), es.close(), closeTemporalClient(temporal)]);
    },
  });
}
