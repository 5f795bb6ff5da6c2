import { Client, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import {
  reconcilerPauseUpdate,
  reconcilerResumeUpdate,
  reconcilerRunNowSignal,
  reconcilerSettingsSignal,
  reconcilerStateQuery,
  type ReconcilerLoopState,
} from '../temporal/contracts/reconciler-loop';
import { config } from '../lib/config';
import { logger } from '../lib/logger';
import { RECONCILER_LOOPS, reconcilerLoopStartOptions, type ReconcilerLoop } from '../temporal/reconciler-loops';
import { startAgentsWorker } from '../workers/agents';
import { startRankingWorker } from '../workers/ranking';
import { saveHistoryFixture } from './history-fixtures';
import { connectTemporal } from '../temporal/connection';

/**
 * Records one run of each reconciler's loop workflow (temporal/reconciler-loops.ts) into
 * test/fixtures/histories/ for the replay test: a loop of its own (not the workers' one, under
 * another id) of 3 cycles a run, taken through every command it has: a timed pass, a changed
 * interval (the timer cancelled), a pass on demand (`runNow`), `pause` and `resume`, and
 * continue-as-new; the first run is saved, the chain terminated. Run with the stack up:
 * `npm run record-reconciler-histories`.
 *
 * The one-pass histories of the previous version (`agent-executions-reconciler.json`,
 * `ranking-runs-reconciler.json`) were recorded from its Schedules, which are gone; they stay, replayed
 * while their workflow types stay registered.
 */
async function main(): Promise<void> {
  const connection = await connectTemporal(config.temporal);
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const quick = { ...config, reconciler: { intervalSeconds: 1 } };
  const workers = [await startAgentsWorker(quick, logger), await startRankingWorker(quick, logger)];
  try {
    await record(client, RECONCILER_LOOPS.executions, 'agent-executions-reconciler-loop');
    await record(client, RECONCILER_LOOPS.rankingRuns, 'ranking-runs-reconciler-loop');
  } finally {
    await Promise.allSettled(workers.map((worker) => worker.stop()));
    await connection.close();
  }
}

async function record(client: Client, loop: ReconcilerLoop, name: string): Promise<void> {
  const workflowId = `record-${loop.workflowId}-${Date.now()}`;
  const handle = await client.workflow.start(loop.workflowType, {
    ...reconcilerLoopStartOptions(loop, 1),
    workflowId,
    args: [{ intervalSeconds: 1, cyclesPerRun: 3 }],
  });
  try {
    await passes(handle, 1);
    // A wait longer than the recording: the timer is cancelled and set again; the next pass is on demand.
    await handle.signal(reconcilerSettingsSignal, { intervalSeconds: 300 });
    await handle.signal(reconcilerRunNowSignal);
    await passes(handle, 2);
    // Paused (a wait without a timer), then resumed (the timer again), then a pass on demand: the third
    // cycle, after which the run continues as new.
    await handle.executeUpdate(reconcilerPauseUpdate);
    await handle.executeUpdate(reconcilerResumeUpdate);
    await handle.signal(reconcilerRunNowSignal);
    await passes(handle, 3);
    const first = client.workflow.getHandle(workflowId, handle.firstExecutionRunId);
    await waitFor(`${workflowId} continued as new`, async () => (await first.describe()).status.name === 'CONTINUED_AS_NEW');
    const events = (await first.fetchHistory()).events ?? [];
    // Event types are enum numbers here: compared by their names.
    const types = events.map((event) => temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? String(event.eventType));
    for (const expected of [
      'TIMER_FIRED',
      'TIMER_CANCELED',
      'SIGNALED',
      'UPDATE_COMPLETED',
      'ACTIVITY_TASK_COMPLETED',
      'CONTINUED_AS_NEW',
    ]) {
      if (!types.some((type) => type.endsWith(expected))) throw new Error(`${name}: no ${expected} event in ${types.join(',')}`);
    }
    await saveHistoryFixture(name, first);
  } finally {
    await client.workflow
      .getHandle(workflowId)
      .terminate('recorded')
      .catch(() => undefined);
  }
}

/** Waits (at most a minute) until the loop has finished `count` passes, each one successful. */
async function passes(handle: WorkflowHandle, count: number): Promise<void> {
  let state: ReconcilerLoopState | null = null;
  await waitFor(`${handle.workflowId}: ${count} passes`, async () => {
    state = await handle.query(reconcilerStateQuery);
    return (state.lastPass?.number ?? 0) >= count && !state.passRunning;
  });
  const last = (state as ReconcilerLoopState | null)?.lastPass;
  if (last?.error !== undefined) throw new Error(`${handle.workflowId}: pass ${last.number} failed: ${last.error}`);
}

async function waitFor(what: string, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within a minute`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

main().catch((error: unknown) => {
  logger.fatal({ err: error }, 'recording failed');
  process.exit(1);
});
