import { and, asc, eq, gt, inArray, or } from 'drizzle-orm';
import { ACTIVE_STATUSES } from '../domain/execution-status';
import type { Execution } from './executions-store';
import type { Database } from './index';
import { executions } from './schema';

/** Where a walk over the unfinished records stopped: the last record seen (createdAt, then id). */
export interface UnfinishedCursor {
  createdAt: Date;
  id: string;
}

export type UnfinishedExecution = Pick<Execution, 'id' | 'kind' | 'status' | 'createdAt'>;

/**
 * The next `limit` execution records that are not final (ACTIVE_STATUSES) after `after`, oldest
 * first: one batch of the reconciler's walk (docs/agent-executions.md, "Reconciler"). Agent records
 * (steps included) have the workflow `agent-execution-<id>`, pipeline runs `pipeline-execution-<id>`.
 */
export async function unfinishedExecutions(db: Database, after: UnfinishedCursor | null, limit: number): Promise<UnfinishedExecution[]> {
  const past = after
    ? or(gt(executions.createdAt, after.createdAt), and(eq(executions.createdAt, after.createdAt), gt(executions.id, after.id)))
    : undefined;
  return db
    .select({ id: executions.id, kind: executions.kind, status: executions.status, createdAt: executions.createdAt })
    .from(executions)
    .where(and(inArray(executions.status, [...ACTIVE_STATUSES]), past))
    .orderBy(asc(executions.createdAt), asc(executions.id))
    .limit(limit);
}
