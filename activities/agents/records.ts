import { ApplicationFailure } from '@temporalio/activity';
import type { Database } from '../../db';
import { getExecution, type Execution } from '../../db/executions-store';
import { FAILURE_TYPES } from '../../domain/failure-types';

/** The failure of an activity whose record is gone: no attempt can bring it back (the workflows list it as non-retryable). */
export function executionGone(executionId: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(`execution ${executionId} not found`, FAILURE_TYPES.executionNotFound);
}

/** The record an execution's activity works on; ExecutionNotFound when it is gone. */
export async function existingRecord(db: Database, executionId: string): Promise<Execution> {
  const record = await getExecution(db, executionId);
  if (!record) throw executionGone(executionId);
  return record;
}
