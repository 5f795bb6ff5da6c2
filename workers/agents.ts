import { prepareAgentHost } from '../activities/agents/agent-host';
import { createAgentExecutionActivities } from '../activities/agents/execution-activities';
import { loadModelPrices, SHIPPED_PRICES_SOURCE } from '../activities/agents/run-cost';
import { createFollowUpActivities } from '../activities/agents/follow-ups';
import { createPipelineActivities } from '../activities/pipelines/pipeline-activities';
import { createExecutionReconcilerActivities } from '../activities/agents/reconcile-executions';
import { createProbeActivities } from '../activities/probe';
import { createScheduleActivities } from '../activities/schedules/scheduled-run';
import { createUploadsRetentionActivities } from '../activities/uploads/retention';
import { createDatabase } from '../db';
import { markAgentHostDraining, markAgentHostSeen, registerAgentHost } from '../db/agent-hosts-store';
import { AGENT_HOST_BEAT_MS } from '../domain/agent-hosts';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import { closeRedis, createRedis } from '../lib/redis';
import { reconcileSchedules } from '../services/schedules';
import { closeTemporalClient, createTemporalClient } from '../temporal/client';
import { RECONCILER_LOOPS, startReconcilerLoop, type ReconcilerLoopKeeper } from '../temporal/reconciler-loops';
import { ensureUploadsRetentionSchedule } from '../temporal/uploads-retention-schedule';
import { ensureSearchAttributes } from '../temporal/search-attributes';
import { isTemporalCloud } from '../lib/connection-settings';
import { ACTIVITY_QUEUES, agentsHostQueue, TASK_QUEUES } from '../temporal/task-queues';
import { Drain } from '../lib/drain';
import { withTimeout } from '../lib/timeout';
import { drainAgentsWorker, type AgentsQueueWorkers } from './agents-drain';
import { combineQueueWorkers, startQueueWorker, type QueueWorker } from './queue-worker';

export interface AgentsWorkerOptions {
  /** Activities (agent runs, records, reports) run at once on the `agents` queue; the SDK's default is 100. */
  activitySlots?: number;
}

/**
 * Executions waiting for a concurrency slot that one process serves at once. A waiter is a timer and
 * a short query now and then, so thousands would do; a larger queue waits in Temporal's task queue.
 */
const SLOT_WAITERS = 1_000;

/**
 * The worker of the `agents` task queue (agent executions and pipelines), with the activity-only
 * worker of `agent-slots` where queued executions wait for their slot: waiters then never hold the
 * activity slots the running executions need (docs/agent-executions.md, "Concurrency"); and the
 * activity-only worker of this host's queue `agents-host-<AGENT_HOST>`, where the runs pinned to
 * this host go (docs/multi-host.md). Its stop drains: the running runs finish first, up to
 * AGENT_DRAIN_TIMEOUT_MS (workers/agents-drain.ts).
 */
export async function startAgentsWorker(config: Config, logger: Logger, options: AgentsWorkerOptions = {}): Promise<QueueWorker> {
  const taskQueue = TASK_QUEUES.agents;
  // The prices of the runs whose CLI reports no cost, read once, before anything: a bad MODEL_PRICES_FILE stops the start.
  const prices = loadModelPrices(config.orchestration.modelPricesFile);
  logger.info(
    {
      shipped: SHIPPED_PRICES_SOURCE,
      file: config.orchestration.modelPricesFile,
      fromFile: prices.fromFile,
      models: Object.keys(prices.table).length,
    },
    'model prices loaded (docs/agent-clis.md, "Cost")',
  );
  // Says who the agents run as; closes the data area; makes the working-directory roots (activities/agents/agent-host.ts).
  await prepareAgentHost(config, logger);
  const database = createDatabase(config.mysql);
  const redis = createRedis(config.redis, 'agents-worker');
  // ioredis reconnects by itself; live output is best effort (the record keeps the output).
  redis.on('error', (error: Error) => logger.debug({ err: error }, 'redis connection error'));
  // The reconciler's activity describes workflows through its own client (and delegateResult, the path of
  // execution workflows started before agent-delegation-child, starts the delegated run with it).
  const temporal = createTemporalClient(config.temporal);
  const closeDependencies = async () => {
    await Promise.allSettled([database.pool.end(), closeRedis(redis), closeTemporalClient(temporal)]);
  };
  // The runs and pushes in flight here, which a stop lets finish (workers/agents-drain.ts).
  const drain = new Drain();
  const { waitForSlot, ...activities } = createAgentExecutionActivities({
    pool: database.pool,
    db: database.db,
    redis,
    config,
    logger,
    prices: prices.table,
    stopRuns: drain.stopSignal,
  });
  const runAgentExecution = drain.track(activities.runAgentExecution);
  const host = config.orchestration.host;
  const followUps = createFollowUpActivities({ db: database.db, redis, temporal: temporal.client, config, logger });
  const pipelines = createPipelineActivities({ db: database.db, redis, config, logger });
  const reconciler = createExecutionReconcilerActivities({
    db: database.db,
    temporal: temporal.client,
    finishing: activities,
    pipelineFinishing: pipelines,
    logger,
  });
  const schedules = createScheduleActivities({
    db: database.db,
    redis,
    temporal: temporal.client,
    logger,
    workdirRoots: config.orchestration.workdirRoots,
  });
  const uploads = createUploadsRetentionActivities({
    db: database.db,
    logger,
    retentionHours: config.orchestration.uploads.retentionHours,
  });
  const started: QueueWorker[] = [];
  const { workerGraceMs, agentDrainMs } = config.shutdown;
  let hostBeat: NodeJS.Timeout | undefined;
  let reconcilerLoop: ReconcilerLoopKeeper | undefined;
  let queues: AgentsQueueWorkers;
  try {
    // This host and what it holds (docs/multi-host.md); then alive every few seconds while the worker runs.
    await registerAgentHost(database.db, { name: host, roots: config.orchestration.workdirRoots });
    hostBeat = setInterval(() => {
      markAgentHostSeen(database.db, host).catch((error: unknown) => logger.warn({ err: error, host }, 'agents host not marked alive'));
    }, AGENT_HOST_BEAT_MS);
    hostBeat.unref();
    logger.info({ host, roots: config.orchestration.workdirRoots, taskQueue: agentsHostQueue(host) }, 'agents host registered');
    // The executions reconciler's loop workflow: started, or sent this worker's interval; restarted while this worker runs if it stops.
    reconcilerLoop = await startReconcilerLoop(temporal.client, RECONCILER_LOOPS.executions, config.reconciler.intervalSeconds, logger);
    // Every agent schedule's Temporal Schedule as its row says; orphans of this feature's prefix deleted (docs/tasks-schedules.md).
    const reconciled = await reconcileSchedules({
      db: database.db,
      temporal: temporal.client,
      logger,
      timezone: config.orchestration.scheduleTimezone,
    });
    logger.info(reconciled, 'agent schedules reconciled');
    logger.info({ outcome: await ensureUploadsRetentionSchedule(temporal.client) }, 'uploads retention schedule ready (docs/uploads.md)');
    // Before polling: the workflows set them, and a start that sets one not registered fails (docs/observability.md).
    logger.info(
      {
        outcome: await ensureSearchAttributes(temporal.connection, config.temporal.namespace, {
          cloud: isTemporalCloud(config.temporal.address),
        }),
      },
      'run search attributes ready',
    );
    const slots = await startQueueWorker({
      temporal: config.temporal,
      taskQueue: ACTIVITY_QUEUES.agentSlots,
      logger,
      activities: { waitForSlot },
      maxConcurrentActivityTaskExecutions: SLOT_WAITERS,
      // A cancel reaches a waiter within about a second (it only hears it in a heartbeat's answer).
      maxHeartbeatThrottleInterval: '1 second',
      // A stop hands the waits to other workers at once (the activity is retried there).
      shutdownGraceMs: 0,
    });
    started.push(slots);
    const shared = await startQueueWorker({
      temporal: config.temporal,
      taskQueue,
      logger,
      // A cancelled execution's agent is killed within about a second, not at the next throttled heartbeat.
      maxHeartbeatThrottleInterval: '1 second',
      activities: {
        ...createProbeActivities({ taskQueue }),
        ...activities,
        // Runs granted before hosts existed run here: drained like the host's.
        runAgentExecution,
        ...reconciler,
        ...followUps,
        ...schedules,
        ...pipelines,
        ...uploads,
      },
      // Its runs end with the drain (stopRuns), never cut earlier by the SDK.
      shutdownGraceMs: agentDrainMs + workerGraceMs,
      ...(options.activitySlots ? { maxConcurrentActivityTaskExecutions: options.activitySlots } : {}),
    });
    started.push(shared);
    // What works on this host's disk: the runs pinned here and their pipelines' pushes.
    const onHost = await startQueueWorker({
      temporal: config.temporal,
      taskQueue: agentsHostQueue(host),
      logger,
      maxHeartbeatThrottleInterval: '1 second',
      activities: { runAgentExecution, pushRun: drain.track(pipelines.pushRun) },
      // Stopped once the drain is over: its runs have ended by then; a push in flight gets the grace.
      shutdownGraceMs: workerGraceMs,
      ...(options.activitySlots ? { maxConcurrentActivityTaskExecutions: options.activitySlots } : {}),
    });
    started.push(onHost);
    queues = { slots, shared, host: onHost };
  } catch (error) {
    clearInterval(hostBeat);
    reconcilerLoop?.stop();
    await Promise.allSettled(started.map((worker) => worker.stop()));
    await closeDependencies();
    throw error;
  }
  // Bounded: a database that does not answer must not hold the drain up.
  const markDraining = () =>
    withTimeout(markAgentHostDraining(database.db, host), config.dependencyTimeoutMs, 'marking the host draining').catch((error: unknown) =>
      logger.warn({ err: error, host }, 'agents host not marked draining'),
    );
  const closeAll = async () => {
    // Only now: the host stayed alive for its draining runs.
    clearInterval(hostBeat);
    reconcilerLoop?.stop();
    // Stopped, the host stays marked draining (not gone): a run granted to it waits for its next start,
    // as in a rolling restart, and only when no start comes within AGENT_HOST_LIVE_MS does the host
    // count as gone (docs/probes-and-drains.md).
    await markDraining();
    await closeDependencies();
  };
  const drained = queues;
  return combineQueueWorkers(started, closeAll, (cutShort) =>
    drainAgentsWorker(drained, { drain, timeoutMs: agentDrainMs, markDraining, logger, ...(cutShort ? { cutShort } : {}) }),
  );
}
