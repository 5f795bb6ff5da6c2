import { matchReason, matchReasons } from '../../domain/suggestion/matching';
import { themeMatcher } from '../../domain/suggestion/normalise';

describe('matchReasons (suggestion rule 3)', () => {
  const candidate = {
    areas_conhecimento: ['Epidemiologia', 'Saúde Pública'],
    areas_avaliacao: ['Saúde Coletiva', 'Medicina II'],
    linhas_pesquisa: ['Vigilância em saúde do trabalhador e ambientes de trabalho urbanos', 'Saúde bucal', 'Nutrição'],
  };

  it('gives one reason per matching text: knowledge areas, then assessment areas, then research lines', () => {
    expect(matchReasons(candidate, themeMatcher('saúde'))).toEqual([
      'Area: Saúde Pública',
      'Area Avaliacao: Saúde Coletiva',
      // the first 50 characters of a 66-character line, then "..."
      'Pesquisa: Vigilância em saúde do trabalhador e ambientes de ...',
      // a shorter line is quoted whole, still followed by "..."
      'Pesquisa: Saúde bucal...',
    ]);
  });

  it('gives no reason when nothing matches', () => {
    expect(matchReasons(candidate, themeMatcher('astronomia'))).toEqual([]);
  });

  it('writes each reason text exactly', () => {
    expect(matchReason.knowledgeArea('Ensino')).toBe('Area: Ensino');
    expect(matchReason.assessmentArea('Educação')).toBe('Area Avaliacao: Educação');
    expect(matchReason.researchLine('x'.repeat(50))).toBe(`Pesquisa: ${'x'.repeat(50)}...`);
    expect(matchReason.researchLine('x'.repeat(51))).toBe(`Pesquisa: ${'x'.repeat(50)}...`);
  });
});
