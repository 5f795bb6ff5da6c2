import fs from 'node:fs/promises';
import path from 'node:path';
import type { Database } from '../../db';
import { contextFilePathsOfActiveExecutions, deleteUploads, uploadsStoredBefore } from '../../db/uploads-store';
import type { Logger } from '../../lib/logger';

/** What one retention pass did. */
export interface UploadsRetentionPass {
  /** Uploads removed (row and file). */
  removed: number;
  /** Expired uploads kept because an execution that is not final names them. */
  kept: number;
}

const BATCH = 200;

/**
 * Removes the uploads stored more than `retentionHours` before `now` (docs/uploads.md): the file, its
 * batch directory once empty, then the row. An upload named by a queued or running execution (any
 * status that is not final) is kept for a later pass. A file already gone is no failure.
 */
export async function removeExpiredUploads(
  deps: { db: Database; logger: Logger },
  retentionHours: number,
  now: Date = new Date(),
): Promise<UploadsRetentionPass> {
  const before = new Date(now.getTime() - retentionHours * 3_600_000);
  const inUse = await contextFilePathsOfActiveExecutions(deps.db);
  const pass: UploadsRetentionPass = { removed: 0, kept: 0 };
  // Kept rows stay older than `before`: each batch asks for as many more rows as it kept so far.
  const keptIds = new Set<string>();
  for (;;) {
    const limit = BATCH + keptIds.size;
    const rows = await uploadsStoredBefore(deps.db, before, limit);
    const removed: string[] = [];
    for (const row of rows.filter((candidate) => !keptIds.has(candidate.id))) {
      if (inUse.has(row.path)) {
        keptIds.add(row.id);
        continue;
      }
      await fs.rm(row.path, { force: true });
      // The batch directory goes with its last file; one still holding files stays (ENOTEMPTY).
      await fs.rmdir(path.dirname(row.path)).catch(() => undefined);
      removed.push(row.id);
    }
    await deleteUploads(deps.db, removed);
    pass.removed += removed.length;
    if (rows.length < limit) break;
  }
  pass.kept = keptIds.size;
  if (pass.removed > 0 || pass.kept > 0) deps.logger.info({ ...pass, retentionHours }, 'expired uploads removed');
  return pass;
}
