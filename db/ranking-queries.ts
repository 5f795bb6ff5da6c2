import type { Pool } from 'mysql2/promise';
import type { TypeCast } from 'mysql2/typings/mysql/lib/parsers/typeCast';
import { rankOrderBy } from './ranking-order';
import { readStatisticsSnapshot } from './ranking-statistics';
import type { EntryComplements, StoredEntry, StoredEntryWithDetails } from '../domain/ranking-entry';
import { passThroughDetailsJson, withReferenceDate, type StoredComplements } from '../domain/ranking-row';
import { referenceDateOf } from '../domain/scoring/dates';
import { NAME_WORD_MAX } from '../domain/text';

// Reads of the persisted ranking. Only positioned rows are visible: a run in progress writes rows
// first and positions them at its end, so readers always see the last completed ranking
// (docs/ranking-storage.md).

export type BlockKey = 'bloco_a' | 'bloco_b' | 'bloco_c' | 'bloco_d' | 'bloco_e';

export type { StoredEntry, StoredEntryWithDetails } from '../domain/ranking-entry';

const ENTRY_COLUMNS = `e.id_pessoa, e.nome, e.posicao, e.pontuacao_total, e.bloco_a, e.bloco_b, e.bloco_c, e.bloco_d,
  e.bloco_e, e.ativo, e.anos_atuacao, e.coordenador_ppg, e.tipos_atuacao, e.selos`;
/**
 * The parsed complements are sent only for entries without them in response form. The reference
 * date of the last completed run goes into the stored score breakdowns (evaluated once a statement).
 */
const DETAIL_COLUMNS = `${ENTRY_COLUMNS}, d.detalhes, IF(d.complementos_prontos IS NULL, d.complementos, NULL) AS complementos,
  d.complementos_prontos, d.id_cv, d.revisao_documento,
  (SELECT s.data_referencia FROM ranking_statistics s WHERE s.id = 1) AS data_referencia_ranking`;

/** Details are written with their entry in one transaction; LEFT JOIN only guards hand-edited data. */
const JOIN_DETAILS = 'LEFT JOIN ranking_entry_details d ON d.id_pessoa = e.id_pessoa';

/** What an entry without a details row passes through: every field null. */
const NO_DETAILS = Buffer.from(passThroughDetailsJson({}, null));

/** Columns spliced into responses as they are stored: decoding them only to encode them again costs a page ~1 ms. */
const SPLICED_COLUMNS = new Set(['detalhes', 'complementos_prontos']);
const DETAILS_AS_BYTES: TypeCast = (field, next) => (SPLICED_COLUMNS.has(field.name) ? field.buffer() : next());

type Row = Record<string, unknown>;

function toStoredEntry(row: Row): StoredEntry {
  return {
    id_pessoa: Number(row.id_pessoa),
    nome: String(row.nome),
    posicao: Number(row.posicao),
    pontuacao_total: Number(row.pontuacao_total),
    bloco_a: Number(row.bloco_a),
    bloco_b: Number(row.bloco_b),
    bloco_c: Number(row.bloco_c),
    bloco_d: Number(row.bloco_d),
    bloco_e: Number(row.bloco_e),
    ativo: Boolean(row.ativo),
    anos_atuacao: Number(row.anos_atuacao),
    coordenador_ppg: Boolean(row.coordenador_ppg),
    tipos_atuacao: JSON.parse(String(row.tipos_atuacao)) as string[],
    selos: JSON.parse(String(row.selos)) as string[],
  };
}

function entryComplements(row: Row): EntryComplements {
  if (Buffer.isBuffer(row.complementos_prontos) && typeof row.id_cv === 'string')
    return { json: row.complementos_prontos, idCv: row.id_cv };
  return typeof row.complementos === 'string' ? (JSON.parse(row.complementos) as StoredComplements) : {};
}

/**
 * `referenceDate`: the date to put in the score breakdown; by default the last completed run's, or
 * today's (UTC) while the first run has not completed.
 */
function toStoredEntryWithDetails(row: Row, referenceDate?: string): StoredEntryWithDetails {
  const date =
    referenceDate ?? (typeof row.data_referencia_ranking === 'string' ? row.data_referencia_ranking : referenceDateOf(new Date()));
  return {
    ...toStoredEntry(row),
    detalhes: Buffer.isBuffer(row.detalhes) ? withReferenceDate(row.detalhes, date) : NO_DETAILS,
    complementos: entryComplements(row),
    revisao_documento: typeof row.revisao_documento === 'string' ? row.revisao_documento : null,
  };
}

async function select(pool: Pool, sql: string, params: unknown[]): Promise<StoredEntry[]> {
  const [rows] = await pool.query(sql, params);
  return (rows as Row[]).map(toStoredEntry);
}

async function selectWithDetails(pool: Pool, sql: string, params: unknown[], referenceDate?: string): Promise<StoredEntryWithDetails[]> {
  const [rows] = await pool.query({ sql, values: params, typeCast: DETAILS_AS_BYTES });
  return (rows as Row[]).map((row) => toStoredEntryWithDetails(row, referenceDate));
}

async function count(pool: Pool, sql: string, params: unknown[]): Promise<number> {
  const [rows] = await pool.query(sql, params);
  return Number((rows as Array<{ n: number }>)[0]?.n ?? 0);
}

/** The ranking's totals: all positioned entries, active and inactive ones. */
export type Totals = { total: number; ativos: number; inativos: number };

/** Totals of the last completed run (from the snapshot), or counted when there is no snapshot. */
export async function rankingTotals(pool: Pool): Promise<Totals> {
  const snapshot = await readStatisticsSnapshot(pool);
  if (snapshot) return { total: snapshot.total_consultores, ativos: snapshot.total_ativos, inativos: snapshot.total_inativos };
  const [rows] = await pool.query(
    'SELECT COUNT(*) AS total, COALESCE(SUM(ativo), 0) AS ativos FROM ranking_entries WHERE posicao IS NOT NULL',
  );
  const row = (rows as Array<{ total: number; ativos: string | number }>)[0];
  const total = Number(row?.total ?? 0);
  const ativos = Number(row?.ativos ?? 0);
  return { total, ativos, inativos: total - ativos };
}

export interface PageFilter {
  ativo?: boolean;
  /** Upper-case seal codes; an entry must carry every one of them. */
  selos: string[];
}

/**
 * Paginated entries with their details in position order, the ranking's totals (for the 503 of an
 * empty ranking) and the count after the filters.
 */
export async function pageOfEntries(
  pool: Pool,
  filter: PageFilter,
  page: { offset: number; limit: number },
): Promise<{ totals: Totals; total: number; entries: StoredEntryWithDetails[] }> {
  if (filter.selos.length === 0 && filter.ativo === undefined) {
    const unfiltered = await positionRangeWithTotals(pool, page.offset + 1, page.offset + page.limit);
    if (unfiltered) return { ...unfiltered, total: unfiltered.totals.total };
  }
  const totals = await rankingTotals(pool);
  if (totals.total === 0) return { totals, total: 0, entries: [] };
  const where: string[] = ['e.posicao IS NOT NULL'];
  const params: unknown[] = [];
  if (filter.ativo !== undefined) {
    where.push('e.ativo = ?');
    params.push(filter.ativo);
  }
  if (filter.selos.length > 0) {
    where.push(
      'e.id_pessoa IN (SELECT s.id_pessoa FROM ranking_entry_seals s WHERE s.selo IN (?) GROUP BY s.id_pessoa HAVING COUNT(*) = ?)',
    );
    params.push(filter.selos, filter.selos.length);
  }
  const condition = where.join(' AND ');
  const total =
    filter.selos.length === 0
      ? filter.ativo
        ? totals.ativos
        : totals.inativos
      : await count(pool, `SELECT COUNT(*) AS n FROM ranking_entries e WHERE ${condition}`, params);
  // Sorted along the index that serves the filter: (ativo, the ranking's order), or the positions.
  const order = filter.ativo !== undefined ? rankOrderBy('e') : 'e.posicao';
  const entries = await selectWithDetails(
    pool,
    `SELECT ${DETAIL_COLUMNS} FROM ranking_entries e ${JOIN_DETAILS} WHERE ${condition} ORDER BY ${order} LIMIT ? OFFSET ?`,
    [...params, page.limit, page.offset],
  );
  return { totals, total, entries };
}

/**
 * The entries at positions `first`..`last` (positions are dense, 1..n, so a page is a range of the
 * position index whatever its depth) and the totals of the snapshot, in one round trip: the page is
 * joined to the snapshot row, so a page past the end still brings the totals (one row of nulls).
 * Null when there is no snapshot yet; the caller then counts.
 */
/** The snapshot's totals as two columns, for a query over `ranking_statistics s` (read back by snapshotTotals). */
/** The snapshot's count of ranked persons, from `ranking_statistics s`. */
export const SNAPSHOT_TOTAL = `JSON_VALUE(s.dados, '$.total_consultores')`;
export const SNAPSHOT_TOTALS_COLUMNS = `${SNAPSHOT_TOTAL} AS snapshot_total, JSON_VALUE(s.dados, '$.total_ativos') AS snapshot_ativos`;

export function snapshotTotals(row: { snapshot_total?: unknown; snapshot_ativos?: unknown }): Totals {
  const total = Number(row.snapshot_total ?? 0);
  const ativos = Number(row.snapshot_ativos ?? 0);
  return { total, ativos, inativos: total - ativos };
}

async function positionRangeWithTotals(
  pool: Pool,
  first: number,
  last: number,
): Promise<{ totals: Totals; entries: StoredEntryWithDetails[] } | null> {
  const [rows] = await pool.query({
    sql: `SELECT ${SNAPSHOT_TOTALS_COLUMNS}, ${DETAIL_COLUMNS}
          FROM ranking_statistics s LEFT JOIN (ranking_entries e ${JOIN_DETAILS}) ON e.posicao BETWEEN ? AND ?
          WHERE s.id = 1`,
    values: [first, last],
    typeCast: DETAILS_AS_BYTES,
  });
  const found = rows as Row[];
  const [head] = found;
  if (!head) return null;
  return {
    totals: snapshotTotals(head),
    // Sorted here: ORDER BY on this outer join makes MariaDB sort the details through a temporary table.
    entries: found
      .filter((row) => row.id_pessoa !== null)
      .map((row) => toStoredEntryWithDetails(row))
      .sort((a, b) => a.posicao - b.posicao),
  };
}

interface ListOptions {
  block?: BlockKey;
  offset: number;
  limit: number;
}

/**
 * The SQL of a list: entries in position order, or — with a block — those scoring in that block,
 * best in it first; and the total it has.
 */
async function listPlan(pool: Pool, options: ListOptions, columns: string, join: string, totals: { total: number }) {
  if (!options.block) {
    return {
      total: totals.total,
      sql: `SELECT ${columns} FROM ranking_entries e ${join} WHERE e.posicao BETWEEN ? AND ? ORDER BY e.posicao`,
      params: [options.offset + 1, options.offset + options.limit],
    };
  }
  // The block name comes from a closed list validated at the edge; it is never user text.
  const block = options.block;
  return {
    total: await count(pool, `SELECT COUNT(*) AS n FROM ranking_entries e WHERE e.${block} > 0 AND e.posicao IS NOT NULL`, []),
    // Best in the block first, ties as ranked: the order of the block's index, not touched when entries move.
    sql: `SELECT ${columns} FROM ranking_entries e ${join} WHERE e.${block} > 0 AND e.posicao IS NOT NULL
     ORDER BY ${rankOrderBy('e', block)} LIMIT ? OFFSET ?`,
    params: [options.limit, options.offset],
  };
}

export async function listEntries(
  pool: Pool,
  options: ListOptions,
  totals: { total: number },
): Promise<{ total: number; entries: StoredEntry[] }> {
  const plan = await listPlan(pool, options, ENTRY_COLUMNS, '', totals);
  return { total: plan.total, entries: await select(pool, plan.sql, plan.params) };
}

export async function listEntriesWithDetails(
  pool: Pool,
  options: ListOptions,
  totals: { total: number },
): Promise<{ total: number; entries: StoredEntryWithDetails[] }> {
  const plan = await listPlan(pool, options, DETAIL_COLUMNS, JOIN_DETAILS, totals);
  return { total: plan.total, entries: await selectWithDetails(pool, plan.sql, plan.params) };
}

export interface NameMatch {
  id_pessoa: number;
  nome: string;
  posicao: number;
  pontuacao_total: number;
}

/** Positions the name search walks in order before it turns to an index. */
export const NAME_WALK_WINDOW = 10_000;

/**
 * Words shorter than this are not in the FULLTEXT index (innodb_ft_min_token_size, 3 by default,
 * and a managed MySQL may not let it be changed): those are looked up in the table of name words.
 */
const FULLTEXT_MIN_WORD = 3;

/**
 * Name search: every word (letters and digits, any length) must start a word of the name's search
 * key; best-ranked first. Two plans, same answer:
 * - a common name has enough matches among the first NAME_WALK_WINDOW positions: walking the
 *   position index finds them in a few thousand narrow rows;
 * - otherwise the name is rare, and an index has few matches to fetch and sort: the FULLTEXT index
 *   (boolean mode, word prefixes) when every word has FULLTEXT_MIN_WORD characters or more, else the
 *   table of name words (a prefix range per word on `ranking_name_words_palavra`), for every word of
 *   the query. Not FULLTEXT for the long words and the table for the short ones: MariaDB then starts
 *   from the FULLTEXT matches whatever their number (it estimates one row), and `silva li wu` read
 *   every Silva (77 ms at 300 000 persons, 0.3 ms from the table, whose ranges it can measure and
 *   start from the narrowest: docs/ranking-storage.md, "Name words").
 *   (For a common name the index plans would fetch and sort all its matches.)
 */
export async function searchByName(
  pool: Pool,
  words: string[],
  limit: number,
  walkWindow: number = NAME_WALK_WINDOW,
): Promise<NameMatch[]> {
  if (words.length === 0) return [];
  const columns = 'id_pessoa, nome, posicao, pontuacao_total';
  // Words are [a-z0-9]+ (searchWords): no LIKE wildcard or quote can reach the patterns.
  const startsAWord = "(nome_busca LIKE CONCAT(?, '%') OR nome_busca LIKE CONCAT('% ', ?, '%'))";
  const [walked] = await pool.query(
    `SELECT ${columns} FROM ranking_entries WHERE posicao BETWEEN 1 AND ? AND ${words.map(() => startsAWord).join(' AND ')} ORDER BY posicao LIMIT ?`,
    [walkWindow, ...words.flatMap((word) => [word, word]), limit],
  );
  let rows = walked as Row[];
  if (rows.length < limit) {
    if (words.every((word) => word.length >= FULLTEXT_MIN_WORD)) {
      const [indexed] = await pool.query(
        `SELECT ${columns} FROM ranking_entries
         WHERE MATCH(nome_busca) AGAINST (? IN BOOLEAN MODE) AND posicao IS NOT NULL ORDER BY posicao LIMIT ?`,
        [words.map((word) => `+${word}*`).join(' '), limit],
      );
      rows = indexed as Row[];
    } else {
      // The table keeps NAME_WORD_MAX characters of a word: a longer query word is looked up by
      // those and checked whole on the name.
      const longer = words.filter((word) => word.length > NAME_WORD_MAX);
      const [indexed] = await pool.query(
        `SELECT ${columns} FROM ranking_entries
         WHERE ${words.map(() => 'id_pessoa IN (SELECT id_pessoa FROM ranking_name_words WHERE palavra LIKE ?) AND ').join('')}
           ${longer.map(() => `${startsAWord} AND `).join('')}posicao IS NOT NULL ORDER BY posicao LIMIT ?`,
        [...words.map((word) => `${word.slice(0, NAME_WORD_MAX)}%`), ...longer.flatMap((word) => [word, word]), limit],
      );
      rows = indexed as Row[];
    }
  }
  return rows.map((row) => ({
    id_pessoa: Number(row.id_pessoa),
    nome: String(row.nome),
    posicao: Number(row.posicao),
    pontuacao_total: Number(row.pontuacao_total),
  }));
}

export async function entryById(pool: Pool, idPessoa: number): Promise<StoredEntry | null> {
  const entries = await select(pool, `SELECT ${ENTRY_COLUMNS} FROM ranking_entries e WHERE e.id_pessoa = ? AND e.posicao IS NOT NULL`, [
    idPessoa,
  ]);
  return entries[0] ?? null;
}

/** Seal codes present in the stored ranking (a loose scan of the seal index's first column). */
export async function storedSealCodes(pool: Pool): Promise<string[]> {
  const [rows] = await pool.query('SELECT DISTINCT selo FROM ranking_entry_seals ORDER BY selo');
  return (rows as Array<{ selo: string }>).map((row) => row.selo);
}

/** A positioned entry with its details, by id: one query on both primary keys (GET /consultor/{id}). */
export async function entryWithDetailsById(pool: Pool, idPessoa: number): Promise<StoredEntryWithDetails | null> {
  const [entry] = await entriesWithDetailsByIds(pool, [idPessoa]);
  return entry ?? null;
}

/**
 * The positioned entries at positions `first`..`last`, with their details, in position order; the
 * breakdowns dated `referenceDate` when given (a run rendering its pages before it completes).
 */
export async function entriesAtPositions(
  pool: Pool,
  first: number,
  last: number,
  referenceDate?: string,
): Promise<StoredEntryWithDetails[]> {
  return selectWithDetails(
    pool,
    `SELECT ${DETAIL_COLUMNS} FROM ranking_entries e ${JOIN_DETAILS} WHERE e.posicao BETWEEN ? AND ? ORDER BY e.posicao`,
    [first, last],
    referenceDate,
  );
}

/** Positioned entries with their details, by id (any order). */
export async function entriesWithDetailsByIds(pool: Pool, ids: number[]): Promise<StoredEntryWithDetails[]> {
  if (ids.length === 0) return [];
  return selectWithDetails(
    pool,
    `SELECT ${DETAIL_COLUMNS} FROM ranking_entries e ${JOIN_DETAILS} WHERE e.id_pessoa IN (?) AND e.posicao IS NOT NULL`,
    [ids],
  );
}
