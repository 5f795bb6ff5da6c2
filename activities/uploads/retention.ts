import type { Database } from '../../db';
import type { Logger } from '../../lib/logger';
import { removeExpiredUploads, type UploadsRetentionPass } from '../../services/uploads';

/** The uploads retention's activity (docs/uploads.md): one pass of the use case. */
export function createUploadsRetentionActivities(deps: { db: Database; logger: Logger; retentionHours: number }) {
  return {
    async removeExpiredUploads(): Promise<UploadsRetentionPass> {
      return removeExpiredUploads(deps, deps.retentionHours);
    },
  };
}

export type { UploadsRetentionPass };
export type UploadsRetentionActivities = ReturnType<typeof createUploadsRetentionActivities>;
