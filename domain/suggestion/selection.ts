import { normaliseForMatch } from './normalise';

interface Ranked {
  id_pessoa: number;
  score_match: number;
  ies: string | null;
}

/** Final score descending; equal scores by id_pessoa ascending, so the order never depends on the index. */
export function bySuggestionOrder(a: Ranked, b: Ranked): number {
  return b.score_match - a.score_match || a.id_pessoa - b.id_pessoa;
}

/**
 * Spellings of one institution differ in case, accents and entities (`UnB` / `UNB`): they are
 * compared in rule 3's normalised form. A candidate without an institution repeats no one's.
 */
function institutionKey(ies: string | null): string | null {
  if (ies === null) return null;
  const key = normaliseForMatch(ies);
  return key === '' ? null : key;
}

/**
 * Rule 6 on candidates already sorted (bySuggestionOrder): while fewer than `quantidade // 2` are
 * selected, a candidate whose institution is already selected is skipped; from then on every
 * candidate is taken in order. Then the skipped ones fill the list, in their order, up to
 * `quantidade`. The result keeps that order: selected first, refill after (it is not re-sorted).
 */
export function selectWithInstitutionDiversity<T extends Ranked>(sorted: readonly T[], quantidade: number): T[] {
  const half = Math.floor(quantidade / 2);
  const selected: T[] = [];
  const skipped: T[] = [];
  const institutions = new Set<string>();
  for (const candidate of sorted) {
    if (selected.length >= quantidade) break;
    const key = institutionKey(candidate.ies);
    if (key !== null && institutions.has(key) && selected.length < half) {
      skipped.push(candidate);
      continue;
    }
    selected.push(candidate);
    if (key !== null) institutions.add(key);
  }
  for (const candidate of skipped) {
    if (selected.length >= quantidade) break;
    selected.push(candidate);
  }
  return selected;
}
