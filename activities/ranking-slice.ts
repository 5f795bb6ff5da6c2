import type { Client as ElasticsearchClient } from '@elastic/elasticsearch';
import type { Pool } from 'mysql2/promise';
import { markVerified, recordPersonsRead, storedProvenance, upsertRankingRows, type UpsertTimings } from '../db/ranking-store';
import { documentRevision } from '../domain/document-revision';
import type { PersonDocument } from '../domain/person-document';
import { documentKey, entryFingerprint } from '../domain/ranking-fingerprint';
import { storedScore, toRankingRow, type RankingRow } from '../domain/ranking-row';
import { scorePerson } from '../domain/scoring/score-person';
import { monotonicSeconds } from '../lib/monotonic-clock';

/** A document as a point-in-time search returns it (with `seq_no_primary_term`). */
export interface ReadHit {
  _index: string;
  _id?: string;
  _source?: PersonDocument;
  _seq_no?: number | null;
  _primary_term?: number | null;
  /** `docvalue_fields: ['id_pessoa']` of a read without `_source`. */
  fields?: Record<string, unknown[]>;
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
  return {
    score: 0,
    fingerprint: 0,
    lookup: 0,
    rows: 0,
    record: 0,
    upsert: { entries: 0, details: 0, seals: 0, words: 0, transaction: 0 },
  };
}

/** The uuid of each index behind the person index's name (an alias may name several), by index name. */
export async function uuidsOfIndices(es: ElasticsearchClient, personIndex: string): Promise<Map<string, string>> {
  const settings = await es.indices.getSettings({ index: personIndex, name: 'index.uuid', flat_settings: true });
  return new Map(Object.entries(settings).map(([name, entry]) => [name, String(entry.settings?.['index.uuid'] ?? '')]));
}

/**
 * Scores a slice of documents and stores what changed: the persons read are recorded (the run's end
 * deletes the others), and an entry is written only when its fingerprint differs from the stored one
 * (docs/ranking-job.md, "Unchanged documents"). Idempotent. `read`: documents with a source;
 * `written`: entries written.
 */
export async function storeSlice(
  pool: Pool,
  hits: ReadHit[],
  context: SliceContext,
  timings?: SliceTimings,
): Promise<{ read: number; written: number }> {
  let mark = monotonicSeconds();
  const lap = (step: Exclude<keyof SliceTimings, 'upsert'>) => {
    const at = monotonicSeconds();
    if (timings) timings[step] += at - mark;
    mark = at;
  };
  const documents = hits.filter((hit): hit is ReadHit & { _source: PersonDocument } => hit._source !== undefined);
  const scored = documents.map((hit) => ({ hit, person: storedScore(scorePerson(hit._source, context.referenceDate)) }));
  lap('score');
  const candidates = scored.map(({ hit, person }) => {
    const key = keyOf(hit, context);
    return { hit, person, key, fingerprint: entryFingerprint(person, key) };
  });
  lap('fingerprint');
  const ids = candidates.map(({ person }) => person.id_pessoa);
  const stored = await storedProvenance(pool, ids);
  lap('lookup');
  const rows: RankingRow[] = [];
  const unchanged: number[] = [];
  for (const { hit, person, key, fingerprint } of candidates) {
    const previous = stored.get(person.id_pessoa);
    if (fingerprint && previous?.impressao?.equals(fingerprint)) {
      if (previous.verificada_em !== context.referenceDate) unchanged.push(person.id_pessoa);
      continue;
    }
    const provenance = { fingerprint, documentKey: key, referenceDate: context.referenceDate };
    rows.push(toRankingRow(person, hit._source, context.runId, documentRevision(hit), provenance));
  }
  lap('rows');
  await recordPersonsRead(pool, ids);
  await markVerified(pool, unchanged, context.referenceDate);
  lap('record');
  await upsertRankingRows(pool, rows, timings?.upsert);
  return { read: documents.length, written: rows.length };
}

function keyOf(hit: ReadHit, context: SliceContext): Buffer | null {
  return documentKey({ index: hit._index, indexUuid: context.indexUuids.get(hit._index) ?? '', revision: documentRevision(hit) });
}

/**
 * Sorts documents read without `_source` (revision and `id_pessoa` only) into the persons whose
 * entry was built from this very version of their document on this reference date, or found
 * unchanged then (nothing to read again: they are recorded as read), and the documents to read whole
 * (`_id`s): changed, new, or last verified on another day.
 */
export async function setAsideUnchanged(
  pool: Pool,
  hits: ReadHit[],
  context: SliceContext,
): Promise<{ unchanged: number; toRead: string[] }> {
  const idOf = (hit: ReadHit) => {
    const value = hit.fields?.id_pessoa?.[0];
    return typeof value === 'number' ? value : null;
  };
  const stored = await storedProvenance(
    pool,
    hits.flatMap((hit) => idOf(hit) ?? []),
  );
  const unchanged: number[] = [];
  const toRead: string[] = [];
  for (const hit of hits) {
    const id = idOf(hit);
    const previous = id === null ? undefined : stored.get(id);
    const key = keyOf(hit, context);
    if (id !== null && key && previous?.verificada_em === context.referenceDate && previous.chave_documento?.equals(key))
      unchanged.push(id);
    else if (hit._id !== undefined) toRead.push(hit._id);
  }
  await recordPersonsRead(pool, unchanged);
  return { unchanged: unchanged.length, toRead };
}
