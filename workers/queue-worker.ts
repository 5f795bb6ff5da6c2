import fs from 'node:fs';
import path from 'node:path';
import type { Duration } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import { ReadinessProblem } from '../lib/readiness';
import { repoRoot } from '../lib/paths';
import { TASK_QUEUES, type ActivityQueueName, type AgentsHostQueueName, type TaskQueueName } from '../temporal/task-queues';
import { connectNativeTemporal } from '../temporal/connection';
import { installTemporalRuntime } from './runtime';

export interface QueueWorkerOptions {
  temporal: Config['temporal'];
  /** A workflow queue (its workflows and activities), or an activity queue (activities only). */
  taskQueue: TaskQueueName | ActivityQueueName | AgentsHostQueueName;
  activities: object;
  logger: Logger;
  /** Activities run at once by this worker (the SDK's default is 100). */
  maxConcurrentActivityTaskExecutions?: number;
  /**
   * Longest gap between two heartbeats sent to the server (the SDK's default is 80% of the
   * heartbeat timeout): a cancellation reaches an activity only with a heartbeat's answer.
   */
  maxHeartbeatThrottleInterval?: Duration;
  /**
   * How long a stopping worker lets its running activities finish before the SDK cancels them
   * (shutdownGraceTime): WORKER_SHUTDOWN_GRACE_MS, or what a worker's drain needs (workers/agents.ts).
   */
  shutdownGraceMs: number;
  /** Closes what the activities use (pools, clients), after the worker has stopped. */
  closeDependencies?: () => Promise<void>;
}

export interface QueueWorker {
  /** Resolves when the worker has stopped (after `stop()` or a fatal error). */
  running: Promise<void>;
  /**
   * Stops polling, lets running activities finish (up to its grace time), closes the connection. A
   * worker that drains (the agents worker) ends its drain early when `cutShort` aborts.
   */
  stop(cutShort?: AbortSignal): Promise<void>;
  /**
   * The readiness check (docs/probes-and-drains.md): resolves when the SDK says RUNNING and Temporal
   * answers through the worker's own connection within `timeoutMs`; rejects (ReadinessProblem) when not.
   */
  ready(timeoutMs: number): Promise<void>;
}

/** Path of the prebuilt workflow bundle written by `npm run build` (scripts/build-workflow-bundles.ts). */
export function workflowBundlePath(taskQueue: TaskQueueName): string {
  return path.join(repoRoot, 'dist', 'workflow-bundles', `${taskQueue}.js`);
}

/**
 * Compiled code (production, `npm start`) runs the bundle prebuilt at build time; source code
 * (tests, tsx) bundles the workflows of its queue when the worker is created.
 */
function workflowSource(taskQueue: TaskQueueName) {
  const bundle = workflowBundlePath(taskQueue);
  if (__filename.endsWith('.js') && fs.existsSync(bundle)) return { workflowBundle: { codePath: bundle } };
  return { workflowsPath: require.resolve(`../workflows/${taskQueue}`) };
}

const WORKFLOW_QUEUES: readonly string[] = Object.values(TASK_QUEUES);
const isWorkflowQueue = (taskQueue: string): taskQueue is TaskQueueName => WORKFLOW_QUEUES.includes(taskQueue);

/** Connects to Temporal and starts polling one task queue. */
export async function startQueueWorker(options: QueueWorkerOptions): Promise<QueueWorker> {
  await installTemporalRuntime(options.logger);
  const connection = await connectNativeTemporal(options.temporal);
  let worker: Worker;
  try {
    worker = await Worker.create({
      connection,
      namespace: options.temporal.namespace,
      taskQueue: options.taskQueue,
      activities: options.activities,
      shutdownGraceTime: options.shutdownGraceMs,
      ...(options.maxHeartbeatThrottleInterval ? { maxHeartbeatThrottleInterval: options.maxHeartbeatThrottleInterval } : {}),
      ...(options.maxConcurrentActivityTaskExecutions
        ? { maxConcurrentActivityTaskExecutions: options.maxConcurrentActivityTaskExecutions }
        : {}),
      ...(isWorkflowQueue(options.taskQueue) ? workflowSource(options.taskQueue) : {}),
    });
  } catch (error) {
    await connection.close();
    await options.closeDependencies?.();
    throw error;
  }
  const running = worker.run().finally(async () => {
    await connection.close();
    await options.closeDependencies?.();
  });
  options.logger.info({ taskQueue: options.taskQueue, namespace: options.temporal.namespace }, 'worker started');
  return {
    running,
    async stop() {
      if (worker.getState() === 'RUNNING') {
        options.logger.info({ taskQueue: options.taskQueue, graceMs: options.shutdownGraceMs }, 'worker stopping: no new task');
        worker.shutdown();
      }
      await running;
      options.logger.info({ taskQueue: options.taskQueue }, 'worker stopped');
    },
    async ready(timeoutMs) {
      const state = worker.getState();
      // The queue's name may hold the agents host's: the probe says the state only.
      if (state !== 'RUNNING') throw new ReadinessProblem(`um worker do Temporal está ${state}, não RUNNING`);
      await connection.withDeadline(Date.now() + timeoutMs, () => connection.workflowService.getSystemInfo({}));
    },
  };
}

/**
 * Several workers of one process as one: stopped together (or as `stopAll` orders it), failed when any
 * fails, then `closeDependencies`.
 */
export function combineQueueWorkers(
  workers: QueueWorker[],
  closeDependencies: () => Promise<void>,
  stopAll: (cutShort?: AbortSignal) => Promise<unknown> = () => Promise.allSettled(workers.map((worker) => worker.stop())),
): QueueWorker {
  const running = Promise.all(workers.map((worker) => worker.running)).then(() => undefined);
  const closed = running.finally(closeDependencies);
  // `closed` is observed through `running` and `stop`; this only keeps it from counting as unhandled.
  closed.catch(() => undefined);
  return {
    running: closed,
    async stop(cutShort) {
      await stopAll(cutShort);
      await closed;
    },
    async ready(timeoutMs) {
      await Promise.all(workers.map((worker) => worker.ready(timeoutMs)));
    },
  };
}
