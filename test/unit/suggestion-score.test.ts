import type { SuggestionCandidate } from '../../domain/suggestion/candidate';
import { themeMatcher } from '../../domain/suggestion/normalise';
import { rankingBonus, suggestionRecord } from '../../domain/suggestion/score';

const candidate: SuggestionCandidate = {
  id_pessoa: 42,
  nome: 'Maria Lima',
  situacao: 'Ativo',
  ies: 'USP',
  areas_avaliacao: ['Saúde Coletiva'],
  areas_conhecimento: ['Saúde Pública'],
  linhas_pesquisa: ['Saúde do idoso'],
  foi_coordenador: false,
  foi_premiado: false,
};
const theme = themeMatcher('saúde');

describe('rankingBonus (suggestion rule 5)', () => {
  it('is max(0, (10000 - posicao) / 100) with a position and 0 without one', () => {
    expect(rankingBonus(1)).toBeCloseTo(99.99, 10);
    expect(rankingBonus(150)).toBeCloseTo(98.5, 10);
    expect(rankingBonus(9_999)).toBeCloseTo(0.01, 10);
    expect(rankingBonus(10_000)).toBe(0);
    expect(rankingBonus(12_345)).toBe(0); // never negative
    expect(rankingBonus(null)).toBe(0);
  });
});

describe('suggestionRecord (suggestion rule 5)', () => {
  it('adds the ranking bonus to the match score and carries the ranking place', () => {
    const record = suggestionRecord(candidate, 7.5, { posicao: 150, pontuacao_total: 612.4 }, theme);
    expect(record.score_match).toBeCloseTo(7.5 + 98.5, 10);
    expect(record.posicao_ranking).toBe(150);
    expect(record.pontuacao_ranking).toBe(612.4);
    expect(record.motivos_match).toEqual(['Area: Saúde Pública', 'Area Avaliacao: Saúde Coletiva', 'Pesquisa: Saúde do idoso...']);
  });

  it('without a position: the match score alone, posicao_ranking null, pontuacao_ranking 0', () => {
    const record = suggestionRecord(candidate, 7.5, undefined, theme);
    expect(record.score_match).toBe(7.5);
    expect(record.posicao_ranking).toBeNull();
    expect(record.pontuacao_ranking).toBe(0);
  });

  it('a position beyond 10000 adds nothing', () => {
    expect(suggestionRecord(candidate, 7.5, { posicao: 10_500, pontuacao_total: 3 }, theme).score_match).toBe(7.5);
  });

  it('adds 20 for a coordinator and 10 for an awarded person, each with its reason after the matches', () => {
    const both = { ...candidate, foi_coordenador: true, foi_premiado: true };
    const record = suggestionRecord(both, 7.5, { posicao: 150, pontuacao_total: 1 }, theme);
    expect(record.score_match).toBeCloseTo(7.5 + 98.5 + 20 + 10, 10);
    expect(record.motivos_match).toEqual([
      'Area: Saúde Pública',
      'Area Avaliacao: Saúde Coletiva',
      'Pesquisa: Saúde do idoso...',
      'Foi Coordenador de Area',
      'Foi Premiado',
    ]);
    expect(suggestionRecord({ ...candidate, foi_premiado: true }, 2, undefined, theme)).toMatchObject({ score_match: 12 });
  });

  it('cuts the reasons to 5 (the bonuses still count)', () => {
    const many = {
      ...candidate,
      areas_conhecimento: ['Saúde Pública', 'Saúde Mental', 'Saúde da Família'],
      foi_coordenador: true,
      foi_premiado: true,
    };
    const record = suggestionRecord(many, 1, undefined, theme);
    expect(record.motivos_match).toEqual([
      'Area: Saúde Pública',
      'Area: Saúde Mental',
      'Area: Saúde da Família',
      'Area Avaliacao: Saúde Coletiva',
      'Pesquisa: Saúde do idoso...',
    ]);
    expect(record.score_match).toBe(31);
  });

  it('answers every field of the suggestion record, in the specification order', () => {
    expect(Object.keys(suggestionRecord(candidate, 1, undefined, theme))).toEqual([
      'id_pessoa',
      'nome',
      'score_match',
      'areas_avaliacao',
      'areas_conhecimento',
      'linhas_pesquisa',
      'situacao',
      'ies',
      'foi_coordenador',
      'foi_premiado',
      'posicao_ranking',
      'pontuacao_ranking',
      'motivos_match',
    ]);
  });
});
