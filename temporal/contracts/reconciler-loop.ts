import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';

/**
 * The contract of the reconcilers' loop workflows (workflows/reconciler-loop.ts;
 * temporal/reconciler-loops.ts starts them): one long-lived workflow per reconciler, with a fixed
 * workflow id, that runs a pass every interval and continues as new about every hour. Workflow-safe.
 */

export interface ReconcilerLoopInput {
  /** Seconds between the end of a pass and the start of the next (RECONCILE_INTERVAL_SECONDS). */
  intervalSeconds: number;
  /** Carried across continue-as-new: a paused loop skips its timed passes (a `runNow` still runs one). */
  paused?: boolean;
  /** Carried across continue-as-new, so the `state` query always has the latest pass. */
  lastPass?: ReconcilerPassRecord;
  /** A `runNow` that arrived while the previous run was continuing as new. */
  runNow?: boolean;
  /** Cycles (a wait and its pass) before the run continues as new; default RECONCILER_CYCLES_PER_RUN. The history recorder sets a few. */
  cyclesPerRun?: number;
}

/** One pass as the loop saw it: its activity's result, or why it failed (the next interval is its retry). */
export interface ReconcilerPassRecord<R = unknown> {
  /** Counted across the loop's runs (continue-as-new carries it); restarts at 1 when the loop is started anew. */
  number: number;
  /** ISO times, the workflow's clock (the workflow task's time). */
  startedAt: string;
  finishedAt: string;
  result?: R;
  error?: string;
}

/** What the `state` query (and the `pause` / `resume` updates) answer. */
export interface ReconcilerLoopState<R = unknown> {
  intervalSeconds: number;
  paused: boolean;
  /** A pass's activity is scheduled or running. */
  passRunning: boolean;
  /** Cycles of this run (continue-as-new starts again at 0). */
  cyclesThisRun: number;
  lastPass: ReconcilerPassRecord<R> | null;
}

/** A run continues as new after this long, or RECONCILER_CYCLES_PER_RUN cycles, whichever comes first. */
export const RECONCILER_RUN_MS = 60 * 60 * 1_000;
/** About 14 history events a cycle: the cap keeps a run's history near 3 000 events even at a 1 s interval. */
export const RECONCILER_CYCLES_PER_RUN = 240;

/** Sent by every worker of the queue at start (signal-with-start): a changed RECONCILE_INTERVAL_SECONDS reaches a running loop. */
export const reconcilerSettingsSignal = defineSignal<[{ intervalSeconds: number }]>('settings');
/** A pass now (after the one in flight, if any), paused or not: what an operator sends by hand. */
export const reconcilerRunNowSignal = defineSignal('runNow');
/** Stops the timed passes; answers once no pass is in flight. Carried across continue-as-new. */
export const reconcilerPauseUpdate = defineUpdate<ReconcilerLoopState, []>('pause');
export const reconcilerResumeUpdate = defineUpdate<ReconcilerLoopState, []>('resume');
export const reconcilerStateQuery = defineQuery<ReconcilerLoopState>('state');
