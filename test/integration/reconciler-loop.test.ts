import { Client, Connection, type WorkflowHandle, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { RankingRunsReconcilePass } from '../../activities/reconcile-ranking-runs';
import { config } from '../../lib/config';
import {
  reconcilerPauseUpdate,
  reconcilerResumeUpdate,
  reconcilerRunNowSignal,
  reconcilerSettingsSignal,
  reconcilerStateQuery,
  type ReconcilerLoopInput,
  type ReconcilerLoopState,
} from '../../temporal/contracts/reconciler-loop';
import { until } from '../support/waiting';
import { connectNativeTemporal, connectTemporal } from '../../temporal/connection';

/**
 * The reconcilers' loop workflow (workflows/reconciler-loop.ts) on its own, against the Temporal dev
 * server: a worker of a queue of its own runs the real `reconcileRankingRunsLoopWorkflow` with a
 * stand-in pass activity the tests steer (fail, take its time). The real passes and the workers that
 * start the loops: reconciler.test.ts.
 */

const taskQueue = `test-reconciler-loop-${process.pid}-${Date.now()}`;
let nativeConnection: NativeConnection;
let worker: Worker;
let running: Promise<void>;
let connection: Connection;
let client: Client;
const started: WorkflowHandle[] = [];
let loops = 0;

/** What the stand-in pass does next. */
let pass: () => Promise<RankingRunsReconcilePass> = async () => ({ checked: 0, interrupted: [] });
/** The passes' activity calls, per loop (workflow id). */
const calls = new Map<string, number>();

beforeAll(async () => {
  // The SDK's own logs: warnings only (the loop warns of a failed pass and of ignored settings).
  Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
  nativeConnection = await connectNativeTemporal(config.temporal);
  worker = await Worker.create({
    connection: nativeConnection,
    namespace: config.temporal.namespace,
    taskQueue,
    workflowsPath: require.resolve('../../workflows/ranking'),
    activities: {
      reconcileRankingRuns: async () => {
        const workflowId = Context.current().info.workflowExecution?.workflowId ?? '';
        calls.set(workflowId, (calls.get(workflowId) ?? 0) + 1);
        return pass();
      },
    },
  });
  running = worker.run();
  connection = await connectTemporal(config.temporal);
  client = new Client({ connection, namespace: config.temporal.namespace });
}, 60_000);

// Nothing of these tests stays running.
const terminateStarted = () => Promise.allSettled(started.splice(0).map((handle) => handle.terminate('test over')));
afterEach(terminateStarted);

afterAll(async () => {
  await terminateStarted();
  worker?.shutdown();
  await running?.catch(() => undefined);
  await nativeConnection?.close();
  await connection?.close();
});

async function startLoop(input: ReconcilerLoopInput): Promise<WorkflowHandleWithFirstExecutionRunId> {
  const handle = await client.workflow.start('reconcileRankingRunsLoopWorkflow', {
    taskQueue,
    workflowId: `${taskQueue}-${++loops}`,
    args: [input],
    staticSummary: 'Reconciler loop under test',
  });
  started.push(handle);
  return handle;
}

const stateOf = (handle: WorkflowHandle) => handle.query(reconcilerStateQuery) as Promise<ReconcilerLoopState<RankingRunsReconcilePass>>;
const passes = (handle: WorkflowHandle, count: number, timeoutMs = 15_000) =>
  until(
    `${handle.workflowId}: pass ${count}`,
    () => stateOf(handle),
    (state) => (state.lastPass?.number ?? 0) >= count && !state.passRunning,
    timeoutMs,
  );

it('a pass that fails is recorded, and the next interval runs the next one', async () => {
  let failNext = true;
  pass = async () => {
    if (failNext) {
      failNext = false;
      throw new Error('MariaDB refused the read');
    }
    return { checked: 3, interrupted: ['run-1'] };
  };
  const handle = await startLoop({ intervalSeconds: 1 });
  const failed = await passes(handle, 1);
  expect(failed.lastPass).toMatchObject({ number: 1, error: 'MariaDB refused the read' });
  expect(failed.lastPass!.result).toBeUndefined();
  const next = await passes(handle, 2);
  expect(next.lastPass).toMatchObject({ number: 2, result: { checked: 3, interrupted: ['run-1'] } });
  expect(next.lastPass!.error).toBeUndefined();
  expect((await handle.describe()).status.name).toBe('RUNNING');
});

it('pause answers once no pass is in flight and stops the timed passes; runNow still runs one; resume goes on', async () => {
  pass = async () => {
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    return { checked: 1, interrupted: [] };
  };
  // An hour between passes: only the ones asked for run.
  const handle = await startLoop({ intervalSeconds: 3_600 });
  await handle.signal(reconcilerRunNowSignal);
  await until(
    'the pass in flight',
    () => stateOf(handle),
    (state) => state.passRunning,
    10_000,
  );
  const paused = await handle.executeUpdate(reconcilerPauseUpdate);
  // The update waited for the pass that was running.
  expect(paused).toMatchObject({ paused: true, passRunning: false, lastPass: { number: 1, result: { checked: 1 } } });

  // A second between passes now, but paused: none for three seconds.
  await handle.signal(reconcilerSettingsSignal, { intervalSeconds: 1 });
  const callsWhenPaused = calls.get(handle.workflowId);
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  expect(await stateOf(handle)).toMatchObject({ intervalSeconds: 1, paused: true, lastPass: { number: 1 } });
  expect(calls.get(handle.workflowId)).toBe(callsWhenPaused);

  await handle.signal(reconcilerRunNowSignal);
  expect((await passes(handle, 2)).paused).toBe(true);

  pass = async () => ({ checked: 0, interrupted: [] });
  expect(await handle.executeUpdate(reconcilerResumeUpdate)).toMatchObject({ paused: false });
  expect((await passes(handle, 4, 10_000)).lastPass!.number).toBeGreaterThanOrEqual(4);
});

it('an interval outside 1..3600 is ignored', async () => {
  const handle = await startLoop({ intervalSeconds: 3_600 });
  await handle.signal(reconcilerSettingsSignal, { intervalSeconds: 0 });
  await handle.signal(reconcilerSettingsSignal, { intervalSeconds: 1.5 });
  await handle.signal(reconcilerSettingsSignal, { intervalSeconds: 5 });
  await until(
    'interval 5',
    () => stateOf(handle),
    (state) => state.intervalSeconds === 5,
    10_000,
  );
  await handle.signal(reconcilerSettingsSignal, { intervalSeconds: 3_601 });
  await handle.signal(reconcilerRunNowSignal);
  await passes(handle, 1);
  expect((await stateOf(handle)).intervalSeconds).toBe(5);
});

it('continues as new after its cycles, carrying interval, pause and last pass; each run says what it does', async () => {
  pass = async () => ({ checked: 2, interrupted: [] });
  const handle = await startLoop({ intervalSeconds: 1, cyclesPerRun: 2 });
  await passes(handle, 1);
  await handle.signal(reconcilerSettingsSignal, { intervalSeconds: 2 });
  // The second cycle ends the first run.
  const first = client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
  await until(
    'first run continued as new',
    async () => (await first.describe()).status.name,
    (status) => status === 'CONTINUED_AS_NEW',
    15_000,
  );
  const events = (await first.fetchHistory()).events ?? [];
  // Two cycles: a few dozen events, not a day's worth.
  expect(events.length).toBeLessThan(60);

  const afterFirst = await stateOf(handle);
  expect(afterFirst).toMatchObject({ intervalSeconds: 2, paused: false });
  expect(afterFirst.lastPass!.number).toBeGreaterThanOrEqual(2);

  // Paused, then a pass on demand: the second run's cycles end; the third run is still paused.
  await handle.executeUpdate(reconcilerPauseUpdate);
  const runBefore = (await handle.describe()).runId;
  for (let asked = 0; asked < 2; asked += 1) {
    const before = (await stateOf(handle)).lastPass!.number;
    await handle.signal(reconcilerRunNowSignal);
    await passes(handle, before + 1);
  }
  const latest = await until(
    'a later run',
    () => handle.describe(),
    (description) => description.runId !== runBefore,
    15_000,
  );
  expect(latest.status.name).toBe('RUNNING');
  expect(await stateOf(handle)).toMatchObject({ intervalSeconds: 2, paused: true });

  // A continued run has no static summary (continue-as-new carries none): its current details say what it does.
  expect(await latest.staticSummary()).toBeUndefined();
  const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  expect(metadata.currentDetails).toMatch(/^Records ranking runs whose workflow is gone as interrupted, every 2 s \(paused/);
  expect(metadata.currentDetails).toMatch(/Last pass #\d+, .*: checked 2, interrupted 0\./);
});
