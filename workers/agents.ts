import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import { createProbeActivities } from '../activities/probe';
import { TASK_QUEUES } from '../temporal/task-queues';
import { startQueueWorker, type QueueWorker } from './queue-worker';

/** The worker of the `agents` task queue: agent executions and pipelines. */
export function startAgentsWorker(config: Config, logger: Logger): Promise<QueueWorker> {
  const taskQueue = TASK_QUEUES.agents;
  return startQueueWorker({
    temporal: config.temporal,
    taskQueue,
    logger,
    activities: { ...createProbeActivities({ taskQueue }) },
  });
}
