import type { estypes } from '@elastic/elasticsearch';
import type { Pool } from 'mysql2/promise';
import { FIELDS_NOT_RANKED } from '../../activities/ranking';
import { emptySliceTimings, storeSlice, uuidsOfIndices } from '../../activities/ranking-slice';
import { settleRanking } from '../../activities/ranking-finish';
import { forgetPersonsRead } from '../../db/ranking-store';
import type { PersonDocument } from '../../domain/person-document';
import type { createElasticsearch } from '../../lib/elasticsearch';
import { monotonicSeconds } from '../../lib/monotonic-clock';

/**
 * The ranking job's work, one step at a time, each timed on its own (issue 27: measure before
 * changing anything): the job's loop without Temporal, with the index's answers read as raw bytes so
 * the scan (Elasticsearch's time and the transfer) and the parsing are told apart.
 */

type Es = ReturnType<typeof createElasticsearch>;
const BATCH = 2_000;
interface SearchHit {
  _id: string;
  _index: string;
  _source?: PersonDocument;
  _seq_no?: number;
  _primary_term?: number;
  sort?: estypes.SortResults;
}

/** One page of the point-in-time as the raw bytes Elasticsearch sent. */
async function rawPage(es: Es, pitId: string, after: estypes.SortResults | undefined, source: 'all' | 'ranked'): Promise<Buffer> {
  const response = await es.search(
    {
      pit: { id: pitId, keep_alive: '5m' },
      size: BATCH,
      sort: [{ _shard_doc: 'asc' }],
      track_total_hits: false,
      ...(source === 'ranked' ? { _source_excludes: FIELDS_NOT_RANKED, seq_no_primary_term: true } : {}),
      ...(after ? { search_after: after } : {}),
    },
    { asStream: true, meta: true },
  );
  const chunks: Buffer[] = [];
  for await (const chunk of response.body as unknown as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

export interface BareScan {
  seconds: number;
  documents: number;
  megabytes: number;
}

/**
 * The floor of issue 27: a point-in-time scan of the whole index, `_source` fetched and parsed,
 * nothing else.
 */
export async function bareScan(es: Es, index: string): Promise<BareScan> {
  const started = monotonicSeconds();
  let pitId = (await es.openPointInTime({ index, keep_alive: '5m' })).id;
  let after: estypes.SortResults | undefined;
  let documents = 0;
  let bytes = 0;
  for (;;) {
    const raw = await rawPage(es, pitId, after, 'all');
    bytes += raw.length;
    const page = JSON.parse(raw.toString('utf8')) as { pit_id?: string; hits: { hits: SearchHit[] } };
    pitId = page.pit_id ?? pitId;
    const hits = page.hits.hits;
    documents += hits.length;
    if (hits.length < BATCH) break;
    after = hits[hits.length - 1]?.sort;
  }
  await es.closePointInTime({ id: pitId });
  return { seconds: monotonicSeconds() - started, documents, megabytes: bytes / 1e6 };
}

/** Seconds per step of a profiled run, in the order they happen. */
export interface RunProfile {
  total: number;
  /** Entries the run wrote (the others were left as stored). */
  written: number;
  steps: Array<[string, number]>;
  documents: number;
  megabytes: number;
}

/**
 * The job's steps over the whole index, each timed, through the job's own slice code
 * (activities/ranking-slice.ts): the scan as the job asks it (`_source` without the fields scoring
 * does not read), JSON parsing, scoring, fingerprints, the stored fingerprints looked up, building
 * the rows to write, the persons read recorded, the bulk upsert, then the end of the run: persons
 * not read removed, positions, the rendered pages and the statistics. Leaves the ranking as the job
 * would: profiling it again is the run over an unchanged index.
 */
export async function profiledRun(es: Es, index: string, pool: Pool, cvBaseUrl: string): Promise<RunProfile> {
  const runId = `profile-${Date.now()}`;
  const referenceDate = new Date().toISOString().slice(0, 10);
  const spent = { scan: 0, parse: 0 };
  const slice = emptySliceTimings();
  const context = { runId, referenceDate, indexUuids: await uuidsOfIndices(es, index) };
  let documents = 0;
  let written = 0;
  let bytes = 0;
  const started = monotonicSeconds();
  await forgetPersonsRead(pool);
  let pitId = (await es.openPointInTime({ index, keep_alive: '5m' })).id;
  let after: estypes.SortResults | undefined;
  for (;;) {
    let mark = monotonicSeconds();
    const raw = await rawPage(es, pitId, after, 'ranked');
    spent.scan += monotonicSeconds() - mark;
    bytes += raw.length;
    mark = monotonicSeconds();
    const page = JSON.parse(raw.toString('utf8')) as { pit_id?: string; hits: { hits: SearchHit[] } };
    spent.parse += monotonicSeconds() - mark;
    pitId = page.pit_id ?? pitId;
    written += (await storeSlice(pool, page.hits.hits, context, slice)).written;
    documents += page.hits.hits.length;
    if (page.hits.hits.length < BATCH) break;
    after = page.hits.hits[page.hits.hits.length - 1]?.sort;
  }
  await es.closePointInTime({ id: pitId });
  const settle = { stale: 0, positions: 0, pages: 0, statistics: 0 };
  await settleRanking(pool, { runId, cvBaseUrl, referenceDate }, undefined, settle);
  return {
    total: monotonicSeconds() - started,
    written,
    documents,
    megabytes: bytes / 1e6,
    steps: [
      ['scan (Elasticsearch + transfer, ranked fields)', spent.scan],
      ['parse (JSON.parse of the answers)', spent.parse],
      ['score (scorePerson)', slice.score],
      ['fingerprints (md5 of revision and score)', slice.fingerprint],
      ['stored fingerprints looked up', slice.lookup],
      ['build rows to write (toRankingRow)', slice.rows],
      ['record the persons read (ranking_run_persons)', slice.record],
      [
        'upsert (entries: INSERT ... ON DUPLICATE KEY UPDATE; details: LOAD DATA)',
        slice.upsert.entries + slice.upsert.details + slice.upsert.seals + slice.upsert.words + slice.upsert.transaction,
      ],
      ['  of which ranking_entries', slice.upsert.entries],
      ['  of which ranking_entry_details', slice.upsert.details],
      ['  of which seals (delete, insert)', slice.upsert.seals],
      ['  of which name words (delete, insert)', slice.upsert.words],
      ['  of which transaction (checkout, begin, commit)', slice.upsert.transaction],
      ['remove the persons not read', settle.stale],
      ['positions (assignPositions, when anything changed)', settle.positions],
      ['pages (storeRenderedPages, those that changed)', settle.pages],
      ['statistics (storeStatisticsSnapshot)', settle.statistics],
    ],
  };
}
