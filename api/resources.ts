import type { Client as ElasticsearchClient } from '@elastic/elasticsearch';
import type Redis from 'ioredis';
import { BrowserPool } from '../lib/pdf/browser-pool';
import { LiveRelay } from './live-relay';
import { createDatabase, type DatabaseHandle } from '../db';
import { closeTemporalClient, createTemporalClient, type TemporalHandle } from '../temporal/client';
import type { Config } from '../lib/config';
import { createElasticsearch } from '../lib/elasticsearch';
import type { Logger } from '../lib/logger';
import { closeRedis, createRedis } from '../lib/redis';

/** The long-lived connections of one process, built once at start and passed down explicitly. */
export interface ApiResources {
  config: Config;
  logger: Logger;
  database: DatabaseHandle;
  redis: Redis;
  elasticsearch: ElasticsearchClient;
  temporal: TemporalHandle;
  /** Renders the PDF sheets; its browser starts on the first sheet, not here. */
  pdf: BrowserPool;
  /** Relays live output from Redis to this process's WebSockets; connects with the first socket, not here. */
  liveRelay: LiveRelay;
}

export function createApiResources(config: Config, logger: Logger): ApiResources {
  const redis = createRedis(config.redis, 'api');
  // A down Redis must not flood the log: ioredis reconnects by itself and status reports it.
  redis.on('error', (error: Error) => logger.debug({ err: error }, 'redis connection error'));
  return {
    config,
    logger,
    database: createDatabase(config.mysql),
    redis,
    elasticsearch: createElasticsearch(config.elasticsearch),
    temporal: createTemporalClient(config.temporal),
    pdf: new BrowserPool({
      executablePath: config.pdf.chromiumPath,
      concurrency: config.pdf.concurrency,
      queueLimit: config.pdf.queueLimit,
      restartAfter: config.pdf.restartAfter,
      timeoutMs: config.pdf.timeoutMs,
      logger,
    }),
    liveRelay: new LiveRelay({ redis: config.redis, logger, timeDelays: config.metrics.enabled }),
  };
}

export async function closeApiResources(resources: ApiResources): Promise<void> {
  await Promise.allSettled([
    resources.database.pool.end(),
    closeRedis(resources.redis),
    resources.elasticsearch.close(),
    closeTemporalClient(resources.temporal),
    resources.pdf.close(),
    resources.liveRelay.close(),
  ]);
}
