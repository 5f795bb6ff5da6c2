import type { Drain } from '../lib/drain';
import type { Logger } from '../lib/logger';
import type { QueueWorker } from './queue-worker';

/**
 * Once the runs in flight here have ended, how long the host queue is still served for what they lead
 * to: a pipeline's push on this host is scheduled a second or so after its last step ends (the close
 * and the step's bookkeeping run on another agents worker first).
 */
export const FOLLOW_UP_QUIET_MS = 5_000;

/** The three Temporal workers of an agents worker (workers/agents.ts). */
export interface AgentsQueueWorkers {
  /** `agent-slots`: the waits for a concurrency slot. */
  slots: QueueWorker;
  /** `agents`: the workflows and the activities any agents host may run (the close, the report, follow-ups). */
  shared: QueueWorker;
  /** `agents-host-<AGENT_HOST>`: the runs pinned to this host and their pipelines' pushes. */
  host: QueueWorker;
}

export interface AgentsDrainOptions {
  drain: Drain;
  /** AGENT_DRAIN_TIMEOUT_MS. */
  timeoutMs: number;
  /** Says in the hosts' registry that this host drains (best effort). */
  markDraining: () => Promise<void>;
  logger: Logger;
  /** Aborted: the drain ends now, as at its timeout (a second SIGTERM or SIGINT, main.ts). */
  cutShort?: AbortSignal;
}

/**
 * An agents worker's stop (docs/probes-and-drains.md, "Agents worker"):
 *
 * 1. At once, no new task from the shared queues: `agent-slots` stops (its grace is 0, so the waits are
 *    handed to other workers, their activity retried) and `agents` stops polling (its tasks in flight
 *    finish). What a run needs after its agent ends, the close (record, report, notification) and its
 *    follow-ups, runs on `agents`, on any agents worker: other workers take it.
 * 2. The registry says the host drains: a new run goes to another live host holding its directory.
 * 3. The host queue is still served: the runs in flight here go on, up to `timeoutMs`, and so does what
 *    only this host's disk can do for them (a pipeline's push; a next step pinned here), until nothing
 *    has run for FOLLOW_UP_QUIET_MS. A run still going at `timeoutMs` is stopped with the worker-stopped
 *    error; Temporal's Worker.shutdown() would have stopped every queue of a worker at once, hence a
 *    worker per queue, stopped in this order. The host's heartbeat goes on all along (workers/agents.ts).
 * 4. Then the host queue stops, its pushes in flight given WORKER_SHUTDOWN_GRACE_MS.
 */
export async function drainAgentsWorker(workers: AgentsQueueWorkers, options: AgentsDrainOptions): Promise<void> {
  const { drain, logger } = options;
  // stop() asks the SDK to stop polling before its first await: no new task from here on.
  const shared = Promise.allSettled([workers.slots.stop(), workers.shared.stop()]);
  await options.markDraining();
  logger.info({ inFlight: drain.inFlight, timeoutMs: options.timeoutMs }, 'agents worker draining: no new task, running runs go on');
  const outcome = await drain.settle({
    timeoutMs: options.timeoutMs,
    quietMs: Math.min(FOLLOW_UP_QUIET_MS, options.timeoutMs),
    ...(options.cutShort ? { cutShort: options.cutShort } : {}),
  });
  logger.info(outcome, outcome.stopped > 0 ? 'agents drain timed out: the runs still going were stopped' : 'agents drain done');
  await Promise.allSettled([workers.host.stop(), shared]);
}
