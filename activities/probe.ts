import os from 'node:os';

export interface WorkerIdentity {
  taskQueue: string;
  hostname: string;
  pid: number;
  receivedAt: string;
}

/**
 * A side-effect-free activity that says which worker ran it. The probe workflow uses it to
 * prove end to end that a worker polls its queue and executes both workflow and activity tasks.
 */
export function createProbeActivities(deps: { taskQueue: string }) {
  return {
    async identifyWorker(): Promise<WorkerIdentity> {
      return { taskQueue: deps.taskQueue, hostname: os.hostname(), pid: process.pid, receivedAt: new Date().toISOString() };
    },
  };
}

export type ProbeActivities = ReturnType<typeof createProbeActivities>;
