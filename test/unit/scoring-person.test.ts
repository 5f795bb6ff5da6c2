import type { PersonDocument } from '../../domain/person-document';
import { SCORING } from '../../domain/scoring/parameters';
import { ACTIVITY_KINDS, scorePerson, type ScoredPerson } from '../../domain/scoring/score-person';

// The three worked examples of docs/scoring.md (a newcomer, a mid-career consultant, a top person),
// scored at EXAMPLE_REFERENCE_DATE; the doc writes out their arithmetic, these tests pin it.

const EXAMPLE_REFERENCE_DATE = '2024-06-01';

const times = <T>(count: number, make: (index: number) => T): T[] => Array.from({ length: count }, (_, index) => make(index));

const NEWCOMER: PersonDocument = {
  id_pessoa: 101,
  nome: 'Beatriz Nogueira',
  ativo: true,
  consultoria: [{ situacao: 'Ativo', inicio: '2023-03-01', fim: null }],
  orientacoes: [{ tipo: 'Orientação em Andamento', nivel: 'Mestrado', papel: 'Orientador', concluida: false, ano: 2023 }],
  membros_banca: [{ nivel: 'Mestrado', ano: 2023 }],
  docencias: [{ programa: 'Ciência da Computação', coordenacoes: [] }],
};

const MID_CAREER: PersonDocument = {
  id_pessoa: 202,
  nome: 'Carlos Magalhães',
  ativo: true,
  anos_atuacao: 6,
  consultoria: [
    { situacao: 'Inativo', inicio: '2015-01-01', fim: '2015-12-31' },
    { situacao: 'Ativo', inicio: '2019-06-01', fim: null },
  ],
  coordenacoes_agency: [{ tipo: 'CAJ', area_avaliacao: 'Química', inicio: '2020-01-01', fim: '2023-12-31' }],
  inscricoes: [
    { tipo: 'INSC_AUTOR', premio: 'Prêmio de Tese', ano: 2019 },
    { tipo: 'INSC_AUTOR', premio: 'Prêmio de Tese', ano: 2021 },
  ],
  avaliacoes_comissao: [{ tipo: 'AVAL_COMIS_PREMIO', premio: 'Prêmio de Tese', ano: 2022 }],
  premiacoes: [
    { tipo: 'PREMIACAO', papel: 'Orientador', premio: 'Prêmio de Tese', ano: 2020 },
    { tipo: 'MENCAO', papel: 'Coorientador', premio: 'Prêmio de Tese', ano: 2022 },
  ],
  bolsas_funder: [{ modalidade: 'PQ-2', inicio: '2022-03-01', fim: '2025-02-28' }],
  participacoes: times(5, (i) => ({ tipo: 'Reunião de Avaliação Quadrienal', ano: 2019 + i })),
  orientacoes: [
    ...times(3, () => ({
      tipo: 'Orientação Concluída',
      nivel: 'Mestrado' as const,
      papel: 'Orientador' as const,
      concluida: true,
      ano: 2018,
    })),
    { tipo: 'Orientação Concluída', nivel: 'Doutorado', papel: 'Orientador', concluida: true, ano: 2021 },
    ...times(2, () => ({
      tipo: 'Orientação em Andamento',
      nivel: 'Doutorado' as const,
      papel: 'Orientador' as const,
      concluida: false,
      ano: 2022,
    })),
    { tipo: 'Orientação Concluída', nivel: 'Doutorado', papel: 'Coorientador', concluida: true, ano: 2020 },
  ],
  membros_banca: [
    { nivel: 'Mestrado', ano: 2020 },
    { nivel: 'Mestrado', ano: 2021 },
    { nivel: 'Doutorado', ano: 2022 },
    { nivel: 'Doutorado', ano: 2023 },
  ],
  docencias: [{ programa: 'Química', coordenacoes: [] }],
};

const TOP_PERSON: PersonDocument = {
  id_pessoa: 303,
  nome: 'Maria da Conceição Guimarães',
  ativo: true,
  anos_atuacao: 22,
  consultoria: [
    { situacao: 'Inativo', inicio: '2000-03-01', fim: '2005-02-28' },
    { situacao: 'Ativo', inicio: '2007-03-01', fim: null },
  ],
  coordenacoes_agency: [
    { tipo: 'CAM', area_avaliacao: 'Química', inicio: '2008-01-01', fim: '2011-12-31' },
    { tipo: 'CA', area_avaliacao: 'Química', inicio: '2014-01-01', fim: '2017-12-31' },
    { tipo: 'CA', area_avaliacao: 'Química', inicio: '2020-01-01', fim: null, funcao: 'Presidente da Câmara Temática' },
  ],
  inscricoes: times(8, (i) => ({ tipo: 'INSC_AUTOR' as const, premio: 'Prêmio de Tese', ano: 2015 + i })),
  avaliacoes_comissao: [
    { tipo: 'COORD_COMIS_GP', premio: 'Grande Prêmio de Tese', ano: 2021 },
    { tipo: 'COORD_COMIS_GP', premio: 'Grande Prêmio de Tese', ano: 2022 },
    { tipo: 'AVAL_COMIS_GP', premio: 'Grande Prêmio de Tese', ano: 2019 },
    { tipo: 'AVAL_COMIS_GP', premio: 'Grande Prêmio de Tese', ano: 2020 },
    { tipo: 'COORD_COMIS_PREMIO', premio: 'Prêmio de Tese', ano: 2023 },
  ],
  premiacoes: [
    { tipo: 'PREMIACAO_GP', papel: 'Autor', premio: 'Grande Prêmio de Tese', ano: 2005 },
    { tipo: 'PREMIACAO_GP', papel: 'Orientador', premio: 'Grande Prêmio de Tese', ano: 2018 },
    { tipo: 'PREMIACAO', papel: 'Orientador', premio: 'Prêmio de Tese', ano: 2016 },
  ],
  bolsas_funder: [
    { modalidade: 'PQ-1A', inicio: '2021-03-01', fim: '2026-02-28' },
    { modalidade: 'PQ-1B', inicio: '2016-03-01', fim: '2021-02-28' },
    { modalidade: 'PQ-1C', inicio: '2012-03-01', fim: '2016-02-29' },
  ],
  participacoes: times(12, (i) => ({ tipo: 'Comitê Técnico-Científico', ano: 2012 + i })),
  orientacoes: [
    ...times(6, () => ({
      tipo: 'Orientação Concluída',
      nivel: 'Doutorado' as const,
      papel: 'Orientador' as const,
      concluida: true,
      ano: 2015,
    })),
    ...times(5, () => ({
      tipo: 'Orientação Concluída',
      nivel: 'Mestrado' as const,
      papel: 'Orientador' as const,
      concluida: true,
      ano: 2012,
    })),
    ...times(2, () => ({
      tipo: 'Orientação Concluída',
      nivel: 'Pós-Doutorado' as const,
      papel: 'Orientador' as const,
      concluida: true,
      ano: 2019,
    })),
    { tipo: 'Orientação Concluída', nivel: 'Doutorado', papel: 'Coorientador', concluida: true, ano: 2010 },
  ],
  membros_banca: [
    ...times(8, () => ({ nivel: 'Doutorado' as const, ano: 2018 })),
    ...times(4, () => ({ nivel: 'Mestrado' as const, ano: 2017 })),
  ],
  docencias: [
    { programa: 'Química', codigo_programa: '33001010001P0', coordenacoes: [{ inicio: '2010-03-01', fim: '2014-02-28' }] },
    { programa: 'Química Aplicada', codigo_programa: '33001010002P0', coordenacoes: [{ inicio: '2021-03-01', fim: null }] },
  ],
};

const blockPoints = (scored: ScoredPerson) => [scored.bloco_a, scored.bloco_b, scored.bloco_c, scored.bloco_d, scored.bloco_e];
const itemPoints = (scored: ScoredPerson, block: 'bloco_a' | 'bloco_b' | 'bloco_c' | 'bloco_d' | 'bloco_e') =>
  scored.pontuacao[block].itens.map((item) => [item.codigo, item.pontos]);

describe('worked examples of docs/scoring.md', () => {
  it('a newcomer: 154', () => {
    const scored = scorePerson(NEWCOMER, EXAMPLE_REFERENCE_DATE);
    expect(blockPoints(scored)).toEqual([0, 150, 0, 4, 0]);
    expect(scored.pontuacao_total).toBe(154);
    expect(itemPoints(scored, 'bloco_b')).toEqual([['CONS_ATIVO', 150]]);
    expect(itemPoints(scored, 'bloco_d')).toEqual([
      ['ORIENT_MEST_ANDAM', 2],
      ['BANCA_MEST', 2],
    ]);
    expect(scored.anos_atuacao).toBe(1.2);
    expect(scored.tipos_atuacao).toEqual(['Consultor', 'Docente de PPG', 'Orientador', 'Membro de Banca']);
    expect(scored.coordenador_ppg).toBe(false);
    expect(scored.selos).toEqual([]);
  });

  it('a mid-career consultant: 623', () => {
    const scored = scorePerson(MID_CAREER, EXAMPLE_REFERENCE_DATE);
    expect(blockPoints(scored)).toEqual([296, 175, 70, 82, 0]);
    expect(scored.pontuacao_total).toBe(623);
    expect(scored.pontuacao.bloco_a.itens).toEqual([
      { codigo: 'CAJ', descricao: 'CAJ Química (2020-01-01 a 2023-12-31): base 222 + 4 ano(s) × 18.5', pontos: 296 },
    ]);
    expect(itemPoints(scored, 'bloco_b')).toEqual([
      ['CONS_ATIVO', 150],
      ['CONT_5_ANOS', 10],
      ['RETORNO', 15],
    ]);
    expect(itemPoints(scored, 'bloco_c')).toEqual([
      ['INSC_AUTOR', 10],
      ['AVAL_COMIS_PREMIO', 10],
      ['PREMIACAO', 40],
      ['MENCAO', 10],
    ]);
    expect(itemPoints(scored, 'bloco_d')).toEqual([
      ['BOLSA_PQ-2', 30],
      ['PARTICIPACOES', 10],
      ['ORIENT_DOUT_CONCL', 8],
      ['ORIENT_MEST_CONCL', 12],
      ['ORIENT_DOUT_ANDAM', 8],
      ['COORIENT_DOUT_CONCL', 4],
      ['BANCA_DOUT', 6],
      ['BANCA_MEST', 4],
    ]);
    expect(scored.anos_atuacao).toBe(6);
    expect(scored.tipos_atuacao).toEqual([
      'Consultor',
      'Coordenador de Área',
      'Docente de PPG',
      'Bolsista PQ',
      'Premiado',
      'Avaliador de Prêmio',
      'Inscrito em Prêmio',
      'Orientador',
      'Coorientador',
      'Membro de Banca',
      'Participante de Atividades',
    ]);
    expect(scored.selos).toEqual(['BPQ', 'COORIENT_MENCAO', 'CO_ORIENT_TESE', 'ORIENT_DISS', 'ORIENT_PREMIO', 'ORIENT_TESE']);
  });

  it('a top person: every block at its cap, 1230', () => {
    const scored = scorePerson(TOP_PERSON, EXAMPLE_REFERENCE_DATE);
    expect(blockPoints(scored)).toEqual([500, 180, 200, 200, 150]);
    expect(scored.pontuacao_total).toBe(1230);
    expect(scored.pontuacao.bloco_a.itens).toEqual([
      {
        codigo: 'CA',
        descricao: 'CA Química (2020-01-01 a atual): base 270 + 4 ano(s) × 22.5 + vigente 45 + retorno 45',
        pontos: 450,
      },
      {
        codigo: 'CA',
        descricao: 'CA Química (2014-01-01 a 2017-12-31): base 270 + 4 ano(s) × 22.5 + retorno 45; conta 10% de 405',
        pontos: 40.5,
      },
      { codigo: 'CAM', descricao: 'CAM Química (2008-01-01 a 2011-12-31): base 168 + 4 ano(s) × 14; conta 10% de 224', pontos: 22.4 },
      { codigo: 'TETO_BLOCO', descricao: 'Teto do bloco A: 500 (512.9 → 500)', pontos: -12.9 },
    ]);
    expect(itemPoints(scored, 'bloco_b')).toEqual([
      ['CONS_ATIVO', 150],
      ['CONT_8_ANOS', 15],
      ['RETORNO', 15],
    ]);
    expect(itemPoints(scored, 'bloco_c')).toEqual([
      ['INSC_AUTOR', 40],
      ['TETO_INSCRICOES', -10],
      ['AVAL_COMIS_GP', 30],
      ['COORD_COMIS_PREMIO', 20],
      ['COORD_COMIS_GP', 60],
      ['TETO_COMISSOES', -20],
      ['PREMIACAO_GP', 120],
      ['PREMIACAO', 40],
      ['TETO_PREMIACOES', -10],
      ['TETO_BLOCO', -70],
    ]);
    expect(itemPoints(scored, 'bloco_d')).toEqual([
      ['BOLSA_PQ-1A', 50],
      ['BOLSA_PQ-1B', 22.5],
      ['BOLSA_PQ-1C', 20],
      ['TETO_BOLSAS', -12.5],
      ['PARTICIPACOES', 24],
      ['TETO_PARTICIPACOES', -4],
      ['ORIENT_POSDOC_CONCL', 12],
      ['ORIENT_DOUT_CONCL', 48],
      ['ORIENT_MEST_CONCL', 20],
      ['COORIENT_DOUT_CONCL', 4],
      ['TETO_ORIENTACOES', -4],
      ['BANCA_DOUT', 24],
      ['BANCA_MEST', 8],
      ['TETO_BANCAS', -2],
      ['TETO_BLOCO', -10],
    ]);
    expect(itemPoints(scored, 'bloco_e')).toEqual([
      ['COORD_PPG', 80],
      ['COORD_PPG', 90],
      ['TETO_BLOCO', -20],
    ]);
    expect(scored.anos_atuacao).toBe(22);
    expect(scored.coordenador_ppg).toBe(true);
    expect(scored.tipos_atuacao).toEqual([
      'Consultor',
      'Coordenador de Área',
      'Presidente de Câmara',
      'Coordenador de PPG',
      'Docente de PPG',
      'Bolsista PQ',
      'Premiado',
      'Avaliador de Prêmio',
      'Inscrito em Prêmio',
      'Orientador',
      'Coorientador',
      'Membro de Banca',
      'Participante de Atividades',
    ]);
    expect(scored.selos).toEqual([
      'AUTOR_GP',
      'BPQ',
      'COORD_PPG',
      'CO_ORIENT_TESE',
      'ORIENT_DISS',
      'ORIENT_GP',
      'ORIENT_POS_DOC',
      'ORIENT_PREMIO',
      'ORIENT_TESE',
      'PRESID_CAMARA',
    ]);
  });

  it('the breakdown repeats the blocks, the total, the reference date and the version', () => {
    const scored = scorePerson(MID_CAREER, EXAMPLE_REFERENCE_DATE);
    expect(scored.pontuacao.total).toBe(scored.pontuacao_total);
    expect(scored.pontuacao.bloco_c.pontos).toBe(scored.bloco_c);
    expect(scored.pontuacao.data_referencia).toBe('2024-06-01');
    expect(scored.pontuacao.versao).toBe(SCORING.version);
    expect({ id: scored.id_pessoa, nome: scored.nome, ativo: scored.ativo }).toEqual({ id: 202, nome: 'Carlos Magalhães', ativo: true });
  });
});

/** A person with only the given details; dirty values are passed through `unknown` on purpose. */
function person(details: Record<string, unknown>): PersonDocument {
  return { id_pessoa: 9, nome: 'Teste', ativo: false, ...details };
}

const ZERO_BLOCK = { pontos: 0, itens: [] };

describe('robustness', () => {
  it('a person with nothing scores 0 in every block', () => {
    const scored = scorePerson(person({}), '2024-06-01');
    expect(scored).toEqual({
      id_pessoa: 9,
      nome: 'Teste',
      ativo: false,
      anos_atuacao: 0,
      bloco_a: 0,
      bloco_b: 0,
      bloco_c: 0,
      bloco_d: 0,
      bloco_e: 0,
      pontuacao_total: 0,
      tipos_atuacao: [],
      coordenador_ppg: false,
      selos: [],
      pontuacao: {
        bloco_a: ZERO_BLOCK,
        bloco_b: ZERO_BLOCK,
        bloco_c: ZERO_BLOCK,
        bloco_d: ZERO_BLOCK,
        bloco_e: ZERO_BLOCK,
        total: 0,
        data_referencia: '2024-06-01',
        versao: SCORING.version,
      },
    });
  });

  it('never throws on dirty documents: wrong types, nulls, malformed dates', () => {
    const garbage = [null, undefined, 0, 1, 'x', '', true, {}, [], [null], ['x'], [{}], [{ inicio: 12 }], { length: 3 }];
    const fields = [
      'consultoria',
      'coordenacoes_agency',
      'inscricoes',
      'avaliacoes_comissao',
      'premiacoes',
      'bolsas_funder',
      'participacoes',
      'orientacoes',
      'membros_banca',
      'docencias',
      'anos_atuacao',
      'nome',
      'ativo',
    ];
    for (const value of garbage) {
      const scored = scorePerson(person(Object.fromEntries(fields.map((field) => [field, value]))), '2024-06-01');
      expect(scored.pontuacao_total).toBe(0);
    }
    const scored = scorePerson(
      person({
        nome: 42,
        ativo: 'sim',
        consultoria: [
          { situacao: null, inicio: '2020-06-31', fim: null },
          { situacao: 7, inicio: '2020-06-01', fim: 'sem fim' },
        ],
        coordenacoes_agency: [{ tipo: 'CA', inicio: '01/06/2020', fim: null }],
        bolsas_funder: [
          { modalidade: 7, inicio: '2020-01-01' },
          { modalidade: 'PQ-1A', inicio: '2020-01-01', fim: '2019-01-01' },
        ],
        docencias: [{ programa: null, coordenacoes: [{ inicio: '2020-1-1', fim: null }] }],
        premiacoes: [{ tipo: 'PREMIACAO', papel: null, ano: 2020 }],
      }),
      '2024-06-01',
    );
    expect(scored).toMatchObject({ nome: '', ativo: false, pontuacao_total: 0, tipos_atuacao: [], selos: [] });
  });

  it('an unreadable reference date is a caller bug: it throws', () => {
    expect(() => scorePerson(person({}), '2024-02-30')).toThrow(RangeError);
  });

  it('is deterministic and does not modify the document', () => {
    const deepFreeze = <T>(value: T): T => {
      if (value && typeof value === 'object') {
        Object.values(value).forEach(deepFreeze);
        Object.freeze(value);
      }
      return value;
    };
    const doc = deepFreeze(structuredClone(TOP_PERSON));
    const first = scorePerson(doc, EXAMPLE_REFERENCE_DATE);
    expect(scorePerson(doc, EXAMPLE_REFERENCE_DATE)).toEqual(first);
    expect(doc).toEqual(TOP_PERSON);
    // Not shared between calls: changing one result does not change the next.
    first.pontuacao.bloco_a.itens.length = 0;
    first.selos.push('X');
    expect(scorePerson(doc, EXAMPLE_REFERENCE_DATE).pontuacao.bloco_a.itens).toHaveLength(4);
  });

  it('the reference date is the only clock', () => {
    const doc = person({
      consultoria: [{ situacao: 'Ativo', inicio: '2019-06-01', fim: null }],
      bolsas_funder: [{ modalidade: 'PQ-1A', inicio: '2020-03-01', fim: '2024-02-29' }],
    });
    const early = scorePerson(doc, '2022-06-01');
    const late = scorePerson(doc, '2024-06-01');
    expect([early.bloco_b, early.bloco_d, early.anos_atuacao, early.selos]).toEqual([155, 50, 3, ['BPQ']]);
    expect([late.bloco_b, late.bloco_d, late.anos_atuacao, late.selos]).toEqual([160, 25, 5, []]);
    expect(scorePerson(doc, '2019-01-01').pontuacao_total).toBe(0);
  });

  it('every block is the sum of its items and within its cap; the total is the sum of the blocks', () => {
    let seed = 7;
    const random = (): number => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return seed / 2 ** 32;
    };
    const int = (low: number, high: number): number => low + Math.floor(random() * (high - low + 1));
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const two = (value: number): string => String(value).padStart(2, '0');
    const date = (): string | null =>
      random() < 0.1 ? pick([null, '', 'sem data', '2020-02-30']) : `${int(1995, 2026)}-${two(int(1, 12))}-${two(int(1, 28))}`;
    const end = (openChance: number): string | null => (random() < openChance ? null : date());
    const list = <T>(max: number, make: () => T): T[] => Array.from({ length: int(0, max) }, make);
    const caps = {
      bloco_a: SCORING.blockA.cap,
      bloco_b: SCORING.blockB.cap,
      bloco_c: SCORING.blockC.cap,
      bloco_d: SCORING.blockD.cap,
      bloco_e: SCORING.blockE.cap,
    };

    for (let n = 0; n < 300; n++) {
      const doc = person({
        consultoria: list(4, () => ({ situacao: pick(['Ativo', 'Inativo', 'Falecido', 'x']), inicio: date(), fim: end(0.4) })),
        coordenacoes_agency: list(4, () => ({
          tipo: pick(['CA', 'CAJ', 'CAJ_MP', 'CAM', 'ZZ']),
          inicio: date(),
          fim: end(0.4),
          funcao: pick([null, 'Presidente']),
        })),
        inscricoes: list(10, () => ({ tipo: pick(['INSC_AUTOR', 'INSC_INST']), premio: 'P', ano: int(1990, 2030) })),
        avaliacoes_comissao: list(8, () => ({
          tipo: pick(['AVAL_COMIS_PREMIO', 'AVAL_COMIS_GP', 'COORD_COMIS_PREMIO', 'COORD_COMIS_GP']),
          premio: 'P',
          ano: int(1990, 2030),
        })),
        premiacoes: list(6, () => ({
          tipo: pick(['PREMIACAO', 'PREMIACAO_GP', 'MENCAO']),
          papel: pick(['Autor', 'Orientador', 'Coorientador']),
          premio: 'P',
          ano: int(1990, 2030),
        })),
        bolsas_funder: list(5, () => ({
          modalidade: pick(['PQ-1A', 'PQ-1B', 'PQ-1C', 'PQ-1D', 'PQ-2', 'DT-1', 'DT-2', 'IC', 'PQ']),
          inicio: date(),
          fim: end(0.3),
        })),
        participacoes: list(15, () => ({ tipo: 'R', ano: int(1990, 2030) })),
        orientacoes: list(25, () => ({
          tipo: 'O',
          nivel: pick(['Mestrado', 'Doutorado', 'Pós-Doutorado']),
          papel: pick(['Orientador', 'Coorientador']),
          concluida: random() < 0.6,
          ano: int(1990, 2030),
        })),
        membros_banca: list(20, () => ({ nivel: pick(['Mestrado', 'Doutorado', 'Graduação']), ano: int(1990, 2030) })),
        docencias: list(3, () => ({
          programa: pick(['A', 'B', 'C']),
          coordenacoes: list(3, () => ({ inicio: date(), fim: end(0.3) })),
        })),
      });
      const scored = scorePerson(doc, '2024-06-01');
      let total = 0;
      for (const block of ['bloco_a', 'bloco_b', 'bloco_c', 'bloco_d', 'bloco_e'] as const) {
        const detail = scored.pontuacao[block];
        const sum = Math.round(detail.itens.reduce((acc, item) => acc + item.pontos, 0) * 100) / 100;
        expect(detail.pontos).toBe(sum);
        expect(scored[block]).toBe(detail.pontos);
        expect(detail.pontos).toBeGreaterThanOrEqual(0);
        expect(detail.pontos).toBeLessThanOrEqual(caps[block]);
        for (const item of detail.itens) expect(Math.round(item.pontos * 100) / 100).toBe(item.pontos);
        total += detail.pontos;
      }
      expect(scored.pontuacao_total).toBe(Math.round(total * 100) / 100);
      expect(scored.selos).toEqual([...new Set(scored.selos)].sort());
      expect(ACTIVITY_KINDS.filter((kind) => scored.tipos_atuacao.includes(kind))).toEqual(scored.tipos_atuacao);
    }
  });
});

describe('derived profile', () => {
  it('anos_atuacao comes from the document when it is a finite number >= 0', () => {
    const consultoria = [{ situacao: 'Ativo', inicio: '2021-06-05', fim: null }];
    expect(scorePerson(person({ anos_atuacao: 7.456, consultoria }), '2024-06-01').anos_atuacao).toBe(7.46);
    expect(scorePerson(person({ anos_atuacao: 0, consultoria }), '2024-06-01').anos_atuacao).toBe(0);
    for (const anos_atuacao of [null, undefined, -1, Number.NaN, Infinity, '7']) {
      expect(scorePerson(person({ anos_atuacao, consultoria }), '2024-06-01').anos_atuacao).toBe(2.9); // 2.99 years, truncated
    }
  });

  it('computed years are the union of the consultancy periods', () => {
    const consultoria = [
      { situacao: 'Inativo', inicio: '2010-01-01', fim: '2012-12-31' },
      { situacao: 'Inativo', inicio: '2012-01-01', fim: '2013-06-30' },
      { situacao: 'Ativo', inicio: '2020-01-01', fim: '2020-12-31' },
    ];
    expect(scorePerson(person({ consultoria }), '2024-06-01').anos_atuacao).toBe(4.4);
  });

  it('tipos_atuacao follow the fixed vocabulary order', () => {
    expect(ACTIVITY_KINDS).toEqual([
      'Consultor',
      'Coordenador de Área',
      'Presidente de Câmara',
      'Coordenador de PPG',
      'Docente de PPG',
      'Bolsista PQ',
      'Bolsista DT',
      'Premiado',
      'Avaliador de Prêmio',
      'Inscrito em Prêmio',
      'Orientador',
      'Coorientador',
      'Membro de Banca',
      'Participante de Atividades',
    ]);
    const scored = scorePerson(
      person({
        participacoes: [{ tipo: 'x', ano: 2020 }],
        bolsas_funder: [{ modalidade: 'DT-2', inicio: '2010-01-01', fim: '2012-12-31' }],
        orientacoes: [{ tipo: 'x', nivel: 'Mestrado', papel: 'Coorientador', concluida: false }],
      }),
      '2024-06-01',
    );
    expect(scored.tipos_atuacao).toEqual(['Bolsista DT', 'Coorientador', 'Participante de Atividades']);
  });

  it('tipos_atuacao and coordenador_ppg count only what the scoring counts', () => {
    const scored = scorePerson(
      person({
        consultoria: [{ situacao: 'Ativo', inicio: '2030-01-01', fim: null }],
        coordenacoes_agency: [{ tipo: 'CA', inicio: 'ontem', fim: null, funcao: 'Presidente' }],
        docencias: [{ programa: '', coordenacoes: [{ inicio: '2030-01-01', fim: null }] }],
        premiacoes: [{ tipo: 'PREMIACAO', papel: 'Autor', premio: 'P', ano: 2031 }],
      }),
      '2024-06-01',
    );
    expect(scored.tipos_atuacao).toEqual([]);
    expect(scored.coordenador_ppg).toBe(false);
  });
});
