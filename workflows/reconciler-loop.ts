import {
  ActivityFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  log,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  RECONCILER_CYCLES_PER_RUN,
  RECONCILER_RUN_MS,
  reconcilerPauseUpdate,
  reconcilerResumeUpdate,
  reconcilerRunNowSignal,
  reconcilerSettingsSignal,
  reconcilerStateQuery,
  type ReconcilerLoopInput,
  type ReconcilerLoopState,
  type ReconcilerPassRecord,
} from '../temporal/contracts/reconciler-loop';

/** One reconciler as its loop workflow runs it. */
export interface ReconcilerLoopDefinition<R> {
  /** What a pass does, for the run's current details ("Ends agent executions whose workflow is gone"). */
  what: string;
  /** One pass: the reconciler's activity (one attempt: the next interval is its retry). */
  pass: () => Promise<R>;
  /** What a pass did, in a few words. */
  describePass: (result: R) => string;
}

/** RECONCILE_INTERVAL_SECONDS's bounds (lib/config.ts); anything else is ignored. */
function validInterval(seconds: unknown): number | null {
  return typeof seconds === 'number' && Number.isInteger(seconds) && seconds >= 1 && seconds <= 3_600 ? seconds : null;
}

/**
 * The loop of a reconciler (docs/agent-executions.md, "Reconciler"): waits the interval with a
 * timer, runs a pass, and so on; after about an hour (or RECONCILER_CYCLES_PER_RUN cycles) it
 * continues as new carrying its state, so its history stays small and the Web UI's list gains one
 * run per hour. Passes never overlap: the next wait starts when a pass ends. A pass that fails is
 * recorded and the loop goes on.
 */
export async function runReconcilerLoop<R>(input: ReconcilerLoopInput, definition: ReconcilerLoopDefinition<R>): Promise<never> {
  let intervalSeconds = validInterval(input.intervalSeconds) ?? 60;
  let paused = input.paused ?? false;
  let runNow = input.runNow ?? false;
  let lastPass = (input.lastPass as ReconcilerPassRecord<R> | undefined) ?? null;
  const cyclesPerRun = input.cyclesPerRun ?? RECONCILER_CYCLES_PER_RUN;
  let passRunning = false;
  let cycles = 0;
  // Settings, pause or resume arrived: the wait works out its end again.
  let changed = false;

  const state = (): ReconcilerLoopState<R> => ({ intervalSeconds, paused, passRunning, cyclesThisRun: cycles, lastPass });
  // Continued runs have no static summary (continue-as-new carries no user metadata): these details say it on every run.
  const showDetails = () => {
    const last = lastPass
      ? `Last pass #${lastPass.number}, ${lastPass.finishedAt}: ${lastPass.error !== undefined ? `failed (${lastPass.error})` : definition.describePass(lastPass.result as R)}.`
      : 'No pass yet.';
    setCurrentDetails(
      `${definition.what}, every ${intervalSeconds} s${paused ? ' (paused: signal runNow for a pass, update resume to go on)' : ''}.\n\n${last}`,
    );
  };

  setHandler(reconcilerSettingsSignal, (settings) => {
    const next = validInterval(settings?.intervalSeconds);
    if (next === null) {
      log.warn('reconciler settings ignored: intervalSeconds must be an integer from 1 to 3600', { settings });
      return;
    }
    intervalSeconds = next;
    changed = true;
    showDetails();
  });
  setHandler(reconcilerRunNowSignal, () => {
    runNow = true;
  });
  setHandler(reconcilerPauseUpdate, async () => {
    paused = true;
    changed = true;
    showDetails();
    // Answered once no pass is in flight: after the answer, no pass runs until resume (or runNow).
    await condition(() => !passRunning);
    return state();
  });
  setHandler(reconcilerResumeUpdate, () => {
    paused = false;
    changed = true;
    showDetails();
    return state();
  });
  setHandler(reconcilerStateQuery, state);

  async function runPass(): Promise<void> {
    passRunning = true;
    const number = (lastPass?.number ?? 0) + 1;
    const startedAt = new Date().toISOString();
    try {
      const result = await definition.pass();
      lastPass = { number, startedAt, finishedAt: new Date().toISOString(), result };
    } catch (error) {
      // The loop's own cancellation ends it; any other activity failure is this pass's only.
      if (isCancellation(error) || !(error instanceof ActivityFailure)) throw error;
      const reason = error.cause?.message ?? error.message;
      lastPass = { number, startedAt, finishedAt: new Date().toISOString(), error: reason };
      log.warn('reconciler pass failed; the next interval retries', { number, error: reason });
    } finally {
      passRunning = false;
    }
    showDetails();
  }

  const runStartedAt = Date.now();
  let waitFrom = runStartedAt;
  showDetails();
  for (;;) {
    // The interval counts from the end of the last pass, so a changed interval (or a worker that
    // restarts often and sends its settings) never postpones the next pass beyond it.
    for (;;) {
      const remaining = waitFrom + intervalSeconds * 1_000 - Date.now();
      if (runNow || (!paused && remaining <= 0)) break;
      changed = false;
      if (paused) await condition(() => runNow || changed);
      else await condition(() => runNow || changed, remaining, { summary: `next pass in ${Math.ceil(remaining / 1_000)} s` });
    }
    cycles += 1;
    runNow = false;
    await runPass();
    waitFrom = Date.now();
    if (Date.now() - runStartedAt >= RECONCILER_RUN_MS || cycles >= cyclesPerRun || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      return continueAsNew<(next: ReconcilerLoopInput) => Promise<never>>({
        intervalSeconds,
        paused,
        runNow,
        ...(lastPass ? { lastPass } : {}),
        ...(input.cyclesPerRun !== undefined ? { cyclesPerRun: input.cyclesPerRun } : {}),
      });
    }
  }
}
