import type { Pool } from 'mysql2/promise';

/** The statistics record of the specification (docs/ranking-api.md). */
export interface RankingStatistics {
  total_consultores: number;
  total_ativos: number;
  total_inativos: number;
  ultima_atualizacao: string | null;
  pontuacao_media: number;
  pontuacao_maxima: number;
  pontuacao_minima: number;
  media_blocos: { bloco_a: number; bloco_b: number; bloco_c: number; bloco_d: number; bloco_e: number };
  distribuicao: Array<{ faixa: string; quantidade: number; percentual: number }>;
}

/** Ranges of the total score, best first; the item shape of the earlier variant is kept. */
export const SCORE_RANGES: ReadonlyArray<{ faixa: string; min: number; max: number | null }> = [
  { faixa: '800+', min: 800, max: null },
  { faixa: '600-799', min: 600, max: 800 },
  { faixa: '400-599', min: 400, max: 600 },
  { faixa: '200-399', min: 200, max: 400 },
  { faixa: '0-199', min: Number.NEGATIVE_INFINITY, max: 200 },
];

const round2 = (value: number) => Math.round(value * 100) / 100;

function rangeCondition(range: (typeof SCORE_RANGES)[number]): string {
  const lower = Number.isFinite(range.min) ? `pontuacao_total >= ${range.min}` : 'TRUE';
  return range.max === null ? lower : `${lower} AND pontuacao_total < ${range.max}`;
}

/**
 * Computes the statistics with one aggregate scan and stores them as the snapshot row, with the run's
 * reference date (`YYYY-MM-DD`), which the reads put in the stored score breakdowns.
 */
export async function storeStatisticsSnapshot(
  pool: Pool,
  runId: string,
  computedAt: Date,
  referenceDate: string,
): Promise<RankingStatistics> {
  const rangeSums = SCORE_RANGES.map((range, i) => `SUM(${rangeCondition(range)}) AS faixa_${i}`).join(', ');
  const [rows] = await pool.query(`
    SELECT COUNT(*) AS total, COALESCE(SUM(ativo), 0) AS ativos,
           COALESCE(AVG(pontuacao_total), 0) AS media, COALESCE(MAX(pontuacao_total), 0) AS maxima,
           COALESCE(MIN(pontuacao_total), 0) AS minima,
           COALESCE(AVG(bloco_a), 0) AS a, COALESCE(AVG(bloco_b), 0) AS b, COALESCE(AVG(bloco_c), 0) AS c,
           COALESCE(AVG(bloco_d), 0) AS d, COALESCE(AVG(bloco_e), 0) AS e, ${rangeSums}
    FROM ranking_entries`);
  const row = (rows as Array<Record<string, string | number | null>>)[0] ?? {};
  const num = (key: string) => Number(row[key] ?? 0);
  const total = num('total');
  const statistics: RankingStatistics = {
    total_consultores: total,
    total_ativos: num('ativos'),
    total_inativos: total - num('ativos'),
    ultima_atualizacao: computedAt.toISOString(),
    pontuacao_media: round2(num('media')),
    pontuacao_maxima: round2(num('maxima')),
    pontuacao_minima: round2(num('minima')),
    media_blocos: {
      bloco_a: round2(num('a')),
      bloco_b: round2(num('b')),
      bloco_c: round2(num('c')),
      bloco_d: round2(num('d')),
      bloco_e: round2(num('e')),
    },
    distribuicao: SCORE_RANGES.map((range, i) => ({
      faixa: range.faixa,
      quantidade: num(`faixa_${i}`),
      percentual: total === 0 ? 0 : round2((num(`faixa_${i}`) * 100) / total),
    })),
  };
  await pool.query(
    `INSERT INTO ranking_statistics (id, run_id, calculado_em, data_referencia, dados) VALUES (1, ?, ?, ?, ?)
     ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), calculado_em = VALUES(calculado_em),
       data_referencia = VALUES(data_referencia), dados = VALUES(dados)`,
    [runId, computedAt, referenceDate, JSON.stringify(statistics)],
  );
  return statistics;
}

/** The reference date of the last completed run, or null before the first. */
export async function rankingReferenceDate(pool: Pool): Promise<string | null> {
  const [rows] = await pool.query('SELECT data_referencia FROM ranking_statistics WHERE id = 1');
  return (rows as Array<{ data_referencia: string | null }>)[0]?.data_referencia ?? null;
}

/** The stored snapshot, or null before the first completed run. */
export async function readStatisticsSnapshot(pool: Pool): Promise<RankingStatistics | null> {
  const [rows] = await pool.query('SELECT dados FROM ranking_statistics WHERE id = 1');
  const row = (rows as Array<{ dados: string }>)[0];
  return row ? (JSON.parse(row.dados) as RankingStatistics) : null;
}
