import { gzipSync } from 'node:zlib';
import type { estypes } from '@elastic/elasticsearch';
import type { Pool } from 'mysql2/promise';
import { FIELDS_NOT_RANKED } from '../../activities/ranking';
import { storeRenderedPages } from '../../db/ranking-pages';
import { assignPositions, deletePersonsNotRead, recordPersonsRead, upsertRankingRows, type UpsertTimings } from '../../db/ranking-store';
import { storeStatisticsSnapshot } from '../../db/ranking-statistics';
import { documentRevision } from '../../domain/document-revision';
import type { PersonDocument } from '../../domain/person-document';
import { readyComplementsJson } from '../../domain/ranking-entry';
import { toRankingRow } from '../../domain/ranking-row';
import { scorePerson } from '../../domain/scoring/score-person';
import type { createElasticsearch } from '../../lib/elasticsearch';

/**
 * The ranking job's work, one step at a time, each timed on its own (issue 27: measure before
 * changing anything): the job's loop without Temporal, with the index's answers read as raw bytes so
 * the scan (Elasticsearch's time and the transfer) and the parsing are told apart.
 */

type Es = ReturnType<typeof createElasticsearch>;
const BATCH = 2_000;
const now = () => Number(process.hrtime.bigint()) / 1e9;

interface SearchHit {
  _id: string;
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
  const started = now();
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
  return { seconds: now() - started, documents, megabytes: bytes / 1e6 };
}

/** Seconds per step of a profiled run, in the order they happen. */
export interface RunProfile {
  total: number;
  /** Not part of the run: details and complements gzipped (level 1) per row, the CPU it took and the bytes it left. */
  compression: { seconds: number; megabytes: number; rawMegabytes: number };
  /** What the upserts wrote, by part. */
  written: Array<[string, string]>;
  steps: Array<[string, number]>;
  documents: number;
  megabytes: number;
}

/**
 * The job's steps over the whole index, each timed: the scan as the job asks it (`_source`
 * without the fields scoring does not read), JSON parsing, scoring, building the stored rows, the bulk
 * upsert, then removing other runs' rows, positions, the rendered pages and the statistics.
 */
export async function profiledRun(es: Es, index: string, pool: Pool, cvBaseUrl: string): Promise<RunProfile> {
  const runId = 'profile';
  const referenceDate = new Date().toISOString().slice(0, 10);
  const spent = { scan: 0, parse: 0, score: 0, rows: 0, upsert: 0, read: 0 };
  const upsert: UpsertTimings = { entries: 0, details: 0, seals: 0, transaction: 0 };
  const written = { entries: 0, details: 0, complements: 0, readyComplements: 0, seals: 0 };
  const compression = { seconds: 0, bytes: 0 };
  let documents = 0;
  let bytes = 0;
  const started = now();
  let pitId = (await es.openPointInTime({ index, keep_alive: '5m' })).id;
  let after: estypes.SortResults | undefined;
  for (;;) {
    let mark = now();
    const raw = await rawPage(es, pitId, after, 'ranked');
    spent.scan += now() - mark;
    bytes += raw.length;
    mark = now();
    const page = JSON.parse(raw.toString('utf8')) as { pit_id?: string; hits: { hits: SearchHit[] } };
    spent.parse += now() - mark;
    pitId = page.pit_id ?? pitId;
    const hits = page.hits.hits.filter((hit): hit is SearchHit & { _source: PersonDocument } => hit._source !== undefined);
    mark = now();
    const scored = hits.map((hit) => scorePerson(hit._source, referenceDate));
    spent.score += now() - mark;
    mark = now();
    const rows = hits.map((hit, i) => toRankingRow(scored[i]!, hit._source, runId, documentRevision(hit as estypes.SearchHit<PersonDocument>)));
    spent.rows += now() - mark;
    for (const row of rows) {
      written.details += Buffer.byteLength(row.detalhes);
      written.complements += Buffer.byteLength(JSON.stringify(row.complementos));
      written.readyComplements += Buffer.byteLength(readyComplementsJson(row.complementos) ?? '');
      written.entries += Buffer.byteLength(row.nome) * 2 + Buffer.byteLength(JSON.stringify(row.tipos_atuacao)) + Buffer.byteLength(JSON.stringify(row.selos)) + 60;
      written.seals += row.selos.length;
    }
    // An experiment, kept out of the run's time: what compressing the details table's text would cost and save.
    const experimentStarted = now();
    for (const row of rows) {
      compression.bytes += gzipSync(row.detalhes, { level: 1 }).length + gzipSync(JSON.stringify(row.complementos), { level: 1 }).length;
    }
    compression.seconds += now() - experimentStarted;
    mark = now();
    await recordPersonsRead(pool, rows.map((row) => row.id_pessoa));
    spent.read += now() - mark;
    mark = now();
    await upsertRankingRows(pool, rows, upsert);
    spent.upsert += now() - mark;
    documents += page.hits.hits.length;
    if (page.hits.hits.length < BATCH) break;
    after = page.hits.hits[page.hits.hits.length - 1]?.sort;
  }
  await es.closePointInTime({ id: pitId });
  const timed = async (work: () => Promise<unknown>) => {
    const mark = now();
    await work();
    return now() - mark;
  };
  const stale = await timed(() => deletePersonsNotRead(pool));
  const positions = await timed(() => assignPositions(pool));
  const pages = await timed(() => storeRenderedPages(pool, { runId, cvBaseUrl, referenceDate }));
  const statistics = await timed(() => storeStatisticsSnapshot(pool, runId, new Date(), referenceDate));
  const mb = (value: number) => `${(value / 1e6).toFixed(0)} MB`;
  return {
    total: now() - started - compression.seconds,
    compression: { seconds: compression.seconds, megabytes: compression.bytes / 1e6, rawMegabytes: (written.details + written.complements) / 1e6 },
    documents,
    megabytes: bytes / 1e6,
    written: [
      ['details (detalhes)', mb(written.details)],
      ['complements (JSON)', mb(written.complements)],
      ['complements (response form)', mb(written.readyComplements)],
      ['entries (names, types, seals; about)', mb(written.entries)],
      ['seal rows', String(written.seals)],
    ],
    steps: [
      ['scan (Elasticsearch + transfer, ranked fields)', spent.scan],
      ['parse (JSON.parse of the answers)', spent.parse],
      ['score (scorePerson)', spent.score],
      ['build rows (toRankingRow: details, complements)', spent.rows],
      ['upsert (bulk INSERT ... ON DUPLICATE KEY UPDATE)', spent.upsert],
      ['  of which ranking_entries', upsert.entries],
      ['  of which ranking_entry_details', upsert.details],
      ['  of which seals (delete, insert)', upsert.seals],
      ['  of which transaction (checkout, begin, commit)', upsert.transaction],
      ['record the persons read (ranking_run_persons)', spent.read],
      ['remove the persons not read', stale],
      ['positions (assignPositions)', positions],
      ['pages (storeRenderedPages)', pages],
      ['statistics (storeStatisticsSnapshot)', statistics],
    ],
  };
}
