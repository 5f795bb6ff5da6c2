import {
  areaKey,
  concludedSupervisions,
  curriculumAnswer,
  curriculumDegrees,
  curriculumKnowledgeAreas,
  curriculumProjects,
  curriculumTeachings,
  isConcludedSupervision,
  isSupervisionInProgress,
  NO_CURRICULUM,
  PERSON_NOT_FOUND,
  professionalAddress,
  supervisionLevel,
  supervisionStatistics,
  type Curriculum,
} from '../../domain/curriculum';
import { degreeItems } from '../../domain/degrees';
import type { PersonDocument, Supervision } from '../../domain/person-document';

const BASE = 'https://cv.example.org/curriculo';

const found = (doc: Partial<PersonDocument>): Curriculum => {
  const answer = curriculumAnswer(doc, BASE);
  if (!answer.encontrado) throw new Error(`expected a curriculum, got ${answer.motivo}`);
  return answer;
};

describe('the two encontrado: false answers', () => {
  it('person not found: no document', () => {
    expect(curriculumAnswer(null, BASE)).toEqual({ encontrado: false, motivo: 'Pessoa não encontrada' });
    expect(PERSON_NOT_FOUND).toBe('Pessoa não encontrada');
  });

  it.each([[{}], [{ id_cv: null }], [{ id_cv: '' }], [{ id_cv: '   ' }], [{ id_cv: {} as unknown as string }]])(
    'no curriculum registered: %p',
    (doc) => {
      expect(curriculumAnswer({ id_pessoa: 1, nome: 'Ana', ...doc }, BASE)).toEqual({
        encontrado: false,
        motivo: 'Currículo não cadastrado',
      });
      expect(NO_CURRICULUM).toBe('Currículo não cadastrado');
    },
  );
});

describe('a document with only an id and a name', () => {
  it('gives every field of the table, empty lists and nulls, data_atualizacao_cv null', () => {
    expect(curriculumAnswer({ id_pessoa: 7, nome: 'Jo227o Silva', id_cv: '1234567890123456' }, BASE)).toEqual({
      encontrado: true,
      id_cv: '1234567890123456',
      url: `${BASE}/1234567890123456`,
      nome: 'João Silva',
      data_nascimento: null,
      nacionalidade: null,
      titulacoes: [],
      idiomas: [],
      areas_conhecimento: [],
      endereco_profissional: null,
      orientacoes_concluidas: [],
      total_orientacoes: 0,
      estatisticas_orientacoes: null,
      docencias: [],
      empregos: [],
      projetos: [],
      total_projetos: 0,
      premiacoes_detalhadas: [],
      data_atualizacao_cv: null,
    });
  });

  it('keeps the birth date as stored (not parsed), a numeric id_cv as text, the url built by cvUrl', () => {
    const cv = found({ nome: 'Ana', id_cv: 42 as unknown as string, data_nascimento: '0000-00-00', nacionalidade: 'Brasileira' });
    expect(cv).toMatchObject({ id_cv: '42', url: `${BASE}/42`, data_nascimento: '0000-00-00', nacionalidade: 'Brasileira' });
    expect(curriculumAnswer({ nome: 'Ana', id_cv: 'a b' }, `${BASE}/`)).toMatchObject({ url: `${BASE}/a%20b` });
  });
});

describe('titulacoes', () => {
  const degrees = [
    { grau: 'Graduação', hierarquia: '4', ano: '1990', ies_nome: 'Universidade de Bras237lia' },
    { grau: 'Doutorado', hierarquia: '2', ano: 's/d', codigo_programa: '53001010001P7' },
    { grau: 'Doutorado', hierarquia: '2', ano: '2004' },
    { grau: 'Pós-Doutorado', hierarquia: 'N/I', ano: '2010' },
  ];

  it('are the ranking entry degree items in the same order (hierarquia asc, missing 99; ano desc)', () => {
    const items = curriculumDegrees(degrees);
    expect(items.map((item) => [item.grau, item.hierarquia, item.ano])).toEqual([
      ['Doutorado', 2, 2004],
      ['Doutorado', 2, null],
      ['Graduação', 4, 1990],
      ['Pós-Doutorado', null, 2010],
    ]);
    expect(items[0]).toEqual(degreeItems([degrees[2]!])[0]);
  });

  it('repair displayed texts and leave codes alone', () => {
    const items = curriculumDegrees(degrees);
    expect(items[2]?.ies_nome).toBe('Universidade de Brasília');
    expect(items[1]?.codigo_programa).toBe('53001010001P7');
    expect(items[0]?.pais).toBe('Brasil');
  });

  it('skip items that are not objects and a list that is not a list', () => {
    expect(curriculumDegrees([null, 'x', { grau: 'Mestrado', hierarquia: '3' }]).map((item) => item.grau)).toEqual(['Mestrado']);
    expect(curriculumDegrees('Doutorado')).toEqual([]);
  });
});

describe('idiomas', () => {
  it('map every proficiency, null when absent, in stored order', () => {
    const cv = found({
      nome: 'Ana',
      id_cv: '1',
      idiomas: [
        {
          idioma: 'Ingl234s',
          proficiencia_leitura: 'Bem',
          proficiencia_escrita: 'Razoavelmente',
          proficiencia_fala: 'Pouco',
          proficiencia_compreensao: 'Bem',
        },
        { idioma: 'Espanhol' },
      ],
    });
    expect(cv.idiomas).toEqual([
      {
        idioma: 'Inglês',
        proficiencia_leitura: 'Bem',
        proficiencia_escrita: 'Razoavelmente',
        proficiencia_fala: 'Pouco',
        proficiencia_compreensao: 'Bem',
      },
      {
        idioma: 'Espanhol',
        proficiencia_leitura: null,
        proficiencia_escrita: null,
        proficiencia_fala: null,
        proficiencia_compreensao: null,
      },
    ]);
  });
});

describe('areas_conhecimento', () => {
  it('gathers every period, first appearance first, each (name, assessment area) once, damaged spellings merged', () => {
    const consultoria = [
      {
        situacao: 'Inativo' as const,
        inicio: '2001-01-01',
        areas_conhecimento: [
          { nome: 'Educação', area_avaliacao: 'Educação' },
          { nome: 'Currículo', area_avaliacao: 'Educação' },
        ],
      },
      {
        situacao: 'Ativo' as const,
        inicio: '2010-01-01',
        areas_conhecimento: [
          { nome: 'Educa231227o', area_avaliacao: 'Educação' },
          { nome: 'EDUCAÇÃO', area_avaliacao: 'Educa231227o' },
          { nome: 'Curr237culo', area_avaliacao: 'Ensino' },
          { nome: '', area_avaliacao: 'Educação' },
          { nome: 'Ensino' },
        ],
      },
      { situacao: 'Inativo' as const, inicio: '2015-01-01' },
    ];
    expect(curriculumKnowledgeAreas(consultoria)).toEqual([
      { nome: 'Educação', area_avaliacao: 'Educação' },
      { nome: 'Currículo', area_avaliacao: 'Educação' },
      { nome: 'Currículo', area_avaliacao: 'Ensino' },
      { nome: 'Ensino', area_avaliacao: null },
    ]);
  });

  it('uses a key that folds case, accents and the encoding damage repairEncoding cannot undo', () => {
    expect(areaKey('Educa231227o')).toBe('educacao');
    expect(areaKey('194ngela')).toBe('angela');
    expect(areaKey(' Sa250de  Coletiva ')).toBe('saude coletiva');
    expect(areaKey('Engenharias III')).toBe('engenharias iii');
    // A number that touches no letter, or that is not a letter code, stays.
    expect(areaKey('Área 200')).toBe('area 200');
    expect(areaKey('a1000b')).toBe('a1000b');
  });
});

describe('endereco_profissional', () => {
  const professional = {
    tipo: 'Profissional',
    logradouro: 'Rua S227o Jo227o',
    numero: 's/n',
    cep: '40170-110',
    cidade: 'Salvador',
    pais: 'Brasil',
  };
  const residential = { tipo: 'Residencial', logradouro: 'Avenida Paulista', numero: '1000', cidade: 'São Paulo' };

  it('is the first Profissional address when none before it is main', () => {
    expect(professionalAddress([residential, professional])).toEqual({
      logradouro: 'Rua São João',
      numero: 's/n',
      complemento: null,
      bairro: null,
      cep: '40170-110',
      cidade: 'Salvador',
      pais: 'Brasil',
    });
  });

  it('is a main residential address listed before the professional one (first address of either kind)', () => {
    expect(professionalAddress([{ ...residential, principal: true }, professional])?.logradouro).toBe('Avenida Paulista');
    expect(professionalAddress([professional, { ...residential, principal: true }])?.logradouro).toBe('Rua São João');
  });

  it('matches the type in any case and without accents; principal must be true', () => {
    expect(professionalAddress([residential, { ...professional, tipo: 'PROFISSIONAL', logradouro: 'B' }])?.logradouro).toBe('B');
    expect(
      professionalAddress([
        { ...residential, principal: 'sim' },
        { ...residential, principal: false },
      ]),
    ).toBeNull();
  });

  it('is null with no qualifying address, no addresses, or a list that is not a list', () => {
    expect(professionalAddress([residential])).toBeNull();
    expect(professionalAddress(undefined)).toBeNull();
    expect(professionalAddress({ tipo: 'Profissional' })).toBeNull();
  });

  it('keeps numero and cep as stored (a number as text) and repairs the place names', () => {
    expect(professionalAddress([{ tipo: 'Profissional', numero: 12, cep: 40170110, cidade: 'Bel233m' }])).toMatchObject({
      numero: '12',
      cep: '40170110',
      cidade: 'Belém',
    });
  });
});

describe('supervision word matching', () => {
  it.each([
    ['Orientação Concluída', true],
    ['ORIENTAÇÃO CONCLUÍDA', true],
    ['orientacao concluida', true],
    ['Orientações concluídas', true],
    ['Coorientação Concluída', true],
    ['Orienta231227o Conclu237da', true],
    ['Orientação em Andamento', false],
    ['Concluída', false],
    ['Orientação', false],
    ['Supervisão Concluída', false],
    ['', false],
  ])('%p concluded: %p', (tipo, expected) => expect(isConcludedSupervision(tipo)).toBe(expected));

  it('in progress needs the supervision word and "andamento", and not concluded', () => {
    expect(isSupervisionInProgress('Orientação em Andamento')).toBe(true);
    expect(isSupervisionInProgress('ORIENTACAO EM ANDAMENTO')).toBe(true);
    expect(isSupervisionInProgress('Em andamento')).toBe(false);
    expect(isSupervisionInProgress('Orientação Concluída')).toBe(false);
    expect(isConcludedSupervision(undefined)).toBe(false);
  });

  it.each([
    ['Mestrado', 'mestrado'],
    ['Mestrado Profissional', 'mestrado'],
    ['Doutorado', 'doutorado'],
    ['Pós-Doutorado', 'pos_doutorado'],
    ['Pos-doc', 'pos_doutorado'],
    ['PÓS DOUTORADO', 'pos_doutorado'],
    ['Graduação', null],
    [undefined, null],
  ])('level of %p is %p', (nivel, expected) => expect(supervisionLevel(nivel)).toBe(expected));
});

const supervision = (over: Partial<Supervision>): Supervision => ({
  tipo: 'Orientação Concluída',
  nivel: 'Mestrado',
  papel: 'Orientador',
  concluida: true,
  ...over,
});

describe('orientacoes_concluidas and total_orientacoes', () => {
  it('keep concluded supervisions only, most recent first, missing years last, stored order on ties', () => {
    const list = [
      supervision({ titulo: 'A', ano: 2010 }),
      supervision({ titulo: 'B', ano: null }),
      supervision({ titulo: 'C', ano: 2020 }),
      supervision({ titulo: 'D', tipo: 'Orientação em Andamento', concluida: false, ano: 2024 }),
      supervision({ titulo: 'E', ano: 2010 }),
      supervision({ titulo: 'F' }),
    ];
    const { items, total } = concludedSupervisions(list);
    expect(items.map((item) => item.titulo)).toEqual(['C', 'A', 'E', 'B', 'F']);
    expect(total).toBe(5);
  });

  it('cut to 20 with the count before the cut', () => {
    const list = Array.from({ length: 25 }, (_, i) => supervision({ titulo: `T${i}`, ano: 2000 + i }));
    list.push(supervision({ tipo: 'Orientação em Andamento', concluida: false, ano: 2030 }));
    const cv = found({ nome: 'Ana', id_cv: '1', orientacoes: list });
    expect(cv.orientacoes_concluidas).toHaveLength(20);
    expect(cv.total_orientacoes).toBe(25);
    expect(cv.orientacoes_concluidas[0]?.titulo).toBe('T24');
    expect(cv.orientacoes_concluidas[19]?.titulo).toBe('T5');
  });

  it('have the six fields, texts repaired, null when absent', () => {
    const { items } = concludedSupervisions([
      supervision({ ano: 2019, titulo: 'Educa231227o e Sa250de', orientando: 'Jo227o', programa: 'Educação', ies: 'UnB' }),
      supervision({ ano: undefined }),
    ]);
    expect(items).toEqual([
      { tipo: 'Orientação Concluída', titulo: 'Educa231227o e Saúde', ano: 2019, orientando: 'João', programa: 'Educação', ies: 'UnB' },
      { tipo: 'Orientação Concluída', titulo: null, ano: null, orientando: null, programa: null, ies: null },
    ]);
  });
});

describe('estatisticas_orientacoes', () => {
  it('counts master and doctoral supervisions by state over the whole list, post-docs in any state', () => {
    const list = [
      ...Array.from({ length: 22 }, () => supervision({ nivel: 'Mestrado' })),
      supervision({ nivel: 'Mestrado', tipo: 'Orientação em Andamento', concluida: false }),
      supervision({ nivel: 'Doutorado' }),
      supervision({ nivel: 'Doutorado', tipo: 'Orientação em Andamento', concluida: false }),
      supervision({ nivel: 'Doutorado', tipo: 'ORIENTACAO EM ANDAMENTO', concluida: false }),
      supervision({ nivel: 'Pós-Doutorado' }),
      supervision({ nivel: 'Pós-Doutorado', tipo: 'Orientação em Andamento', concluida: false }),
      supervision({ nivel: 'Graduação' as Supervision['nivel'] }),
      supervision({ nivel: 'Mestrado', tipo: 'Orientação cancelada' }),
    ];
    expect(supervisionStatistics(list)).toEqual({
      mestrado_finalizado: 22,
      doutorado_finalizado: 1,
      mestrado_andamento: 1,
      doutorado_andamento: 2,
      pos_doutorado: 2,
    });
  });

  it('is null when nothing counts: no supervisions, or only ones of unknown level or state', () => {
    expect(supervisionStatistics(undefined)).toBeNull();
    expect(supervisionStatistics([])).toBeNull();
    expect(
      supervisionStatistics([supervision({ nivel: 'Graduação' as Supervision['nivel'] }), supervision({ tipo: 'Cancelada' })]),
    ).toBeNull();
    expect(found({ nome: 'Ana', id_cv: '1' }).estatisticas_orientacoes).toBeNull();
  });

  it('is an object as soon as one supervision counts, with zeros elsewhere', () => {
    expect(supervisionStatistics([supervision({ nivel: 'Pós-Doutorado', tipo: 'Orientação em Andamento' })])).toEqual({
      mestrado_finalizado: 0,
      doutorado_finalizado: 0,
      mestrado_andamento: 0,
      doutorado_andamento: 0,
      pos_doutorado: 1,
    });
  });
});

describe('docencias', () => {
  const teaching = {
    programa: 'Educa231227o',
    codigo_programa: '53001010001P7',
    modalidade: 'Acad234mico',
    situacao_programa: 'Em funcionamento',
    ies_nome: 'Universidade de Brasília',
    ies_sigla: 'UnB',
    area: 'Educação',
    area_avaliacao: 'Educação',
    categoria: 'Permanente',
    tipo_vinculo: 'CLT',
    regime_trabalho: 'Integral',
    carga_horaria: 40,
    coordenacoes: [{ inicio: '2010-01-01' }],
  };

  it('have the 13 fields plus active research lines cut to 5 and their count before the cut', () => {
    const lines = [
      { nome: 'L1', inicio: '2001-01-01' },
      { nome: 'Ended', inicio: '2001-01-01', fim: '2005-01-01' },
      { nome: 'L2', fim: null },
      { nome: 'L3', fim: '' },
      { nome: 'L4' },
      { nome: '' },
      { nome: 'L5' },
      { nome: 'L6' },
      { nome: 'L7' },
    ];
    expect(curriculumTeachings([{ ...teaching, linhas_pesquisa: lines }])).toEqual([
      {
        programa: 'Educa231227o',
        codigo_programa: '53001010001P7',
        modalidade: 'Acadêmico',
        situacao_programa: 'Em funcionamento',
        ies_nome: 'Universidade de Brasília',
        ies_sigla: 'UnB',
        area: 'Educação',
        area_avaliacao: 'Educação',
        categoria: 'Permanente',
        tipo_vinculo: 'CLT',
        regime_trabalho: 'Integral',
        carga_horaria: 40,
        linhas_pesquisa_ativas: ['L1', 'L2', 'L3', 'L4', 'L5'],
        total_linhas_pesquisa: 7,
      },
    ]);
  });

  it('without lines: an empty list and 0; missing fields null', () => {
    expect(curriculumTeachings([{ programa: 'P' }])).toEqual([
      {
        programa: 'P',
        codigo_programa: null,
        modalidade: null,
        situacao_programa: null,
        ies_nome: null,
        ies_sigla: null,
        area: null,
        area_avaliacao: null,
        categoria: null,
        tipo_vinculo: null,
        regime_trabalho: null,
        carga_horaria: null,
        linhas_pesquisa_ativas: [],
        total_linhas_pesquisa: 0,
      },
    ]);
  });
});

describe('empregos', () => {
  it('keep the stored order with their periods; periodos [] when absent', () => {
    const cv = found({
      nome: 'Ana',
      id_cv: '1',
      empregos: [
        {
          empregador: 'Funda231227o Oswaldo Cruz',
          cnpj: '12.345.678/0001-90',
          tipo_emprego: 'Servidor Público',
          atividade: 'Pesquisador',
          vinculo: 'Efetivo',
          profissao: 'Pesquisador',
          periodos: [{ inicio: '2001-03-01', fim: null }, { inicio: '1995-01-01' }],
        },
        { empregador: 'UFBA' },
      ],
    });
    expect(cv.empregos).toEqual([
      {
        empregador: 'Funda231227o Oswaldo Cruz',
        cnpj: '12.345.678/0001-90',
        tipo_emprego: 'Servidor Público',
        atividade: 'Pesquisador',
        vinculo: 'Efetivo',
        profissao: 'Pesquisador',
        periodos: [
          { inicio: '2001-03-01', fim: null },
          { inicio: '1995-01-01', fim: null },
        ],
      },
      { empregador: 'UFBA', cnpj: null, tipo_emprego: null, atividade: null, vinculo: null, profissao: null, periodos: [] },
    ]);
  });
});

describe('projetos and total_projetos', () => {
  it('keep named projects only (null, absent or blank names dropped), most recent first', () => {
    const { items, total } = curriculumProjects([
      { nome: 'Old', ano_inicio: 2001, situacao: 'Concluído' },
      { nome: null, ano_inicio: 2024 },
      { ano_inicio: 2024 },
      { nome: '  ', ano_inicio: 2024 },
      { nome: 'New', ano_inicio: 2020, linha_pesquisa: 'L', programa: 'P', ies_sigla: 'UnB', area: 'Educa231227o' },
      { nome: 'Undated' },
    ]);
    expect(total).toBe(3);
    expect(items).toEqual([
      { nome: 'New', situacao: null, ano_inicio: 2020, linha_pesquisa: 'L', programa: 'P', ies_sigla: 'UnB', area: 'Educa231227o' },
      { nome: 'Old', situacao: 'Concluído', ano_inicio: 2001, linha_pesquisa: null, programa: null, ies_sigla: null, area: null },
      { nome: 'Undated', situacao: null, ano_inicio: null, linha_pesquisa: null, programa: null, ies_sigla: null, area: null },
    ]);
  });

  it('cut to 30 with the count of named projects before the cut', () => {
    const projetos = [
      ...Array.from({ length: 40 }, (_, i) => ({ nome: `P${i}`, ano_inicio: 1980 + i })),
      ...Array.from({ length: 5 }, () => ({ nome: null, ano_inicio: 2030 })),
    ];
    const cv = found({ nome: 'Ana', id_cv: '1', projetos });
    expect(cv.projetos).toHaveLength(30);
    expect(cv.total_projetos).toBe(40);
    expect(cv.projetos[0]?.nome).toBe('P39');
    expect(cv.projetos[29]?.nome).toBe('P10');
  });
});

describe('premiacoes_detalhadas', () => {
  it('have the 12 fields in stored order, texts repaired, null when absent', () => {
    const cv = found({
      nome: 'Ana',
      id_cv: '1',
      premiacoes: [
        {
          tipo: 'PREMIACAO',
          papel: 'Orientador',
          premio: 'Pr234mio de Tese – Educação',
          evento: 'Cerimônia de Premiação Anual',
          premiacao: 'Premiado',
          ano: 2019,
          situacao: 'Homologado',
          produto_nome: 'Um estudo',
          produto_tipo: 'Tese',
          produto_autor: 'Jo227o',
          ies_sigla: 'UnB',
          programa: 'Educação',
          area: 'Educação',
        },
        { tipo: 'MENCAO', papel: 'Autor', premio: 'Prêmio Jovem Pesquisador', ano: 2015 },
      ],
    });
    expect(cv.premiacoes_detalhadas).toEqual([
      {
        premio: 'Prêmio de Tese – Educação',
        evento: 'Cerimônia de Premiação Anual',
        premiacao: 'Premiado',
        ano: 2019,
        papel: 'Orientador',
        situacao: 'Homologado',
        produto_nome: 'Um estudo',
        produto_tipo: 'Tese',
        produto_autor: 'João',
        ies_sigla: 'UnB',
        programa: 'Educação',
        area: 'Educação',
      },
      {
        premio: 'Prêmio Jovem Pesquisador',
        evento: null,
        premiacao: null,
        ano: 2015,
        papel: 'Autor',
        situacao: null,
        produto_nome: null,
        produto_tipo: null,
        produto_autor: null,
        ies_sigla: null,
        programa: null,
        area: null,
      },
    ]);
  });
});

describe('dirty sections', () => {
  it('a section that is not a list, or items that are not objects, give empty lists instead of failing', () => {
    const cv = found({
      nome: 'Ana',
      id_cv: '1',
      idiomas: 'Inglês',
      orientacoes: [null, 'x', 3],
      docencias: {},
      empregos: [[]],
      projetos: null,
      premiacoes: 'none',
      enderecos: 'Rua X',
      consultoria: [{ areas_conhecimento: 'Educação' }],
    } as unknown as Partial<PersonDocument>);
    expect(cv).toMatchObject({
      idiomas: [],
      orientacoes_concluidas: [],
      total_orientacoes: 0,
      estatisticas_orientacoes: null,
      docencias: [],
      empregos: [],
      projetos: [],
      total_projetos: 0,
      premiacoes_detalhadas: [],
      endereco_profissional: null,
      areas_conhecimento: [],
    });
  });
});
