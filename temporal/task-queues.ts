/** Task-queue names: one per worker kind. */
export const TASK_QUEUES = {
  ranking: 'ranking',
  agents: 'agents',
} as const;

export type TaskQueueName = (typeof TASK_QUEUES)[keyof typeof TASK_QUEUES];

/**
 * Queues of activities only, served by an activity-only worker beside a workflow queue's worker.
 * `agent-slots`: executions waiting for a concurrency slot. A waiter holds an activity slot of its
 * worker for as long as it waits; on their own queue, waiters can never take the slots the agent
 * runs need (docs/agent-executions.md, "Concurrency").
 */
export const ACTIVITY_QUEUES = {
  agentSlots: 'agent-slots',
} as const;

export type ActivityQueueName = (typeof ACTIVITY_QUEUES)[keyof typeof ACTIVITY_QUEUES];

/**
 * The queue of one agents host (docs/multi-host.md): the activities that work on that host's disk
 * (an agent run, a pipeline's push). Served by that host's agents worker only.
 */
export type AgentsHostQueueName = `agents-host-${string}`;
export const agentsHostQueue = (host: string): AgentsHostQueueName => `agents-host-${host}`;
