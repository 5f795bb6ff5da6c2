import type { Client as ElasticsearchClient } from '@elastic/elasticsearch';
import type { Pool } from 'mysql2/promise';
import { recordPersonsRead, storedFingerprints, upsertRankingRows, type UpsertTimings } from '../db/ranking-store';
import { documentRevision } from '../domain/document-revision';
import type { PersonDocument } from '../domain/person-document';
import { entryFingerprint } from '../domain/ranking-fingerprint';
import { storedScore, toRankingRow, type RankingRow } from '../domain/ranking-row';
import { scorePerson } from '../domain/scoring/score-person';

/** A document as a point-in-time search returns it (with `seq_no_primary_term`). */
export interface ReadHit {
  _index: string;
  _source?: PersonDocument;
  _seq_no?: number | null;
  _primary_term?: number | null;
}

export interface SliceContext {
  runId: string;
  referenceDate: string;
  /** The uuid of each index behind the person index's name, by index name. */
  indexUuids: Map<string, string>;
}

/** Seconds spent on each step of storeSlice, summed over calls (the benchmark's profile). */
export interface SliceTimings {
  score: number;
  fingerprint: number;
  lookup: number;
  rows: number;
  record: number;
  upsert: UpsertTimings;
}

export function emptySliceTimings(): SliceTimings {
  return { score: 0, fingerprint: 0, lookup: 0, rows: 0, record: 0, upsert: { entries: 0, details: 0, seals: 0, transaction: 0 } };
}

/** The uuid of each index behind the person index's name (an alias may name several), by index name. */
export async function uuidsOfIndices(es: ElasticsearchClient, personIndex: string): Promise<Map<string, string>> {
  const settings = await es.indices.getSettings({ index: personIndex, name: 'index.uuid', flat_settings: true });
  return new Map(Object.entries(settings).map(([name, entry]) => [name, String(entry.settings?.['index.uuid'] ?? '')]));
}

const now = () => Number(process.hrtime.bigint()) / 1e9;

/**
 * Scores a slice of documents and stores what changed: the persons read are recorded (the run's end
 * deletes the others), and an entry is written only when its fingerprint differs from the stored one
 * (docs/ranking-job.md, "Unchanged documents"). Idempotent. `read`: documents with a source;
 * `written`: entries written.
 */
export async function storeSlice(pool: Pool, hits: ReadHit[], context: SliceContext, timings?: SliceTimings): Promise<{ read: number; written: number }> {
  let mark = now();
  const lap = (step: Exclude<keyof SliceTimings, 'upsert'>) => {
    const at = now();
    if (timings) timings[step] += at - mark;
    mark = at;
  };
  const documents = hits.filter((hit): hit is ReadHit & { _source: PersonDocument } => hit._source !== undefined);
  const scored = documents.map((hit) => ({ hit, person: storedScore(scorePerson(hit._source, context.referenceDate)) }));
  lap('score');
  const candidates = scored.map(({ hit, person }) => {
    const revision = documentRevision(hit);
    const origin = { index: hit._index, indexUuid: context.indexUuids.get(hit._index) ?? '', revision };
    return { hit, person, revision, fingerprint: entryFingerprint(person, origin) };
  });
  lap('fingerprint');
  const ids = candidates.map(({ person }) => person.id_pessoa);
  const stored = await storedFingerprints(pool, ids);
  lap('lookup');
  const rows: RankingRow[] = [];
  for (const { hit, person, revision, fingerprint } of candidates) {
    if (fingerprint && stored.get(person.id_pessoa)?.equals(fingerprint)) continue;
    rows.push(toRankingRow(person, hit._source, context.runId, revision, fingerprint));
  }
  lap('rows');
  await recordPersonsRead(pool, ids);
  lap('record');
  await upsertRankingRows(pool, rows, timings?.upsert);
  return { read: documents.length, written: rows.length };
}
