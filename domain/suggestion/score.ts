import { z } from 'zod';
import { suggestionCandidateSchema, type SuggestionCandidate } from './candidate';
import { matchReasons } from './matching';
import type { ThemeMatcher } from './normalise';

/** Rule 5's constants. */
export const COORDINATOR_BONUS = 20;
export const AWARD_BONUS = 10;
export const COORDINATOR_REASON = 'Foi Coordenador de Area';
export const AWARD_REASON = 'Foi Premiado';
export const MAX_REASONS = 5;

/** A person's place in the persisted ranking (only positioned entries have one). */
export interface RankingPlace {
  posicao: number;
  pontuacao_total: number;
}

const { id_pessoa: idField, nome: nameField, ...candidateFields } = suggestionCandidateSchema.shape;

/** The suggestion record of the specification, in its field order. */
export const suggestionRecordSchema = z
  .object({
    id_pessoa: idField,
    nome: nameField,
    score_match: z
      .number()
      .meta({ description: "The final score: the index's match score + the ranking bonus + 20 (coordinator) + 10 (awarded); not rounded" }),
    ...candidateFields,
    posicao_ranking: z.number().int().min(1).nullable().meta({ description: 'Position in the ranking; null when the person has none' }),
    pontuacao_ranking: z.number().meta({ description: 'Total score in the ranking; 0 without a position' }),
    motivos_match: z.array(z.string()).max(MAX_REASONS).meta({ description: 'Why the person matched, at most 5' }),
  })
  .meta({ id: 'SuggestionRecord' });
export type SuggestionRecord = z.infer<typeof suggestionRecordSchema>;

/** max(0, (10000 - posicao) / 100) for a ranked person; 0 without a position. */
export function rankingBonus(posicao: number | null): number {
  return posicao === null ? 0 : Math.max(0, (10_000 - posicao) / 100);
}

/**
 * Rule 5: final score = the index's match score + the ranking bonus + 20 for a coordinator + 10 for
 * an awarded person; the reasons are the theme matches, then `Foi Coordenador de Area`, then
 * `Foi Premiado`, cut to 5. The score is not rounded.
 */
export function suggestionRecord(
  candidate: SuggestionCandidate,
  matchScore: number,
  place: RankingPlace | undefined,
  theme: ThemeMatcher,
): SuggestionRecord {
  const posicao = place?.posicao ?? null;
  const reasons = matchReasons(candidate, theme);
  let score = matchScore + rankingBonus(posicao);
  if (candidate.foi_coordenador) {
    score += COORDINATOR_BONUS;
    reasons.push(COORDINATOR_REASON);
  }
  if (candidate.foi_premiado) {
    score += AWARD_BONUS;
    reasons.push(AWARD_REASON);
  }
  // In the specification's field order.
  return {
    id_pessoa: candidate.id_pessoa,
    nome: candidate.nome,
    score_match: score,
    areas_avaliacao: candidate.areas_avaliacao,
    areas_conhecimento: candidate.areas_conhecimento,
    linhas_pesquisa: candidate.linhas_pesquisa,
    situacao: candidate.situacao,
    ies: candidate.ies,
    foi_coordenador: candidate.foi_coordenador,
    foi_premiado: candidate.foi_premiado,
    posicao_ranking: posicao,
    pontuacao_ranking: place?.pontuacao_total ?? 0,
    motivos_match: reasons.slice(0, MAX_REASONS),
  };
}
