import { rankingPlaces } from '../../db/ranking-positions';
import type { SuggestionQuery } from '../../domain/suggestion/search-request';
import { rankSuggestions } from '../../domain/suggestion/suggest';
import { suggestionHits } from '../persons';
import type { RankingDeps } from './deps';

/** GET /consultores/sugerir (docs/suggestion.md): one search, one positions query, pure rules 2-6. */
export async function suggestConsultants(deps: RankingDeps, query: SuggestionQuery & { quantidade: number }) {
  const hits = await suggestionHits(deps.persons, query);
  const ranking = await rankingPlaces(deps.pool, hits.map((hit) => hit.id_pessoa));
  if (!ranking.ready) deps.logger.debug('suggestion without ranking positions: the ranking is not processed');
  const consultores = rankSuggestions(query.tema, hits, ranking.places, query.quantidade);
  return { tema_buscado: query.tema, total_encontrados: consultores.length, consultores };
}
