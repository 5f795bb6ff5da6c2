import { listSchedules as storedSchedules } from '../../db/schedules-store';
import { deleteAgentSchedule, listAgentScheduleIds, upsertAgentSchedule } from '../../temporal/agent-schedules';
import { definitionOf, type ScheduleDeps } from './schedules';

/** Rows read in one pass: far above SCHEDULES_MAX, so rows written before a lower bound keep their Schedule. */
const RECONCILED_ROWS_MAX = 10_000;

export interface ScheduleReconciliation {
  created: number;
  updated: number;
  unchanged: number;
  deleted: number;
}

/**
 * Brings Temporal in line with the `schedules` table (when the agents worker starts;
 * docs/tasks-schedules.md, "Reconcile"): every row gets its Schedule (a missing one is created, a
 * differing one updated), and every `agent-schedule-*` Schedule without a row is deleted. Schedules
 * without the prefix are never touched. Temporal's list is eventually consistent: a Schedule created
 * a moment ago may only be seen by the next pass, which is harmless (it has a row).
 */
export async function reconcileSchedules(deps: ScheduleDeps): Promise<ScheduleReconciliation> {
  const rows = await storedSchedules(deps.db, RECONCILED_ROWS_MAX);
  const outcome: ScheduleReconciliation = { created: 0, updated: 0, unchanged: 0, deleted: 0 };
  for (const row of rows) outcome[await upsertAgentSchedule(deps.temporal, definitionOf(deps, row))]++;
  const known = new Set(rows.map((row) => row.id));
  for (const id of await listAgentScheduleIds(deps.temporal)) {
    if (known.has(id)) continue;
    await deleteAgentSchedule(deps.temporal, id);
    outcome.deleted++;
  }
  return outcome;
}
