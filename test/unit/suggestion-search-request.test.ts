import { damageEncoding } from '../../domain/text';
import { SUGGESTION_SOURCE_FIELDS, suggestionSearchRequest, themeSearchText } from '../../domain/suggestion/search-request';

const match = (query: string) => [
  { match: { 'consultoria.areas_avaliacao': { query } } },
  { match: { 'consultoria.areas_conhecimento.nome': { query } } },
  { match: { 'consultoria.linhas_pesquisa': { query } } },
];

describe('suggestionSearchRequest (suggestion rule 1)', () => {
  it('asks for quantidade × 3 candidates matching any of the three consultancy texts, active only by default', () => {
    expect(suggestionSearchRequest({ tema: 'Física', apenas_ativos: true, quantidade: 20 })).toEqual({
      size: 60,
      track_total_hits: false,
      _source: { includes: SUGGESTION_SOURCE_FIELDS },
      query: {
        bool: {
          should: match('Física F237sica'),
          minimum_should_match: 1,
          filter: [{ term: { ativo: true } }],
        },
      },
    });
  });

  it('drops the active filter when apenas_ativos is false', () => {
    const request = suggestionSearchRequest({ tema: 'ensino', apenas_ativos: false, quantidade: 1 });
    expect(request.size).toBe(3);
    expect(request.query).toEqual({ bool: { should: match('ensino'), minimum_should_match: 1, filter: [] } });
  });

  it('filters by assessment area in any case, also under its damaged spelling', () => {
    const request = suggestionSearchRequest({
      tema: 'epidemiologia',
      area_avaliacao: 'Saúde Coletiva',
      apenas_ativos: true,
      quantidade: 100,
    });
    expect(request.size).toBe(300);
    expect((request.query as any).bool.filter).toEqual([
      { term: { ativo: true } },
      {
        bool: {
          should: [
            { term: { 'consultoria.areas_avaliacao.keyword': { value: 'Saúde Coletiva', case_insensitive: true } } },
            { term: { 'consultoria.areas_avaliacao.keyword': { value: 'Sa250de Coletiva', case_insensitive: true } } },
          ],
          minimum_should_match: 1,
        },
      },
    ]);
    const plain = suggestionSearchRequest({ tema: 'x', area_avaliacao: 'Medicina II', apenas_ativos: false, quantidade: 1 });
    expect((plain.query as any).bool.filter).toEqual([
      {
        bool: {
          should: [{ term: { 'consultoria.areas_avaliacao.keyword': { value: 'Medicina II', case_insensitive: true } } }],
          minimum_should_match: 1,
        },
      },
    ]);
  });

  it('reads from _source only what rules 2 and 3 need', () => {
    expect(SUGGESTION_SOURCE_FIELDS).toEqual([
      'id_pessoa',
      'nome',
      'consultoria.situacao',
      'consultoria.inicio',
      'consultoria.ies_sigla',
      'consultoria.ies_nome',
      'consultoria.areas_avaliacao',
      'consultoria.areas_conhecimento.nome',
      'consultoria.linhas_pesquisa',
      'coordenacoes_agency.tipo',
      'premiacoes.tipo',
    ]);
  });
});

describe('themeSearchText and damageEncoding', () => {
  it('writes accented letters of the repairable ranges as their Latin-1 codes', () => {
    expect(damageEncoding('Educação')).toBe('Educa231227o');
    expect(damageEncoding('Sau\u0301de')).toBe('Sa250de'); // decomposed input is composed first
    expect(damageEncoding('Medicina II')).toBe('Medicina II');
  });

  it('searches the theme as typed followed by the damaged spelling of each accented word', () => {
    expect(themeSearchText('Ciência de Dados')).toBe('Ciência de Dados Ci234ncia');
    expect(themeSearchText('  políticas   públicas ')).toBe('políticas públicas pol237ticas p250blicas');
    expect(themeSearchText('ensino')).toBe('ensino');
  });
});
