import type { Pool } from 'mysql2/promise';
import type { RankingPlace } from '../domain/suggestion/score';

export interface RankingPlaces {
  /** Whether the persisted ranking has positioned entries (a completed run). */
  ready: boolean;
  /** Position and total score of each given person that has a position. */
  places: Map<number, RankingPlace>;
}

/**
 * Positions and total scores of a list of persons, and whether the ranking is ready, in one query
 * (one round trip however many candidates). Only positioned rows count, as for every ranking read
 * (docs/ranking-storage.md): before the first completed run nobody has a place. The derived table
 * always yields one row, so readiness is known even when no candidate is ranked; the EXISTS reads
 * one entry of the position index, the join is a primary-key lookup per id.
 */
export async function rankingPlaces(pool: Pool, ids: readonly number[]): Promise<RankingPlaces> {
  const [rows] = await pool.query(
    `SELECT r.pronto, e.id_pessoa, e.posicao, e.pontuacao_total
       FROM (SELECT EXISTS (SELECT 1 FROM ranking_entries WHERE posicao IS NOT NULL) AS pronto) r
       LEFT JOIN ranking_entries e ON e.id_pessoa IN (?) AND e.posicao IS NOT NULL`,
    // `IN ()` is not SQL: no candidates asks for NULL, which matches nobody.
    [ids.length > 0 ? ids : [null]],
  );
  const result = rows as Array<{ pronto: number; id_pessoa: number | null; posicao: number | null; pontuacao_total: number | null }>;
  const places = new Map<number, RankingPlace>();
  for (const row of result) {
    if (row.id_pessoa === null || row.posicao === null) continue;
    places.set(Number(row.id_pessoa), { posicao: Number(row.posicao), pontuacao_total: Number(row.pontuacao_total) });
  }
  return { ready: Number(result[0]?.pronto ?? 0) === 1, places };
}
