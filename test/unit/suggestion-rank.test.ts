import { rankSuggestions, type SuggestionHit } from '../../domain/suggestion/suggest';

const period = (ies: string, areas: string[], lines: string[] = []) => ({
  situacao: 'Ativo' as const,
  inicio: '2018-01-01',
  ies_sigla: ies,
  areas_avaliacao: areas,
  linhas_pesquisa: lines,
});
const hit = (id: number, score: number, source: SuggestionHit['source']): SuggestionHit => ({ id_pessoa: id, score, source });

describe('rankSuggestions (suggestion rules 2 to 6 together)', () => {
  const hits = [
    hit(1, 9, { nome: 'Ana', consultoria: [period('USP', ['Saúde Coletiva'])] }),
    hit(2, 8, {
      nome: 'Bruno',
      consultoria: [period('USP', ['Saúde Coletiva'], ['Saúde mental na atenção básica'])],
      premiacoes: [{ tipo: 'PREMIACAO', papel: 'Autor', premio: 'P', ano: 2020 }],
    }),
    hit(3, 7, { nome: 'Carla', consultoria: [period('USP', ['Medicina I'])], coordenacoes_agency: [{ tipo: 'CA', inicio: '2019-01-01' }] }),
    hit(4, 6, { nome: 'Davi', consultoria: [period('UFMG', ['Saúde Coletiva'])] }),
  ];
  const places = new Map([
    [1, { posicao: 9_000, pontuacao_total: 100 }],
    [2, { posicao: 9_500, pontuacao_total: 90 }],
    [4, { posicao: 2_000, pontuacao_total: 500 }],
  ]);

  it('scores, sorts and selects with institution diversity', () => {
    // Final scores: 1 → 9 + 10 = 19; 2 → 8 + 5 + 10 = 23; 3 → 7 + 20 = 27 (not ranked); 4 → 6 + 80 = 86.
    // Sorted: 4 (UFMG), 3 (USP), 2 (USP), 1 (USP); quantidade 3 (half 1): 4, 3 taken; 2 and 1 taken in order.
    const result = rankSuggestions('saúde', hits, places, 3);
    expect(result.map((record) => [record.id_pessoa, record.score_match])).toEqual([
      [4, 86],
      [3, 27],
      [2, 23],
    ]);
    expect(result[1]).toEqual({
      id_pessoa: 3,
      nome: 'Carla',
      score_match: 27,
      areas_avaliacao: ['Medicina I'],
      areas_conhecimento: [],
      linhas_pesquisa: [],
      situacao: 'Ativo',
      ies: 'USP',
      foi_coordenador: true,
      foi_premiado: false,
      posicao_ranking: null,
      pontuacao_ranking: 0,
      motivos_match: ['Foi Coordenador de Area'],
    });
    expect(result[2]?.motivos_match).toEqual([
      'Area Avaliacao: Saúde Coletiva',
      'Pesquisa: Saúde mental na atenção básica...',
      'Foi Premiado',
    ]);
  });

  it('skips a repeated institution while fewer than quantidade // 2 are selected', () => {
    // quantidade 4 (half 2): 4 (UFMG), 3 (USP) → 2 selected, so 2 and 1 (USP) follow in order.
    expect(rankSuggestions('saúde', hits, places, 4).map((record) => record.id_pessoa)).toEqual([4, 3, 2, 1]);
    // Without the UFMG candidate: 3 (USP) selected, 2 and 1 skipped; refilled in order.
    expect(rankSuggestions('saúde', hits.slice(0, 3), places, 4).map((record) => record.id_pessoa)).toEqual([3, 2, 1]);
  });

  it('returns nothing for no candidates', () => {
    expect(rankSuggestions('saúde', [], new Map(), 20)).toEqual([]);
  });
});
