import { finishExecution, type Execution } from '../../db/executions-store';
import type { ExecutionDeps } from './deps';
import { lifecycleStreamOf, publishBestEffort } from './live';
import { countFinishedRun } from './run-metrics';

/**
 * Ends a just-stored record that a daily budget refuses (a schedule's firing, a delegation;
 * docs/budgets.md): `error` with the budget's text, and its audience hears `execution_error` at once.
 * No process starts: the workflow that then takes the record finds it ended, and closes it with its
 * report and its notification like any failed run.
 */
export async function endRefusedExecution(deps: ExecutionDeps, execution: Execution, error: string): Promise<void> {
  const finished = await finishExecution(deps.db, execution.id, { status: 'error', error });
  if (!finished?.changed) return;
  countFinishedRun(finished.execution);
  const outcome = { status: 'error', error, costUsd: null, durationMs: null, sessionId: null };
  await publishBestEffort(deps, lifecycleStreamOf(deps, finished.execution)?.finished(outcome));
}
