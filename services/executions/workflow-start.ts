import { finishExecution, type Execution } from '../../db/executions-store';
import { ENGINE_UNAVAILABLE_ERROR } from '../../domain/execution-errors';
import type { ExecutionLiveStream } from '../../lib/live-output';
import { UnavailableError } from '../errors';
import type { ExecutionDeps } from './deps';
import { publishBestEffort } from './live';
import { countFinishedRun } from './run-metrics';

/**
 * Starts the workflow of a record just stored (`start`, a client call of temporal/). When Temporal
 * refuses or cannot be reached, nothing will ever run the record: it ends `error`
 * (ENGINE_UNAVAILABLE_ERROR), its client hears `execution_error` when it has a live stream, and the
 * caller gets UnavailableError with `refusal` (503). The one place that compensation is written.
 */
export async function startRecordWorkflow(
  deps: Pick<ExecutionDeps, 'db' | 'logger'>,
  record: Pick<Execution, 'id' | 'sessionId'>,
  start: () => Promise<unknown>,
  refusal: string,
  live: ExecutionLiveStream | null = null,
): Promise<void> {
  try {
    await start();
  } catch (error) {
    deps.logger.error({ err: error, executionId: record.id }, 'workflow of a stored record not started');
    const finished = await finishExecution(deps.db, record.id, { status: 'error', error: ENGINE_UNAVAILABLE_ERROR });
    if (finished?.changed) countFinishedRun(finished.execution);
    await publishBestEffort(
      deps,
      live?.finished({ status: 'error', costUsd: null, durationMs: null, sessionId: record.sessionId, error: ENGINE_UNAVAILABLE_ERROR }),
    );
    throw new UnavailableError(refusal);
  }
}
