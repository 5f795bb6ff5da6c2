import { promisify } from 'node:util';
import { gunzipSync, gzip } from 'node:zlib';
import type { Pool } from 'mysql2/promise';
import { rankingPageFields } from '../domain/ranking-page';
import { needsIndexDocument, rankingEntryJson } from '../domain/ranking-entry';
import { jsonWithRawList, RAW_LIST_SEPARATOR, rawListHead } from '../lib/raw-json';
import {
  entriesAtPositions,
  SNAPSHOT_TOTAL,
  SNAPSHOT_TOTALS_COLUMNS,
  snapshotTotals,
  type StoredEntryWithDetails,
  type Totals,
} from './ranking-queries';

/**
 * Pages of the ranking rendered once per run (docs/ranking-storage.md, "Stored pages"): the
 * unfiltered pages of the default size, each as the whole `/ranking/paginado` response it is when no
 * index document changed, gzip-compressed, with the byte ranges of the entries rules 3 and 4 may
 * still change.
 */

/** The page size rendered once per run: the default of /ranking/paginado. */
export const STORED_PAGE_SIZE = 50;
/** Pages rendered and written per statement: ~330 KB each before compression at 300 000 persons (the first ones ~900 KB): bounded memory in the worker. */
const PAGES_PER_STATEMENT = 10;

const gzipAsync = promisify(gzip);
/**
 * Measured on 50 rendered pages of the 300 000-person ranking (419 KB each): level 4 compresses in
 * 1.78 ms to 48.1 KB, the default 6 in 2.89 ms to 42.0 KB, level 1 in 1.37 ms to 63.2 KB; all
 * inflate in 0.43-0.45 ms but level 1 (0.81). A run that moves most entries renders every page again.
 */
const PAGE_GZIP = { level: 4 };

/** Where in a page's response an entry rules 3 and 4 may change sits, and the document revision it was built from. */
export interface IncompleteEntryRef {
  id_pessoa: number;
  revisao_documento: string | null;
  start: number;
  end: number;
}

export interface RenderedPage {
  /** The whole response body, uncompressed: `{"total":…,"page":…,"size":50,"total_pages":…,"consultores":[…]}`. */
  response: Buffer;
  incomplete: IncompleteEntryRef[];
}

/** Page `page` of a ranking of `total` entries, rendered as a request renders it when no index document changed. */
export function renderPage(entries: StoredEntryWithDetails[], page: number, total: number, cvBaseUrl: string): RenderedPage {
  const fields = rankingPageFields(total, page, STORED_PAGE_SIZE);
  const items = entries.map((entry) => rankingEntryJson(entry, undefined, cvBaseUrl));
  const incomplete: IncompleteEntryRef[] = [];
  // Where each item lands in jsonWithRawList's output: after the head, the items before it and their separators.
  let offset = rawListHead(fields, 'consultores').length;
  items.forEach((json, i) => {
    const entry = entries[i] as StoredEntryWithDetails;
    if (needsIndexDocument(entry.complementos)) {
      incomplete.push({ id_pessoa: entry.id_pessoa, revisao_documento: entry.revisao_documento, start: offset, end: offset + json.length });
    }
    offset += json.length + RAW_LIST_SEPARATOR.length;
  });
  return { response: jsonWithRawList(fields, 'consultores', items), incomplete };
}

/** What the stored pages are rendered for. */
export interface PageRendering {
  runId: string;
  cvBaseUrl: string;
  /** The run's reference date, printed in every score breakdown. */
  referenceDate: string;
}

/** Whether every stored page is one of a ranking of `total` entries rendered for `rendering`'s cv base and date. */
async function storedPagesFit(pool: Pool, total: number, pages: number, rendering: PageRendering): Promise<boolean> {
  const [rows] = await pool.query(
    'SELECT COUNT(*) AS stored, COALESCE(SUM(total = ? AND cv_base = ? AND data_referencia = ?), 0) AS fitting FROM ranking_pages WHERE pagina <= ?',
    [total, rendering.cvBaseUrl, rendering.referenceDate, pages],
  );
  const row = (rows as Array<{ stored: number; fitting: string | number }>)[0];
  return Number(row?.stored) === pages && Number(row?.fitting) === pages;
}

/** The pages holding an entry written or moved since the pages were last rendered, in order. */
async function pendingPages(pool: Pool): Promise<number[]> {
  const [rows] = await pool.query(
    `SELECT DISTINCT (posicao - 1) DIV ${STORED_PAGE_SIZE} + 1 AS pagina FROM ranking_entries WHERE pagina_pendente ORDER BY pagina`,
  );
  return (rows as Array<{ pagina: number }>).map((row) => Number(row.pagina));
}

/** Runs of consecutive pages, at most PAGES_PER_STATEMENT long: each is read in one query and written in one statement. */
interface PageRun {
  first: number;
  count: number;
}

function pageRuns(pages: number[]): PageRun[] {
  const runs: PageRun[] = [];
  for (const page of pages) {
    const last = runs.at(-1);
    if (last && page === last.first + last.count && last.count < PAGES_PER_STATEMENT) last.count += 1;
    else runs.push({ first: page, count: 1 });
  }
  return runs;
}

/**
 * Renders the unfiltered pages of STORED_PAGE_SIZE of the positioned ranking (positions are dense,
 * 1..n, so n is the total) and stores them compressed with the run's id, the total, the cv base their
 * urls were built with and the reference date; removes pages past the last. When the stored pages are
 * those of a ranking of the same total, cv base and date, only the pages holding an entry written or
 * moved since are rendered again, and the others are relabelled with the run's id (docs/ranking-job.md,
 * "Unchanged documents"). Idempotent (upserts by page number; the entries' marks are cleared once
 * every page is stored). `progress` is called after each statement. The number of pages.
 */
export async function storeRenderedPages(pool: Pool, rendering: PageRendering, progress: () => void = () => undefined): Promise<number> {
  const { runId, cvBaseUrl, referenceDate } = rendering;
  const [rows] = await pool.query('SELECT COALESCE(MAX(posicao), 0) AS total FROM ranking_entries');
  const total = Number((rows as Array<{ total: number }>)[0]?.total);
  const pageCount = Math.ceil(total / STORED_PAGE_SIZE);
  const toRender = (await storedPagesFit(pool, total, pageCount, rendering))
    ? await pendingPages(pool)
    : Array.from({ length: pageCount }, (_, i) => i + 1);
  // A pipeline: the next run of pages is read while this one is rendered, and up to
  // RUNS_COMPRESSING runs are compressed and written meanwhile, so MariaDB's reads, the rendering on
  // the main thread and gzip on libuv's threads overlap on the machine's cores.
  const runs = pageRuns(toRender);
  const read = (run: PageRun | undefined): Promise<StoredEntryWithDetails[]> => {
    if (!run) return Promise.resolve([]);
    const firstPosition = (run.first - 1) * STORED_PAGE_SIZE + 1;
    return settledLater(entriesAtPositions(pool, firstPosition, firstPosition + run.count * STORED_PAGE_SIZE - 1, referenceDate));
  };
  const storing: Array<Promise<void>> = [];
  let next = read(runs[0]);
  for (const [i, run] of runs.entries()) {
    const entries = await next;
    next = read(runs[i + 1]);
    const rendered: Array<{ page: number } & RenderedPage> = [];
    for (let start = 0; start < entries.length; start += STORED_PAGE_SIZE) {
      const page = run.first + rendered.length;
      rendered.push({ page, ...renderPage(entries.slice(start, start + STORED_PAGE_SIZE), page, total, cvBaseUrl) });
    }
    if (rendered.length === 0) continue;
    storing.push(settledLater(compressAndStore(pool, rendered, { ...rendering, total }).then(progress)));
    if (storing.length >= RUNS_COMPRESSING) await storing.shift();
  }
  await Promise.all(storing);
  await pool.query('UPDATE ranking_pages SET run_id = ? WHERE run_id <> ?', [runId, runId]);
  await pool.query('DELETE FROM ranking_pages WHERE pagina > ?', [pageCount]);
  await pool.query('UPDATE ranking_entries SET pagina_pendente = FALSE WHERE pagina_pendente');
  return pageCount;
}

/** Runs of pages compressed and written at once while the next ones are read and rendered. */
const RUNS_COMPRESSING = 2;

/**
 * `promise` with a handler attached now, for a pipeline that awaits it later: a rejection meanwhile
 * is not an unhandled one (which ends the process); awaiting the returned promise still throws it.
 */
function settledLater<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** Compresses rendered pages (on libuv's threads, all at once) and upserts them in one statement. */
async function compressAndStore(
  pool: Pool,
  pages: Array<{ page: number } & RenderedPage>,
  labels: PageRendering & { total: number },
): Promise<void> {
  const { runId, total, cvBaseUrl, referenceDate } = labels;
  const rows = await Promise.all(
    pages.map(async ({ page, response, incomplete }) => [
      page,
      runId,
      total,
      cvBaseUrl,
      referenceDate,
      await gzipAsync(response, PAGE_GZIP),
      JSON.stringify(incomplete),
    ]),
  );
  // A prepared statement: the compressed pages travel as bytes (in SQL text they would go as hex, twice the size).
  await pool.execute(
    `INSERT INTO ranking_pages (pagina, run_id, total, cv_base, data_referencia, resposta_gzip, incompletos)
     VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}
     ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), total = VALUES(total), cv_base = VALUES(cv_base),
       data_referencia = VALUES(data_referencia), resposta_gzip = VALUES(resposta_gzip), incompletos = VALUES(incompletos)`,
    rows.flat(),
  );
}

/** A stored page as read: its response gzip-compressed and where its incomplete entries sit in the uncompressed response. */
export interface StoredPage {
  gzipped: Buffer;
  incomplete: IncompleteEntryRef[];
}

export interface StoredPageRead {
  totals: Totals;
  /** Null when not stored for the snapshot's run, total and this cv base (rendering under way, CV_BASE_URL changed) or past the end. */
  page: StoredPage | null;
}

/**
 * The stored page `pagina` of the last completed run, with the ranking's totals, in one round trip.
 * Null when there is no statistics snapshot yet.
 */
export async function readStoredPage(pool: Pool, pagina: number, cvBaseUrl: string): Promise<StoredPageRead | null> {
  const [rows] = await pool.query(
    `SELECT ${SNAPSHOT_TOTALS_COLUMNS}, p.resposta_gzip, p.incompletos
     FROM ranking_statistics s LEFT JOIN ranking_pages p
       ON p.pagina = ? AND p.run_id = s.run_id AND p.total = ${SNAPSHOT_TOTAL} AND p.cv_base = ?
     WHERE s.id = 1`,
    [pagina, cvBaseUrl],
  );
  const row = (
    rows as Array<{
      snapshot_total: string | null;
      snapshot_ativos: string | null;
      resposta_gzip: Buffer | null;
      incompletos: string | null;
    }>
  )[0];
  if (!row) return null;
  const page =
    row.resposta_gzip && row.incompletos
      ? { gzipped: row.resposta_gzip, incomplete: JSON.parse(row.incompletos) as IncompleteEntryRef[] }
      : null;
  return { totals: snapshotTotals(row), page };
}

/**
 * A stored page's response, decompressed in one step into one buffer of the size the gzip trailer
 * gives (ISIZE, the length modulo 2^32: pages are far smaller). Measured on pages of ~330 KB: 0.32 ms
 * against 0.48 ms in zlib's 16 KB pieces and 1.7 ms on libuv's threads; in bench:ranking the
 * threaded form also gave the longer tail (p99 41 against 22 ms at one client).
 */
export function decompressedResponse(page: StoredPage): Buffer {
  const size = page.gzipped.readUInt32LE(page.gzipped.length - 4);
  return gunzipSync(page.gzipped, { chunkSize: Math.max(size, 64) });
}
