import type { Pool } from 'mysql2/promise';
import { storeRenderedPages, type PageRendering } from '../db/ranking-pages';
import { anyPagePending, assignPositions, deletePersonsNotRead } from '../db/ranking-store';
import { storeStatisticsSnapshot } from '../db/ranking-statistics';
import { monotonicSeconds } from '../lib/monotonic-clock';

/** Seconds spent on each step of settleRanking (the benchmark's profile). */
export interface SettleTimings {
  stale: number;
  positions: number;
  pages: number;
  statistics: number;
}

/**
 * The end of a run, once every batch is stored: drops the persons the run did not read (gone from
 * the index), assigns positions when an entry was written or removed (or is pending since a run that
 * failed), renders the default pages where they changed, and stores the statistics, which makes the
 * pages current. `progress` is called between steps and pages; `timings`, when given, gets each
 * step's seconds. Returns how many persons were removed and when the statistics were taken.
 */
export async function settleRanking(
  pool: Pool,
  rendering: PageRendering,
  progress: (step: string) => void = () => undefined,
  timings?: SettleTimings,
): Promise<{ removed: number; finishedAt: Date }> {
  let mark = monotonicSeconds();
  const lap = (step: keyof SettleTimings) => {
    const at = monotonicSeconds();
    if (timings) timings[step] += at - mark;
    mark = at;
    progress(step);
  };
  const removed = await deletePersonsNotRead(pool);
  lap('stale');
  if (removed > 0 || (await anyPagePending(pool))) await assignPositions(pool);
  lap('positions');
  await storeRenderedPages(pool, rendering, () => progress('pages'));
  lap('pages');
  const finishedAt = new Date();
  await storeStatisticsSnapshot(pool, rendering.runId, finishedAt, rendering.referenceDate);
  lap('statistics');
  return { removed, finishedAt };
}
