import { z } from 'zod';
import { rankingPlaces } from '../../db/ranking-positions';
import type { SuggestionQuery } from '../../domain/suggestion/search-request';
import { suggestionRecordSchema } from '../../domain/suggestion/score';
import { rankSuggestions } from '../../domain/suggestion/suggest';
import { suggestionHits } from '../persons';
import type { RankingDeps } from './deps';

/** The suggestion response. */
export const suggestionAnswerSchema = z
  .object({
    tema_buscado: z.string().meta({ description: 'The theme searched, trimmed' }),
    total_encontrados: z.number().int().min(0).meta({ description: 'How many are returned' }),
    consultores: z.array(suggestionRecordSchema).meta({ description: 'By final score, with institution diversity (rule 6)' }),
  })
  .meta({ id: 'SuggestionAnswer' });
export type SuggestionAnswer = z.infer<typeof suggestionAnswerSchema>;

/** GET /consultores/sugerir (docs/suggestion.md): one search, one positions query, pure rules 2-6. */
export async function suggestConsultants(deps: RankingDeps, query: SuggestionQuery & { quantidade: number }): Promise<SuggestionAnswer> {
  const hits = await suggestionHits(deps.persons, query);
  const ranking = await rankingPlaces(
    deps.pool,
    hits.map((hit) => hit.id_pessoa),
  );
  if (!ranking.ready) deps.logger.debug('suggestion without ranking positions: the ranking is not processed');
  const consultores = rankSuggestions(query.tema, hits, ranking.places, query.quantidade);
  return { tema_buscado: query.tema, total_encontrados: consultores.length, consultores };
}
