import type { estypes } from '@elastic/elasticsearch';
import { damageEncoding } from '../text';

/** The parameters of GET /consultores/sugerir after validation. */
export interface SuggestionQuery {
  tema: string;
  area_avaliacao?: string;
  apenas_ativos: boolean;
  quantidade: number;
}

/** Rule 1: the index is asked for three candidates per requested consultant. */
export const CANDIDATES_PER_CONSULTANT = 3;

/** The consultancy texts the theme is searched in (rule 1), analysed with `texto_pt`. */
export const SEARCHED_FIELDS = [
  'consultoria.areas_avaliacao',
  'consultoria.areas_conhecimento.nome',
  'consultoria.linhas_pesquisa',
] as const;

/** Exact assessment areas, for the optional filter. */
const ASSESSMENT_AREA_KEYWORD = 'consultoria.areas_avaliacao.keyword';

/** Only what rules 2 and 3 read: a whole document is several KB, these fields a few hundred bytes. */
export const SUGGESTION_SOURCE_FIELDS = [
  'id_pessoa',
  'nome',
  'consultoria.situacao',
  'consultoria.inicio',
  'consultoria.ies_sigla',
  'consultoria.ies_nome',
  'consultoria.areas_avaliacao',
  'consultoria.areas_conhecimento.nome',
  'consultoria.linhas_pesquisa',
  // Only whether the lists have an element matters; `tipo` is present in every element.
  'coordenacoes_agency.tipo',
  'premiacoes.tipo',
];

/**
 * What the full-text clauses search: the theme as typed (the index has no accent folding) followed by
 * the damaged spelling of each of its words that has one, so a damaged text (`Sa250de Coletiva`) is
 * found too; it is then repaired for display and matched (rules 3 and 4).
 */
export function themeSearchText(tema: string): string {
  const words = tema.normalize('NFC').split(/\s+/).filter(Boolean);
  const damaged = words.map(damageEncoding).filter((word, i) => word !== words[i]);
  return [...words, ...damaged].join(' ');
}

/** The area filter: the area as given or in its damaged spelling, in any case. */
function assessmentAreaFilter(area: string): estypes.QueryDslQueryContainer {
  const spellings = [...new Set([area, damageEncoding(area)])];
  return {
    bool: {
      should: spellings.map((value) => ({ term: { [ASSESSMENT_AREA_KEYWORD]: { value, case_insensitive: true } } })),
      minimum_should_match: 1,
    },
  };
}

/**
 * Rule 1 as one search request (without the index name): `quantidade × 3` best matches of the theme
 * in any of the three consultancy texts (each a `match` clause, at least one required, scores
 * summed by Elasticsearch); filtered by assessment area when given and to active persons unless
 * `apenas_ativos` is false. Sorted by relevance only: equal match scores at the edge of the window
 * come in the index's internal order (a tie-break on id_pessoa cost ~10% of the search time at
 * 300 000 persons); rankSuggestions orders the final list deterministically.
 */
export function suggestionSearchRequest(query: SuggestionQuery): estypes.SearchRequest {
  const text = themeSearchText(query.tema);
  const filter: estypes.QueryDslQueryContainer[] = [];
  if (query.apenas_ativos) filter.push({ term: { ativo: true } });
  if (query.area_avaliacao !== undefined) filter.push(assessmentAreaFilter(query.area_avaliacao));
  return {
    size: query.quantidade * CANDIDATES_PER_CONSULTANT,
    track_total_hits: false,
    _source: { includes: SUGGESTION_SOURCE_FIELDS },
    query: {
      bool: {
        should: SEARCHED_FIELDS.map((field) => ({ match: { [field]: { query: text } } })),
        minimum_should_match: 1,
        filter,
      },
    },
  };
}
