import { rankingJobStartOptions } from '../../temporal/ranking-job';
import { Client } from '@temporalio/client';
import type { Pool } from 'mysql2/promise';
import { clearRanking } from '../../db/ranking-store';
import { PERSON_INDEX_BASE } from '../../domain/person-index';
import type { PersonDocument } from '../../domain/person-document';
import { scorePerson, type ScoredPerson } from '../../domain/scoring/score-person';
import { config } from '../../lib/config';
import { createElasticsearch, indexName } from '../../lib/elasticsearch';
import { generatePersons } from '../../scripts/generate-persons';
import { generatePersonFor } from '../../scripts/sample-data/generate-person';
import {
  RANKING_JOB_WORKFLOW,
  type RankingJobInput,
  type RankingJobResult,
  type RankingJobWorkflow,
} from '../../temporal/contracts/ranking-job';
import { connectTemporal } from '../../temporal/connection';

export const personIndex = indexName(config.elasticsearch, PERSON_INDEX_BASE);

/** The generator's reference date for seeded data: a fixed day, so expectations do not move. */
export const SEED_DATE = new Date(Date.UTC(2026, 0, 15));

/** Fills the test person index with `count` generated persons (ids 1..count), replacing it. */
export async function seedPersonIndex(count: number, seed: number): Promise<void> {
  const es = createElasticsearch(config.elasticsearch);
  try {
    await generatePersons({ es, index: personIndex, count, seed, recreate: true, referenceDate: SEED_DATE });
  } finally {
    await es.close();
  }
}

/** Writes `documents` to the test person index (each by its id_pessoa) and makes them visible to searches at once. */
export async function indexPersonDocuments(documents: PersonDocument[]): Promise<void> {
  const es = createElasticsearch(config.elasticsearch);
  try {
    const operations = documents.flatMap((doc) => [{ index: { _index: personIndex, _id: String(doc.id_pessoa) } }, doc]);
    const result = await es.bulk({ operations, refresh: true });
    expect(result.errors).toBe(false);
  } finally {
    await es.close();
  }
}

export function seededDocument(seed: number, id: number): PersonDocument {
  return generatePersonFor(seed, id, SEED_DATE);
}

/** The run's reference date as the workflow computes it (UTC day of the start). */
export function runReferenceDate(): string {
  return new Date().toISOString().slice(0, 10);
}

/** Expected ranking order (docs/ranking-storage.md tie-break) of ids 1..count, computed with the pure scorer. */
export function expectedRanking(seed: number, ids: number[], referenceDate: string): ScoredPerson[] {
  const blocks = ['pontuacao_total', 'bloco_a', 'bloco_b', 'bloco_c', 'bloco_d', 'bloco_e'] as const;
  return ids
    .map((id) => scorePerson(seededDocument(seed, id), referenceDate))
    .sort((x, y) => {
      for (const block of blocks) if (x[block] !== y[block]) return y[block] - x[block];
      return x.id_pessoa - y.id_pessoa;
    });
}

export async function withTemporalClient<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const connection = await connectTemporal(config.temporal);
  try {
    return await work(new Client({ connection, namespace: config.temporal.namespace }));
  } finally {
    await connection.close();
  }
}

/** Runs the ranking job to completion through Temporal (a worker must be polling `ranking`). */
export function runRankingJob(input: RankingJobInput): Promise<RankingJobResult> {
  return withTemporalClient((client) => client.workflow.execute<RankingJobWorkflow>(RANKING_JOB_WORKFLOW, rankingJobStartOptions(input)));
}

export async function emptyRanking(pool: Pool): Promise<void> {
  await clearRanking(pool);
  await pool.query('DELETE FROM ranking_job_runs');
}

export async function storedPositions(pool: Pool): Promise<Array<{ id_pessoa: number; posicao: number }>> {
  const [rows] = await pool.query('SELECT id_pessoa, posicao FROM ranking_entries ORDER BY posicao');
  return rows as Array<{ id_pessoa: number; posicao: number }>;
}
