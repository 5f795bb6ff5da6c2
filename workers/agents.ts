import { createAgentExecutionActivities } from '../activities/agents/execution-activities';
import { createProbeActivities } from '../activities/probe';
import { createDatabase } from '../db';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import { closeRedis, createRedis } from '../lib/redis';
import { TASK_QUEUES } from '../temporal/task-queues';
import { startQueueWorker, type QueueWorker } from './queue-worker';

/** The worker of the `agents` task queue: agent executions and pipelines. */
export async function startAgentsWorker(config: Config, logger: Logger): Promise<QueueWorker> {
  const taskQueue = TASK_QUEUES.agents;
  const database = createDatabase(config.mysql);
  const redis = createRedis(config.redis, 'agents-worker');
  // ioredis reconnects by itself; live output is best effort (the record keeps the output).
  redis.on('error', (error: Error) => logger.debug({ err: error }, 'redis connection error'));
  return startQueueWorker({
    temporal: config.temporal,
    taskQueue,
    logger,
    // A cancelled execution's agent is killed within about a second, not at the next throttled heartbeat.
    maxHeartbeatThrottleInterval: '1 second',
    activities: {
      ...createProbeActivities({ taskQueue }),
      ...createAgentExecutionActivities({ pool: database.pool, db: database.db, redis, config, logger }),
    },
    closeDependencies: async () => {
      await Promise.allSettled([database.pool.end(), closeRedis(redis)]);
    },
  });
}
