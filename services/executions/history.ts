import { z } from 'zod';
import {
  clearExecutionHistory as removeFinished,
  countActiveExecutions as countActive,
  deleteExecution as removeExecution,
  getExecution,
  iterateExecutionHistory,
  listExecutionHistory,
  recentExecutions as storedRecent,
  type ExecutionSummary,
  type HistoryFilters,
  type PageRequest,
} from '../../db/executions-store';
import { attemptsOf } from '../../db/execution-attempts';
import { ConflictError, executionNotFound } from '../errors';
import { runStepRecords } from '../pipelines/run-steps';
import type { ExecutionDeps } from './deps';
import { executionDetailView, executionView, executionViewSchema, type ExecutionDetailView, type ExecutionView } from './view';

/** The execution history: recent, paginated with filters, detail, delete, clear, export (docs/executions.md). */

type HistoryDeps = Pick<ExecutionDeps, 'db'>;

export const historyPageViewSchema = z
  .object({
    items: z.array(executionViewSchema).meta({ description: 'The page, newest first (without the output)' }),
    total: z.number().int().meta({ description: 'Records matching the filters, all pages' }),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .meta({ id: 'ExecutionHistoryPage' });
export type HistoryPageView = z.infer<typeof historyPageViewSchema>;

/** The newest `limit` records, newest first. */
export async function recentExecutions(deps: HistoryDeps, limit: number): Promise<ExecutionView[]> {
  return (await storedRecent(deps.db, limit)).map(executionView);
}

export async function executionHistory(deps: HistoryDeps, filters: HistoryFilters, page: PageRequest): Promise<HistoryPageView> {
  const stored = await listExecutionHistory(deps.db, filters, page);
  return { ...stored, items: stored.items.map(executionView) };
}

/** The records matching `filters` in batches (memory stays one batch however large the table). */
export function exportExecutionHistory(deps: HistoryDeps, filters: HistoryFilters): AsyncGenerator<ExecutionSummary[]> {
  return iterateExecutionHistory(deps.db, filters);
}

/** The record with its output (no client id). */
export async function executionDetail(deps: HistoryDeps, id: string): Promise<ExecutionDetailView> {
  const execution = await getExecution(deps.db, id);
  if (!execution) throw executionNotFound(id);
  // A pipeline run's detail lists its steps (contract 3.8), the resumed runs' earlier ones included; an agent run's its attempts.
  if (execution.kind === 'pipeline') return executionDetailView(execution, { steps: await runStepRecords(deps.db, execution) });
  return executionDetailView(execution, { attempts: await attemptsOf(deps.db, execution.id) });
}

/** ConflictError while it is active (its workflow still writes to it). */
export async function deleteExecution(deps: HistoryDeps, id: string): Promise<void> {
  const outcome = await removeExecution(deps.db, id);
  if (outcome === 'not-found') throw executionNotFound(id);
  if (outcome === 'active') throw new ConflictError(`A execução ${id} ainda está ativa: cancele-a antes`);
}

/** Deletes every finished record; active ones stay. */
export async function clearExecutionHistory(deps: HistoryDeps): Promise<void> {
  await removeFinished(deps.db);
}

export function countActiveExecutions(deps: HistoryDeps): Promise<number> {
  return countActive(deps.db);
}
