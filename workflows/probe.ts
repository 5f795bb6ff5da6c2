import { proxyActivities } from '@temporalio/workflow';
import type { ProbeActivities, WorkerIdentity } from '../activities/probe';

const { identifyWorker } = proxyActivities<ProbeActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

export interface ProbeResult {
  echo: string;
  worker: WorkerIdentity;
}

/** Echoes its input and reports the worker that ran its activity: a liveness check for a task queue. */
export async function probeWorkflow(message: string): Promise<ProbeResult> {
  const worker = await identifyWorker();
  return { echo: message, worker };
}
