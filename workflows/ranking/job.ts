import {
  ContinueAsNew,
  continueAsNew,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  startChild,
  workflowInfo,
  CancellationScope,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import type { RankingActivities, SortCursor } from '../../activities/ranking';
import { rankingBatchWorkflow } from './batch';
import { grouped, rankingBatchSummary } from '../../temporal/contracts/summaries';
import {
  progressQuery,
  RANKING_JOB_DEFAULTS,
  type RankingJobInput,
  type RankingJobResult,
  type RankingPhase,
  type RankingProgress,
} from '../../temporal/contracts/ranking-job';

/** State carried across continue-as-new: cursors and counters only, never documents. */
interface Carry {
  runId: string;
  referenceDate: string;
  startedAt: string;
  pitId: string;
  pending: SortCursor[];
  nextCursor: SortCursor;
  exhausted: boolean;
  processed: number;
  total: number;
  batchesStarted: number;
  /** Whether the run starts its children together (absent: carried by code older than PARALLEL_STARTS_PATCH). */
  parallelStarts?: boolean;
}

/** Runs started before PARALLEL_STARTS_PATCH replay, and continue as new, as they began. */
const DEFAULTS_BEFORE_PARALLEL_STARTS = { batchSize: 2_000, maxChildrenInFlight: 4, batchesPerExecution: 200 };
export const PARALLEL_STARTS_PATCH = 'ranking-parallel-starts';
const BATCHES_PLANNED_AT_ONCE = 10;
const PROGRESS_EVERY_BATCHES = 5;

const acts = proxyActivities<RankingActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 10, initialInterval: '1 second', maximumInterval: '30 seconds' },
});
// Positions and statistics run once over the whole table: give them room.
const finalActs = proxyActivities<RankingActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { maximumAttempts: 5, initialInterval: '2 seconds' },
});
const local = proxyLocalActivities<RankingActivities>({ startToCloseTimeout: '30 seconds' });

/**
 * The ranking job (workflow id `ranking_job`): reads the whole index through one point-in-time,
 * scores and stores it in batches run by child workflows (a bounded number at once), continues as
 * new every `batchesPerExecution` batches, then assigns positions and stores the statistics.
 */
export async function rankingJobWorkflow(input: RankingJobInput = {}, carried?: Carry): Promise<RankingJobResult> {
  const parallelStarts = carried ? carried.parallelStarts === true : patched(PARALLEL_STARTS_PATCH);
  const options = { ...(parallelStarts ? RANKING_JOB_DEFAULTS : DEFAULTS_BEFORE_PARALLEL_STARTS), ...input };
  const origem = input.origem ?? 'manual';
  const limparAntes = input.limparAntes ?? false;
  let phase: RankingPhase = carried ? 'pontuando' : 'preparando';
  const state: Carry = carried ?? {
    runId: workflowInfo().runId,
    referenceDate: input.referenceDate ?? new Date().toISOString().slice(0, 10),
    startedAt: new Date().toISOString(),
    pitId: '',
    pending: [],
    nextCursor: null,
    exhausted: false,
    processed: 0,
    total: 0,
    batchesStarted: 0,
    parallelStarts,
  };

  setHandler(progressQuery, (): RankingProgress => ({
    runId: state.runId,
    origem,
    limparAntes,
    fase: phase,
    processados: state.processed,
    total: state.total,
    iniciadoEm: state.startedAt,
  }));
  const saveProgress = () => local.recordProgress({ runId: state.runId, fase: phase, processados: state.processed, total: state.total });

  try {
    if (!carried) {
      await acts.startRun.executeWithOptions({ summary: `record the run (${origem})` }, [
        { runId: state.runId, origem, limparAntes, startedAt: state.startedAt },
      ]);
      const snapshot = await acts.openIndexSnapshot.executeWithOptions({ summary: 'open a point-in-time of the index' }, []);
      state.pitId = snapshot.pitId;
      state.total = snapshot.total;
      phase = 'pontuando';
      await saveProgress();
    }

    let startedThisExecution = 0;
    const inFlight = new Map<number, Promise<{ batch: number; count: number }>>();
    /** Starts a batch's child and counts it in flight at once; the promise settles when the child has started. */
    const startBatch = (after: SortCursor): Promise<unknown> => {
      const batch = state.batchesStarted;
      state.batchesStarted += 1;
      startedThisExecution += 1;
      const started: Promise<ChildWorkflowHandle<typeof rankingBatchWorkflow>> = startChild(rankingBatchWorkflow, {
        workflowId: `${workflowInfo().workflowId}-${state.runId}-lote-${batch}`,
        args: [{ pitId: state.pitId, after, batchSize: options.batchSize, runId: state.runId, referenceDate: state.referenceDate }],
        // "ranking batch 8 of 150 (documents 14 001-16 000)": positions in the index's sort order, as planned.
        staticSummary: rankingBatchSummary(batch, options.batchSize, state.total),
      });
      const finished = started.then((child) => child.result()).then((result) => ({ batch, count: result.count }));
      // Raced below; a failure meanwhile (while a plan is awaited) must not count as unhandled.
      finished.catch(() => undefined);
      inFlight.set(batch, finished);
      return started;
    };

    // Stop starting batches at the execution's quota, or earlier if the server finds the history large.
    const mayStartMore = () => startedThisExecution < options.batchesPerExecution && !workflowInfo().continueAsNewSuggested;
    for (;;) {
      while (inFlight.size < options.maxChildrenInFlight && mayStartMore()) {
        if (state.pending.length === 0 && !state.exhausted) {
          const plan = await acts.planBatches.executeWithOptions(
            { summary: `plan batches ${grouped(state.batchesStarted + 1)} to ${grouped(state.batchesStarted + BATCHES_PLANNED_AT_ONCE)}` },
            [
              {
                pitId: state.pitId,
                after: state.nextCursor,
                batchSize: options.batchSize,
                batches: BATCHES_PLANNED_AT_ONCE,
              },
            ],
          );
          state.pitId = plan.pitId;
          state.pending.push(...plan.starts);
          state.nextCursor = plan.next;
          state.exhausted = plan.exhausted;
        }
        const after = state.pending.shift();
        if (after === undefined) break;
        // Together: the starts of one workflow task go out as one batch of commands.
        if (parallelStarts) void startBatch(after);
        else await startBatch(after);
      }
      if (inFlight.size === 0) break;
      const done = await Promise.race(inFlight.values());
      inFlight.delete(done.batch);
      state.processed += done.count;
      if (done.batch % PROGRESS_EVERY_BATCHES === 0) await saveProgress();
    }

    const moreToDo = state.pending.length > 0 || !state.exhausted;
    if (moreToDo) {
      await saveProgress();
      await continueAsNew<typeof rankingJobWorkflow>(input, state);
    }

    phase = 'posicionando';
    await saveProgress();
    await finalActs.finishRun.executeWithOptions({ summary: `positions and statistics of ${grouped(state.processed)} documents` }, [
      { runId: state.runId, processados: state.processed, pitId: state.pitId, referenceDate: state.referenceDate },
    ]);
    phase = 'concluido';
    return { runId: state.runId, processados: state.processed, total: state.total };
  } catch (error) {
    if (error instanceof ContinueAsNew) throw error;
    const estado = isCancellation(error) ? 'cancelado' : 'falhou';
    await CancellationScope.nonCancellable(() =>
      acts.recordRunFailure({ runId: state.runId, estado, fase: phase, erro: describe(error), pitId: state.pitId }),
    );
    throw error;
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message}: ${describe(cause)}` : error.message;
}
