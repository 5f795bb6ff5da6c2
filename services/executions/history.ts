import {
  clearExecutionHistory as removeFinished,
  countActiveExecutions as countActive,
  deleteExecution as removeExecution,
  getExecution,
  iterateExecutionHistory,
  listExecutionHistory,
  publicExecution,
  recentExecutions as storedRecent,
  type ExecutionSummary,
  type HistoryFilters,
  type HistoryPage,
  type PageRequest,
  type PublicExecution,
} from '../../db/executions-store';
import { ConflictError, NotFoundError } from '../errors';
import type { ExecutionDeps } from './deps';

/** The execution history: recent, paginated with filters, detail, delete, clear, export (docs/executions.md). */

type HistoryDeps = Pick<ExecutionDeps, 'db'>;

export function recentExecutions(deps: HistoryDeps, limit: number): Promise<ExecutionSummary[]> {
  return storedRecent(deps.db, limit);
}

export function executionHistory(deps: HistoryDeps, filters: HistoryFilters, page: PageRequest): Promise<HistoryPage> {
  return listExecutionHistory(deps.db, filters, page);
}

/** The records matching `filters` in batches (memory stays one batch however large the table). */
export function exportExecutionHistory(deps: HistoryDeps, filters: HistoryFilters): AsyncGenerator<ExecutionSummary[]> {
  return iterateExecutionHistory(deps.db, filters);
}

/** The record as answered (no client id). */
export async function executionDetail(deps: HistoryDeps, id: string): Promise<PublicExecution> {
  const execution = await getExecution(deps.db, id);
  if (!execution) throw new NotFoundError(`execution ${id} not found`);
  return publicExecution(execution);
}

/** ConflictError while it is active (its workflow still writes to it). */
export async function deleteExecution(deps: HistoryDeps, id: string): Promise<void> {
  const outcome = await removeExecution(deps.db, id);
  if (outcome === 'not-found') throw new NotFoundError(`execution ${id} not found`);
  if (outcome === 'active') throw new ConflictError(`execution ${id} is still active: cancel it first`);
}

/** Deletes every finished record; queued and running ones stay. */
export async function clearExecutionHistory(deps: HistoryDeps): Promise<void> {
  await removeFinished(deps.db);
}

export function countActiveExecutions(deps: HistoryDeps): Promise<number> {
  return countActive(deps.db);
}
