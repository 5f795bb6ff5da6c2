import { extractCandidate, type SuggestionSource } from './candidate';
import { displayText, memoised, normaliseForMatch, themeMatcher } from './normalise';
import { suggestionRecord, type RankingPlace, type SuggestionRecord } from './score';
import { bySuggestionOrder, selectWithInstitutionDiversity } from './selection';

/** One candidate as the index returned it: its id, match score and the source fields asked for. */
export interface SuggestionHit {
  id_pessoa: number;
  score: number;
  source: SuggestionSource;
}

/**
 * Rules 2 to 6 on the candidates of one search: extract, match, score with the ranking places
 * (absent for persons without a position), sort, select with institution diversity.
 */
export function rankSuggestions(
  tema: string,
  hits: readonly SuggestionHit[],
  places: ReadonlyMap<number, RankingPlace>,
  quantidade: number,
): SuggestionRecord[] {
  // Texts recur across candidates: each is decoded, repaired and folded once per request.
  const theme = themeMatcher(tema, memoised(normaliseForMatch));
  const display = memoised(displayText);
  const records = hits.map((hit) =>
    suggestionRecord(extractCandidate(hit.id_pessoa, hit.source, display), hit.score, places.get(hit.id_pessoa), theme),
  );
  return selectWithInstitutionDiversity(records.sort(bySuggestionOrder), quantidade);
}
