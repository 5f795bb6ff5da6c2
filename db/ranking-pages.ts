import type { Pool } from 'mysql2/promise';
import { needsIndexDocument, rankingEntryJson } from '../domain/ranking-entry';
import { entriesAtPositions, SNAPSHOT_TOTALS_COLUMNS, snapshotTotals, type StoredEntryWithDetails, type Totals } from './ranking-queries';

/**
 * Pages of the ranking rendered once per run (docs/ranking-storage.md, "Stored pages"): the
 * unfiltered pages of the default size, as `/ranking/paginado` serves them when no index document
 * changed since the run, with the byte ranges of the entries rules 3 and 4 may still change.
 */

/** The page size rendered once per run: the default of /ranking/paginado. */
export const STORED_PAGE_SIZE = 50;
/** Pages rendered and written per statement: ~250 KB each at 300 000 persons (the first ones ~900 KB), a few MB: bounded memory in the worker. */
const PAGES_PER_STATEMENT = 10;

/** Where in a stored page an entry rules 3 and 4 may change sits, and the document revision it was built from. */
export interface IncompleteEntryRef {
  id_pessoa: number;
  revisao_documento: string | null;
  start: number;
  end: number;
}

export interface RenderedPage {
  /** The page's entries as JSON, comma-separated: the inside of the `consultores` array. */
  body: Buffer;
  incomplete: IncompleteEntryRef[];
}

/** A page's entries rendered as a request renders them when no index document changed. */
export function renderPage(entries: StoredEntryWithDetails[], cvBaseUrl: string): RenderedPage {
  const parts: Buffer[] = [];
  const incomplete: IncompleteEntryRef[] = [];
  let offset = 0;
  entries.forEach((entry, i) => {
    if (i > 0) {
      parts.push(COMMA);
      offset += COMMA.length;
    }
    const json = rankingEntryJson(entry, undefined, cvBaseUrl);
    if (needsIndexDocument(entry.complementos)) {
      incomplete.push({ id_pessoa: entry.id_pessoa, revisao_documento: entry.revisao_documento, start: offset, end: offset + json.length });
    }
    parts.push(json);
    offset += json.length;
  });
  return { body: Buffer.concat(parts, offset), incomplete };
}

const COMMA = Buffer.from(',');

/**
 * Renders every unfiltered page of STORED_PAGE_SIZE of the positioned ranking (positions are dense,
 * 1..n) and stores it with `runId` and the cv base its urls were built with; removes pages past the
 * last. Idempotent (upserts by page number). `progress` is called after each statement. The number
 * of pages.
 */
export async function storeRenderedPages(pool: Pool, runId: string, cvBaseUrl: string, progress: () => void = () => undefined): Promise<number> {
  const perStatement = PAGES_PER_STATEMENT * STORED_PAGE_SIZE;
  let nextPage = 1;
  for (;;) {
    const first = (nextPage - 1) * STORED_PAGE_SIZE + 1;
    const entries = await entriesAtPositions(pool, first, first + perStatement - 1);
    if (entries.length === 0) break;
    const rows: unknown[][] = [];
    for (let start = 0; start < entries.length; start += STORED_PAGE_SIZE) {
      const { body, incomplete } = renderPage(entries.slice(start, start + STORED_PAGE_SIZE), cvBaseUrl);
      rows.push([nextPage + rows.length, runId, cvBaseUrl, body, JSON.stringify(incomplete)]);
    }
    await pool.query(
      `INSERT INTO ranking_pages (pagina, run_id, cv_base, corpo, incompletos) VALUES ?
       ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), cv_base = VALUES(cv_base), corpo = VALUES(corpo), incompletos = VALUES(incompletos)`,
      [rows],
    );
    nextPage += rows.length;
    progress();
    if (entries.length < perStatement) break;
  }
  await pool.query('DELETE FROM ranking_pages WHERE pagina >= ?', [nextPage]);
  return nextPage - 1;
}

export interface StoredPageRead {
  totals: Totals;
  /** Null when not stored for the snapshot's run and this cv base (rendering under way, CV_BASE_URL changed) or past the end. */
  page: RenderedPage | null;
}

/**
 * The stored page `pagina` of the last completed run, with the ranking's totals, in one round trip.
 * Null when there is no statistics snapshot yet.
 */
export async function readStoredPage(pool: Pool, pagina: number, cvBaseUrl: string): Promise<StoredPageRead | null> {
  const [rows] = await pool.query(
    `SELECT ${SNAPSHOT_TOTALS_COLUMNS}, p.corpo, p.incompletos
     FROM ranking_statistics s LEFT JOIN ranking_pages p ON p.pagina = ? AND p.run_id = s.run_id AND p.cv_base = ?
     WHERE s.id = 1`,
    [pagina, cvBaseUrl],
  );
  const row = (rows as Array<{ snapshot_total: string | null; snapshot_ativos: string | null; corpo: Buffer | null; incompletos: string | null }>)[0];
  if (!row) return null;
  const page = row.corpo && row.incompletos ? { body: row.corpo, incomplete: JSON.parse(row.incompletos) as IncompleteEntryRef[] } : null;
  return { totals: snapshotTotals(row), page };
}
