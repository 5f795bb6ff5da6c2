import { rankingJobStartOptions } from '../temporal/ranking-job';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { rankingTotals } from '../db/ranking-queries';
import { createDatabase } from '../db';
import { PERSON_INDEX_BASE } from '../domain/person-index';
import { config } from '../lib/config';
import { createElasticsearch, indexName } from '../lib/elasticsearch';
import { closeTemporalClient, createTemporalClient } from '../temporal/client';
import { ensureNamespace } from '../temporal/namespace';
import { RANKING_JOB_WORKFLOW, type RankingJobWorkflow } from '../temporal/contracts/ranking-job';
import { generatePersons } from './generate-persons';

/**
 * Run by `npm start` before the service: so a newcomer sees a ranking, loads SAMPLE_PERSONS
 * generated persons when the person index is empty, and queues the first ranking job when the
 * ranking is empty. The job starts as soon as the ranking worker of the service polls.
 */
const SAMPLE_SEED = 42;

async function personCount(es: ReturnType<typeof createElasticsearch>, index: string): Promise<number> {
  if (!(await es.indices.exists({ index }))) return 0;
  return (await es.count({ index })).count;
}

async function main(): Promise<void> {
  const sampleSize = Number(process.env.SAMPLE_PERSONS ?? 20_000);
  if (!Number.isSafeInteger(sampleSize) || sampleSize < 0) throw new Error(`SAMPLE_PERSONS must be a non-negative integer`);
  const index = indexName(config.elasticsearch, PERSON_INDEX_BASE);
  const es = createElasticsearch(config.elasticsearch, 120_000);
  const database = createDatabase(config.mysql);
  const temporal = createTemporalClient(config.temporal);
  try {
    await ensureNamespace(config.temporal, config.temporal.namespace);
    const existing = await personCount(es, index);
    if (existing > 0 || sampleSize === 0) {
      console.log(`sample: ${index} holds ${existing} persons; nothing generated`);
    } else {
      const result = await generatePersons({ es, index, count: sampleSize, seed: SAMPLE_SEED });
      console.log(`sample: generated ${result.count} persons into ${index} in ${result.seconds.toFixed(1)} s`);
    }
    if ((await rankingTotals(database.pool)).total > 0) {
      console.log('sample: the ranking is already processed');
      return;
    }
    try {
      await temporal.client.workflow.start<RankingJobWorkflow>(RANKING_JOB_WORKFLOW, rankingJobStartOptions({ origem: 'manual' }));
      console.log('sample: first ranking job queued; follow GET /api/v1/ranking/status');
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      console.log('sample: a ranking job is already running');
    }
  } finally {
    await Promise.allSettled([es.close(), database.pool.end(), closeTemporalClient(temporal)]);
  }
}

main().catch((error: unknown) => {
  console.error(`prepare-sample: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
