import { proxyActivities } from '@temporalio/workflow';
import type { UploadsRetentionActivities, UploadsRetentionPass } from '../../activities/uploads/retention';

// One attempt: the Schedule's next pass is the retry (a pass only removes what is expired and unused).
const acts = proxyActivities<UploadsRetentionActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 1 },
});

/** Started by the Schedule `uploads-retention` every hour: removes the expired uploads (docs/uploads.md). */
export async function removeExpiredUploadsWorkflow(): Promise<UploadsRetentionPass> {
  return acts.removeExpiredUploads();
}
