import { Client } from '@temporalio/client';
import { config } from '../../lib/config';
import { TASK_QUEUES } from '../../temporal/task-queues';
import type { probeWorkflow } from '../../workflows/probe';
import { unusedPort } from '../support/ports';
import { startServiceProcess as startMain, type ServiceProcess as Started } from '../support/processes';
import { openSocket } from '../support/websocket';
import { connectTemporal } from '../../temporal/connection';

async function waitForHealth(url: string, started: Started): Promise<void> {
  for (let attempt = 0; attempt < 240; attempt += 1) {
    if (started.child.exitCode !== null) throw new Error(`main exited early:\n${started.output()}`);
    try {
      if ((await fetch(`${url}/api/v1/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`main did not answer within 60 s:\n${started.output()}`);
}

function logMessages(output: string): Array<Record<string, unknown>> {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('the service process (main.ts)', () => {
  it('serves HTTP and runs both workers, then drains and exits 0 on SIGTERM', async () => {
    const port = await unusedPort();
    const url = `http://127.0.0.1:${port}`;
    const started = startMain({ HTTP_PORT: String(port) });
    const connection = await connectTemporal(config.temporal);
    try {
      await waitForHealth(url, started);
      const client = new Client({ connection, namespace: config.temporal.namespace });
      for (const taskQueue of Object.values(TASK_QUEUES)) {
        const result = await client.workflow.execute<typeof probeWorkflow>('probeWorkflow', {
          taskQueue,
          workflowId: `test-main-probe-${taskQueue}-${Date.now()}`,
          args: ['via main'],
        });
        expect(result.worker).toMatchObject({ taskQueue, pid: started.child.pid });
      }
      // One process, every role: its readiness names them all.
      const ready = await fetch(`${url}/readyz`);
      expect({ status: ready.status, body: await ready.json() }).toEqual({
        status: 200,
        body: { status: 'ok', checks: { mysql: 'up', redis: 'up', 'live-output': 'up', 'ranking-worker': 'up', 'agents-worker': 'up' } },
      });
      const socket = await openSocket(`ws://127.0.0.1:${port}/ws?clientId=main-test`);
      await socket.nextMessage();

      started.child.kill('SIGTERM');

      expect(await started.exited).toBe(0);
      expect((await socket.closed).code).toBe(1012);
      const steps = logMessages(started.output())
        .filter((entry) => entry.msg === 'shutdown step done')
        .map((entry) => entry.step);
      // The API's drain and the workers' stop run at once; the connections close after both.
      expect([...steps.slice(0, 2)].sort()).toEqual(['http', 'workers']);
      expect(steps.slice(2)).toEqual(['connections']);
      expect(logMessages(started.output()).at(-1)?.msg).toBe('shutdown complete');
    } finally {
      started.child.kill('SIGKILL');
      await connection.close();
    }
  });

  it('refuses to start with an invalid environment, naming the variable', async () => {
    const started = startMain({ HTTP_PORT: 'not-a-port' });
    expect(await started.exited).not.toBe(0);
    expect(started.output()).toContain('invalid environment: HTTP_PORT');
  });
});
