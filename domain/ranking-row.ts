import type { RankingRow } from '../db/ranking-store';
import type { PersonDocument } from './person-document';
import type { ScoredPerson } from './scoring/score-person';
import { nameSearchKey } from './text';

/**
 * The pass-through details stored with an entry. Languages, degrees and the cv object are not
 * stored: the paginated ranking reads them from the index, one multi-get per page (rules 3 and 4).
 */
export const STORED_DETAILS = [
  'consultoria',
  'coordenacoes_agency',
  'inscricoes',
  'avaliacoes_comissao',
  'premiacoes',
  'bolsas_funder',
  'participacoes',
  'orientacoes',
  'membros_banca',
  'docencias',
] as const;

export function toRankingRow(scored: ScoredPerson, doc: PersonDocument, runId: string): RankingRow {
  const detalhes: Record<string, unknown> = { pontuacao: scored.pontuacao };
  for (const key of STORED_DETAILS) {
    if (doc[key] !== undefined && doc[key] !== null) detalhes[key] = doc[key];
  }
  return {
    id_pessoa: scored.id_pessoa,
    nome: scored.nome,
    // Damaged names (`Jo227o`) are found by their repaired, accent-free form.
    nome_busca: nameSearchKey(scored.nome),
    pontuacao_total: scored.pontuacao_total,
    bloco_a: scored.bloco_a,
    bloco_b: scored.bloco_b,
    bloco_c: scored.bloco_c,
    bloco_d: scored.bloco_d,
    bloco_e: scored.bloco_e,
    ativo: scored.ativo,
    anos_atuacao: scored.anos_atuacao,
    coordenador_ppg: scored.coordenador_ppg,
    tipos_atuacao: scored.tipos_atuacao,
    selos: scored.selos,
    detalhes,
    run_id: runId,
  };
}
