import { Client, Connection } from '@temporalio/client';
import { config } from '../../lib/config';
import { logger } from '../../lib/logger';
import { TASK_QUEUES, type TaskQueueName } from '../../temporal/task-queues';
import { startAgentsWorker } from '../../workers/agents';
import type { QueueWorker } from '../../workers/queue-worker';
import { startRankingWorker } from '../../workers/ranking';
import type { probeWorkflow } from '../../workflows/probe';
import { connectTemporal } from '../../temporal/connection';

let connection: Connection;
let client: Client;
const workers: QueueWorker[] = [];

beforeAll(async () => {
  connection = await connectTemporal(config.temporal);
  client = new Client({ connection, namespace: config.temporal.namespace });
  workers.push(await startRankingWorker(config, logger), await startAgentsWorker(config, logger));
});

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
  await connection.close();
});

async function waitForVisibility(workflowId: string): Promise<string[]> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const ids: string[] = [];
    for await (const execution of client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) {
      ids.push(`${execution.workflowId}:${execution.status.name}`);
    }
    if (ids.length > 0) return ids;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return [];
}

describe.each(Object.values(TASK_QUEUES))('a workflow on the %s task queue', (taskQueue: TaskQueueName) => {
  it('is executed by that queue’s worker on the Temporal server and visible through the client', async () => {
    const workflowId = `test-probe-${taskQueue}-${Date.now()}`;

    const result = await client.workflow.execute<typeof probeWorkflow>('probeWorkflow', {
      taskQueue,
      workflowId,
      args: ['olá, Temporal'],
    });

    expect(result.echo).toBe('olá, Temporal');
    expect(result.worker.taskQueue).toBe(taskQueue);
    expect(result.worker.pid).toBe(process.pid);

    const description = await client.workflow.getHandle(workflowId).describe();
    expect(description.status.name).toBe('COMPLETED');
    expect(description.taskQueue).toBe(taskQueue);
    expect(description.type).toBe('probeWorkflow');
    expect(await waitForVisibility(workflowId)).toEqual([`${workflowId}:COMPLETED`]);
  });
});
