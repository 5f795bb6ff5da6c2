import { createProbeActivities } from '../activities/probe';
import { createRankingActivities } from '../activities/ranking';
import { createDatabase } from '../db';
import { PERSON_INDEX_BASE } from '../domain/person-index';
import type { Config } from '../lib/config';
import { createElasticsearch, indexName } from '../lib/elasticsearch';
import type { Logger } from '../lib/logger';
import { closeTemporalClient, createTemporalClient } from '../temporal/client';
import { ensureRankingSchedule } from '../temporal/ranking-schedule';
import { TASK_QUEUES } from '../temporal/task-queues';
import { startQueueWorker, type QueueWorker } from './queue-worker';

/** The worker of the `ranking` task queue: the ranking job, its batches and the daily schedule. */
export async function startRankingWorker(config: Config, logger: Logger): Promise<QueueWorker> {
  const taskQueue = TASK_QUEUES.ranking;
  const temporal = createTemporalClient(config.temporal);
  try {
    const outcome = await ensureRankingSchedule(temporal.client, config.ranking.scheduleTimezone);
    logger.info({ outcome, timezone: config.ranking.scheduleTimezone }, 'ranking schedule ready');
  } finally {
    await closeTemporalClient(temporal);
  }

  const database = createDatabase(config.mysql);
  const es = createElasticsearch(config.elasticsearch);
  return startQueueWorker({
    temporal: config.temporal,
    taskQueue,
    logger,
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
    },
    closeDependencies: async () => {
      await Promise.allSettled([database.pool.end(), es.close()]);
    },
  });
}
