import { bySuggestionOrder, selectWithInstitutionDiversity } from '../../domain/suggestion/selection';

const c = (id: number, ies: string | null, score = 100 - id) => ({ id_pessoa: id, ies, score_match: score });
const ids = (list: Array<{ id_pessoa: number }>) => list.map((candidate) => candidate.id_pessoa);

describe('bySuggestionOrder (suggestion rule 6)', () => {
  it('sorts by final score descending, equal scores by id_pessoa', () => {
    const sorted = [c(3, 'A', 50), c(1, 'B', 10), c(2, 'C', 50), c(4, 'D', 80)].sort(bySuggestionOrder);
    expect(ids(sorted)).toEqual([4, 2, 3, 1]);
  });
});

describe('selectWithInstitutionDiversity (suggestion rule 6)', () => {
  it('quantidade 4: skips a repeated institution while fewer than 2 are selected, then refills with the skipped in order', () => {
    // 1 (USP) selected; 2 and 3 (USP) skipped: 1 selected < 4 // 2; 4 (UFMG) selected: 2 selected.
    // The candidates are exhausted with 2: the skipped 2 and 3 fill the list, in their order.
    expect(ids(selectWithInstitutionDiversity([c(1, 'USP'), c(2, 'USP'), c(3, 'USP'), c(4, 'UFMG')], 4))).toEqual([1, 4, 2, 3]);
  });

  it('quantidade 4: once 2 are selected a repeated institution is taken in order; skipped ones left over stay out', () => {
    // 1 (USP) selected; 2 (USP) skipped; 3 (UFMG) selected: 2 selected; 4 (USP) now taken; 5 (UnB) taken: 4 reached.
    const sorted = [c(1, 'USP'), c(2, 'USP'), c(3, 'UFMG'), c(4, 'USP'), c(5, 'UnB'), c(6, 'UFC')];
    expect(ids(selectWithInstitutionDiversity(sorted, 4))).toEqual([1, 3, 4, 5]);
  });

  it('fills only up to quantidade from the skipped ones', () => {
    // quantidade 5 (half 2): 1 selected; 2, 3, 4 skipped; 5 selected (2); 6 taken (3); then 2 and 3 refill to 5.
    const sorted = [c(1, 'X'), c(2, 'X'), c(3, 'X'), c(4, 'X'), c(5, 'Y'), c(6, 'Y')];
    expect(ids(selectWithInstitutionDiversity(sorted, 5))).toEqual([1, 5, 6, 2, 3]);
  });

  it('compares institutions without case, accents or entities', () => {
    expect(ids(selectWithInstitutionDiversity([c(1, 'UnB'), c(2, 'UNB'), c(3, 'Unicamp'), c(4, 'UNICAMP')], 4))).toEqual([1, 3, 4, 2]);
    const spellings = [c(1, 'Universidade de Brasília'), c(2, 'UNIVERSIDADE DE BRASILIA'), c(3, 'UFC')];
    expect(ids(selectWithInstitutionDiversity(spellings, 4))).toEqual([1, 3, 2]);
  });

  it('never skips a candidate without an institution', () => {
    expect(ids(selectWithInstitutionDiversity([c(1, null), c(2, null), c(3, 'X'), c(4, null)], 4))).toEqual([1, 2, 3, 4]);
  });

  it('quantidade 1 selects the best candidate; fewer candidates than quantidade returns them all', () => {
    expect(ids(selectWithInstitutionDiversity([c(1, 'X'), c(2, 'X')], 1))).toEqual([1]);
    expect(ids(selectWithInstitutionDiversity([c(1, 'X'), c(2, 'X')], 20))).toEqual([1, 2]);
    expect(selectWithInstitutionDiversity([], 20)).toEqual([]);
  });
});
