import { and, asc, inArray, isNotNull, lt } from 'drizzle-orm';
import { ACTIVE_STATUSES } from '../domain/execution-status';
import type { Database } from './index';
import { executions, uploads } from './schema';

/** Files received by POST /uploads (docs/uploads.md). */

export type Upload = typeof uploads.$inferSelect;

/** Stores one request's files, all or none. */
export async function insertUploads(db: Database, rows: Upload[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insert(uploads).values(rows);
}

/** The stored uploads with one of these exact paths (at most one each: every path is new). */
export async function uploadsByPath(db: Database, paths: readonly string[]): Promise<Upload[]> {
  if (paths.length === 0) return [];
  return db
    .select()
    .from(uploads)
    .where(inArray(uploads.path, [...new Set(paths)]));
}

/** The oldest `limit` uploads stored before `before`: one batch of a retention pass. */
export async function uploadsStoredBefore(db: Database, before: Date, limit: number): Promise<Upload[]> {
  return db.select().from(uploads).where(lt(uploads.createdAt, before)).orderBy(asc(uploads.createdAt), asc(uploads.id)).limit(limit);
}

export async function deleteUploads(db: Database, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.delete(uploads).where(inArray(uploads.id, [...ids]));
}

/**
 * The context-file paths named by executions that are not final (queued, running, ...): a retention
 * pass leaves those files alone. Few records are active at once, so they are read whole.
 */
export async function contextFilePathsOfActiveExecutions(db: Database): Promise<Set<string>> {
  const rows = await db
    .select({ contextFiles: executions.contextFiles })
    .from(executions)
    .where(and(inArray(executions.status, [...ACTIVE_STATUSES]), isNotNull(executions.contextFiles)));
  return new Set(rows.flatMap((row) => (row.contextFiles ?? []).map((file) => file.path)));
}
