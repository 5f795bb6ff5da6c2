import { extractCandidate } from '../../domain/suggestion/candidate';

describe('extractCandidate (suggestion rule 2)', () => {
  const periods = [
    {
      situacao: 'Inativo' as const,
      inicio: '2005-01-01',
      fim: '2010-12-31',
      ies_sigla: 'UFMG',
      ies_nome: 'Universidade Federal de Minas Gerais',
      areas_avaliacao: ['Educação'],
      areas_conhecimento: [{ nome: 'Ensino', area_avaliacao: 'Educação' }],
      linhas_pesquisa: ['Formação de professores'],
    },
    {
      situacao: 'Ativo' as const,
      inicio: '2015-03-01',
      fim: null,
      ies_sigla: null,
      ies_nome: 'Universidade de Bras237lia',
      areas_avaliacao: ['Educação', 'Sa250de Coletiva'],
      areas_conhecimento: [{ nome: 'Ensino' }, { nome: 'Pol237tica Educacional' }],
      linhas_pesquisa: ['Formação de professores', 'Avaliação educacional'],
    },
  ];

  it('takes situacao and ies from the latest period, the areas and lines of every period once, texts repaired', () => {
    expect(extractCandidate(7, { id_pessoa: 7, nome: 'Jo227o Ara250jo', consultoria: periods })).toEqual({
      id_pessoa: 7,
      nome: 'João Araújo',
      situacao: 'Ativo',
      ies: 'Universidade de Brasília', // no abbreviation: the name
      areas_avaliacao: ['Educação', 'Saúde Coletiva'],
      areas_conhecimento: ['Ensino', 'Política Educacional'],
      linhas_pesquisa: ['Formação de professores', 'Avaliação educacional'],
      foi_coordenador: false,
      foi_premiado: false,
    });
  });

  it('finds the latest period by its start, whatever the listing order; the abbreviation wins over the name', () => {
    const candidate = extractCandidate(7, { consultoria: [periods[1]!, { ...periods[0]!, inicio: '2020-01-01', ies_sigla: 'UFMG' }] });
    expect(candidate.situacao).toBe('Inativo');
    expect(candidate.ies).toBe('UFMG');
  });

  it('takes ies from the most recent period that names an institution', () => {
    const candidate = extractCandidate(7, { consultoria: [periods[0]!, { ...periods[1]!, ies_nome: null }] });
    expect(candidate.situacao).toBe('Ativo');
    expect(candidate.ies).toBe('UFMG');
  });

  it('sets foi_coordenador for any agency coordination and foi_premiado for any award received', () => {
    const candidate = extractCandidate(7, {
      consultoria: periods,
      coordenacoes_agency: [{ tipo: 'CAM', inicio: '2012-01-01' }],
      premiacoes: [{ tipo: 'MENCAO', papel: 'Orientador', premio: 'Prêmio de Tese', ano: 2019 }],
    });
    expect(candidate.foi_coordenador).toBe(true);
    expect(candidate.foi_premiado).toBe(true);
    expect(extractCandidate(7, { consultoria: periods, coordenacoes_agency: [], premiacoes: [] })).toMatchObject({
      foi_coordenador: false,
      foi_premiado: false,
    });
  });

  it('decodes HTML entities of displayed texts; the same text in two spellings is listed once', () => {
    const candidate = extractCandidate(8, {
      consultoria: [
        {
          situacao: 'Ativo',
          inicio: '2019-01-01',
          ies_sigla: 'PUC-Rio',
          linhas_pesquisa: ['Educa&ccedil;&atilde;o em sa&uacute;de', 'Educação em saúde'],
        },
      ],
    });
    expect(candidate.linhas_pesquisa).toEqual(['Educação em saúde']);
  });

  it('copes with a person without consultancy and with empty or missing values', () => {
    expect(extractCandidate(9, { nome: 'Ana' })).toEqual({
      id_pessoa: 9,
      nome: 'Ana',
      situacao: '',
      ies: null,
      areas_avaliacao: [],
      areas_conhecimento: [],
      linhas_pesquisa: [],
      foi_coordenador: false,
      foi_premiado: false,
    });
    const sparse = extractCandidate(9, {
      consultoria: [null as never, { situacao: 'Ativo', inicio: '2020-01-01', ies_sigla: ' ', areas_avaliacao: ['', 'Física'] }],
    });
    expect(sparse).toMatchObject({
      situacao: 'Ativo',
      ies: null,
      areas_avaliacao: ['Física'],
      areas_conhecimento: [],
      linhas_pesquisa: [],
    });
  });
});
