import type { Pool, PoolConnection } from 'mysql2/promise';
import { readyComplementsJson } from '../domain/ranking-entry';
import { replaceRows } from './load-data';
import { rankOrderBy } from './ranking-order';
import type { RankingRow } from '../domain/ranking-row';
import { nameWords } from '../domain/text';
import { monotonicSeconds } from '../lib/monotonic-clock';

/** A ranking row as the job writes it (column names as in the table); built by the domain (domain/ranking-row.ts). */
export type { RankingRow } from '../domain/ranking-row';

const ENTRY_COLUMNS = [
  'id_pessoa',
  'nome',
  'nome_busca',
  'pontuacao_total',
  'bloco_a',
  'bloco_b',
  'bloco_c',
  'bloco_d',
  'bloco_e',
  'ativo',
  'anos_atuacao',
  'coordenador_ppg',
  'tipos_atuacao',
  'selos',
  'run_id',
  'impressao',
  'chave_documento',
  'verificada_em',
] as const;

/** Rows per INSERT: ~1-3 KB each, so a statement stays far below max_allowed_packet. */
const ROWS_PER_STATEMENT = 500;

const DETAIL_COLUMNS = ['id_pessoa', 'detalhes', 'complementos', 'complementos_prontos', 'id_cv', 'revisao_documento'] as const;

// A row written is one whose page must be rendered again (a new row takes the column's default).
const UPSERT_ENTRIES = `INSERT INTO ranking_entries (${ENTRY_COLUMNS.join(', ')}) VALUES ?
  ON DUPLICATE KEY UPDATE ${ENTRY_COLUMNS.filter((column) => column !== 'id_pessoa')
    .map((column) => `${column} = VALUES(${column})`)
    .join(', ')}, pagina_pendente = TRUE`;

function entryValues(row: RankingRow): unknown[] {
  return ENTRY_COLUMNS.map((column) => {
    const value = row[column];
    return Array.isArray(value) ? JSON.stringify(value) : value;
  });
}

/**
 * A row's details. Complete complements are stored once, in response form, for pages to splice;
 * incomplete ones as JSON, for rules 3 and 4 to complete at read time (the reads take one or the other).
 */
function detailValues(row: RankingRow): Array<string | number | null> {
  const ready = readyComplementsJson(row.complementos);
  const complements = ready === null ? JSON.stringify(row.complementos) : '{}';
  return [row.id_pessoa, row.detalhes, complements, ready, ready === null ? null : (row.complementos.id_cv ?? null), row.revisao_documento];
}

async function inTransaction<T>(pool: Pool, work: (connection: PoolConnection) => Promise<T>): Promise<T> {
  const connection = await pool.getConnection();
  try {
    await connection.beginTransaction();
    const result = await work(connection);
    await connection.commit();
    return result;
  } catch (error) {
    await connection.rollback().catch(() => undefined);
    throw error;
  } finally {
    connection.release();
  }
}

/** Seconds an upsert spent on each table, summed over calls (the benchmark's profile, scripts/bench/ranking-profile.ts). */
export interface UpsertTimings {
  entries: number;
  details: number;
  seals: number;
  /** The name words (delete, insert). */
  words: number;
  /** The transaction's begin and commit, and the connection's checkout. */
  transaction: number;
}

/**
 * Upserts a batch of entries with their details and replaces their seals and name words, in one
 * transaction: a retried batch rewrites the same rows (keyed by id_pessoa) and never duplicates or half-applies.
 * With `timings`, adds the time spent on each table to it.
 */
export async function upsertRankingRows(pool: Pool, rows: RankingRow[], timings?: UpsertTimings): Promise<void> {
  if (rows.length === 0) return;
  const started = monotonicSeconds();
  let inside = 0;
  const timed = async (part: Exclude<keyof UpsertTimings, 'transaction'>, work: () => Promise<unknown>) => {
    const mark = monotonicSeconds();
    await work();
    const spent = monotonicSeconds() - mark;
    inside += spent;
    if (timings) timings[part] += spent;
  };
  await inTransaction(pool, async (connection) => {
    for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
      const chunk = rows.slice(start, start + ROWS_PER_STATEMENT);
      await timed('entries', () => connection.query(UPSERT_ENTRIES, [chunk.map(entryValues)]));
    }
    // The details are most of the bytes (~6 KB a person): loaded as text, not built into SQL.
    await timed('details', () => replaceRows(connection, 'ranking_entry_details', DETAIL_COLUMNS, rows.map(detailValues)));
    await timed('seals', () =>
      connection.query('DELETE FROM ranking_entry_seals WHERE id_pessoa IN (?)', [rows.map((row) => row.id_pessoa)]),
    );
    const seals = rows.flatMap((row) => row.selos.map((selo) => [selo, row.id_pessoa]));
    for (let start = 0; start < seals.length; start += ROWS_PER_STATEMENT * 4) {
      await timed('seals', () =>
        connection.query('INSERT INTO ranking_entry_seals (selo, id_pessoa) VALUES ?', [
          seals.slice(start, start + ROWS_PER_STATEMENT * 4),
        ]),
      );
    }
    // The words of the name as it is now (a changed name leaves none of its old words behind).
    const ids = rows.map((row) => row.id_pessoa);
    await timed('words', () => connection.query('DELETE FROM ranking_name_words WHERE id_pessoa IN (?)', [ids]));
    const words = rows.flatMap((row) => nameWords(row.nome_busca).map((word) => [row.id_pessoa, word]));
    for (let start = 0; start < words.length; start += ROWS_PER_STATEMENT * 4) {
      await timed('words', () =>
        connection.query('INSERT INTO ranking_name_words (id_pessoa, palavra) VALUES ?', [
          words.slice(start, start + ROWS_PER_STATEMENT * 4),
        ]),
      );
    }
  });
  if (timings) timings.transaction += monotonicSeconds() - started - inside;
}

/** Empties the stored ranking (entries, details, seals, name words, pages, the statistics snapshot and the persons read). */
export async function clearRanking(pool: Pool): Promise<void> {
  await pool.query('TRUNCATE TABLE ranking_entry_seals');
  await pool.query('TRUNCATE TABLE ranking_name_words');
  await pool.query('TRUNCATE TABLE ranking_entry_details');
  await pool.query('TRUNCATE TABLE ranking_entries');
  await pool.query('TRUNCATE TABLE ranking_statistics');
  await pool.query('TRUNCATE TABLE ranking_pages');
  await forgetPersonsRead(pool);
}

/** How a stored entry was built (docs/ranking-job.md, "Unchanged documents"). */
export interface StoredProvenance {
  impressao: Buffer | null;
  chave_documento: Buffer | null;
  verificada_em: string | null;
}

/** How the stored entries among `ids` were built, by id; absent: no entry. */
export async function storedProvenance(pool: Pool, ids: number[]): Promise<Map<number, StoredProvenance>> {
  if (ids.length === 0) return new Map();
  const [rows] = await pool.query(
    'SELECT id_pessoa, impressao, chave_documento, verificada_em FROM ranking_entries WHERE id_pessoa IN (?)',
    [ids],
  );
  return new Map((rows as Array<StoredProvenance & { id_pessoa: number }>).map(({ id_pessoa, ...provenance }) => [id_pessoa, provenance]));
}

/** Records that the entries of `ids` were found unchanged at `referenceDate`: a run of that day need not read their documents again. */
export async function markVerified(pool: Pool, ids: number[], referenceDate: string): Promise<void> {
  if (ids.length === 0) return;
  await pool.query('UPDATE ranking_entries SET verificada_em = ? WHERE id_pessoa IN (?) AND NOT (verificada_em <=> ?)', [
    referenceDate,
    ids,
    referenceDate,
  ]);
}

/** Starts a run's list of persons read (one run at a time: the job's workflow id is fixed). */
export async function forgetPersonsRead(pool: Pool): Promise<void> {
  await pool.query('TRUNCATE TABLE ranking_run_persons');
}

/** Adds persons to the run's list of persons read; idempotent, so a retried batch adds nothing twice. */
export async function recordPersonsRead(pool: Pool, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await pool.query('INSERT IGNORE INTO ranking_run_persons (id_pessoa) VALUES ?', [ids.map((id) => [id])]);
}

/** Removes the persons the run did not read: they are no longer in the index. Returns how many. */
export async function deletePersonsNotRead(pool: Pool): Promise<number> {
  // Two counts (~0.3 s at 300 000) spare the three deleting joins (~2 s) on the usual night, when nobody left.
  const [counts] = await pool.query(`SELECT (SELECT COUNT(*) FROM ranking_entries) AS entries,
    (SELECT COUNT(*) FROM ranking_run_persons r JOIN ranking_entries e ON e.id_pessoa = r.id_pessoa) AS read_entries`);
  const { entries, read_entries: readEntries } = (counts as Array<{ entries: number; read_entries: number }>)[0] ?? {
    entries: 0,
    read_entries: 0,
  };
  if (Number(entries) === Number(readEntries)) return 0;
  const gone = 'LEFT JOIN ranking_run_persons r ON r.id_pessoa = e.id_pessoa WHERE r.id_pessoa IS NULL';
  return inTransaction(pool, async (connection) => {
    await connection.query(`DELETE s FROM ranking_entry_seals s JOIN ranking_entries e ON e.id_pessoa = s.id_pessoa ${gone}`);
    await connection.query(`DELETE w FROM ranking_name_words w JOIN ranking_entries e ON e.id_pessoa = w.id_pessoa ${gone}`);
    await connection.query(`DELETE d FROM ranking_entry_details d JOIN ranking_entries e ON e.id_pessoa = d.id_pessoa ${gone}`);
    const [result] = await connection.query(`DELETE e FROM ranking_entries e ${gone}`);
    return (result as { affectedRows: number }).affectedRows;
  });
}

/** Whether any entry was written or moved since the stored pages were rendered. */
export async function anyPagePending(pool: Pool): Promise<boolean> {
  const [rows] = await pool.query('SELECT EXISTS (SELECT 1 FROM ranking_entries WHERE pagina_pendente) AS pending');
  return Number((rows as Array<{ pending: number }>)[0]?.pending) === 1;
}

/**
 * Assigns positions 1..n in one set-based statement, in the ranking's order (db/ranking-order.ts).
 * A row that moves is marked for its page to be rendered again.
 */
export async function assignPositions(pool: Pool): Promise<void> {
  await pool.query(`
    UPDATE ranking_entries e
    JOIN (SELECT id_pessoa, ROW_NUMBER() OVER (ORDER BY ${rankOrderBy()}) AS nova_posicao FROM ranking_entries) ranked
      ON ranked.id_pessoa = e.id_pessoa
    SET e.posicao = ranked.nova_posicao, e.pagina_pendente = TRUE
    WHERE NOT (e.posicao <=> ranked.nova_posicao)`);
}
