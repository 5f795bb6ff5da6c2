import { proxyActivities } from '@temporalio/workflow';
import type { RankingActivities, ScoreBatchInput } from '../../activities/ranking';
import { grouped } from '../../temporal/contracts/summaries';

const { scoreBatch } = proxyActivities<RankingActivities>({
  startToCloseTimeout: '5 minutes',
  // A worker killed mid-batch is noticed within the heartbeat timeout and the batch is retried
  // elsewhere; the upsert by id_pessoa makes the retry harmless.
  heartbeatTimeout: '15 seconds',
  retry: { maximumAttempts: 10, initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** One batch of the ranking job: read up to batchSize documents after the cursor, score, store what changed. */
export async function rankingBatchWorkflow(input: ScoreBatchInput): Promise<{ count: number; written?: number }> {
  return scoreBatch.executeWithOptions({ summary: `score and store up to ${grouped(input.batchSize)} documents` }, [input]);
}
