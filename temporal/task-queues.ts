/** Task-queue names: one per worker kind. */
export const TASK_QUEUES = {
  ranking: 'ranking',
  agents: 'agents',
} as const;

export type TaskQueueName = (typeof TASK_QUEUES)[keyof typeof TASK_QUEUES];
