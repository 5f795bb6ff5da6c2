import type { PersonDocument } from '../../domain/person-document';
import { scoreBlockA } from '../../domain/scoring/block-a';
import { scoreBlockB } from '../../domain/scoring/block-b';
import { scoreBlockC } from '../../domain/scoring/block-c';
import { grantCode, scoreBlockD } from '../../domain/scoring/block-d';
import { scoreBlockE } from '../../domain/scoring/block-e';
import { SCORING, type BlockScore } from '../../domain/scoring/parameters';

const REF = '2024-06-01';

/** A person with only the given details; dirty values are passed through `unknown` on purpose. */
function person(details: Record<string, unknown>): PersonDocument {
  return { id_pessoa: 1, nome: 'Teste', ativo: true, ...details };
}

const codes = (block: BlockScore): string[] => block.itens.map((item) => item.codigo);
const points = (block: BlockScore): Record<string, number> => Object.fromEntries(block.itens.map((item) => [item.codigo, item.pontos]));

describe('parameters', () => {
  it('block A shares add up to the type maximum', () => {
    const a = SCORING.blockA;
    expect(a.baseShare + a.perYearShare * a.maxYears + a.currencyShare + a.returnShare).toBeCloseTo(1, 12);
  });

  it('the maximum total is 1230', () => {
    const caps = [SCORING.blockA.cap, SCORING.blockB.cap, SCORING.blockC.cap, SCORING.blockD.cap, SCORING.blockE.cap];
    expect(caps.reduce((a, b) => a + b, 0)).toBe(1230);
  });
});

describe('block A — agency coordinations', () => {
  const coordination = (tipo: string, inicio: unknown, fim: unknown, extra: Record<string, unknown> = {}) => ({
    tipo,
    inicio,
    fim,
    area_avaliacao: 'Química',
    ...extra,
  });

  it('a CA of 4 years still open, with a return, scores exactly 450 (plus 10% of the earlier one)', () => {
    const block = scoreBlockA(
      person({ coordenacoes_agency: [coordination('CAM', '2010-01-01', '2012-12-31'), coordination('CA', '2020-06-01', null)] }),
      REF,
    );
    expect(block.itens).toEqual([
      { codigo: 'CA', descricao: 'CA Química (2020-06-01 a atual): base 270 + 4 ano(s) × 22.5 + vigente 45 + retorno 45', pontos: 450 },
      { codigo: 'CAM', descricao: 'CAM Química (2010-01-01 a 2012-12-31): base 168 + 3 ano(s) × 14; conta 10% de 210', pontos: 21 },
    ]);
    expect(block.pontos).toBe(471);
  });

  it.each([
    ['CA', 360],
    ['CAJ', 296],
    ['CAJ_MP', 252],
    ['CAM', 224],
  ])('a finished %s of 4 years scores base + 4 years (%p)', (tipo, expected) => {
    expect(scoreBlockA(person({ coordenacoes_agency: [coordination(tipo, '2016-01-01', '2019-12-31')] }), REF).pontos).toBe(expected);
  });

  it('time counts whole years, at most 4', () => {
    const score = (inicio: string, fim: string) =>
      scoreBlockA(person({ coordenacoes_agency: [coordination('CA', inicio, fim)] }), REF).pontos;
    expect(score('2020-01-01', '2020-12-30')).toBe(270); // 364 days: no whole year
    expect(score('2020-01-01', '2020-12-31')).toBe(292.5);
    expect(score('2000-01-01', '2019-12-31')).toBe(360);
  });

  it('the return needs an interruption of at least one year', () => {
    const score = (secondStart: string) =>
      scoreBlockA(
        person({ coordenacoes_agency: [coordination('CAM', '2019-01-01', '2019-12-31'), coordination('CA', secondStart, '2021-12-31')] }),
        REF,
      ).itens[0];
    expect(score('2020-12-31')).toEqual(expect.objectContaining({ codigo: 'CA', pontos: 270 + 22.5 }));
    expect(score('2021-01-01')).toEqual(expect.objectContaining({ codigo: 'CA', pontos: 270 + 22.5 + 45 }));
  });

  it('the reference date decides currency and time', () => {
    const doc = person({ coordenacoes_agency: [coordination('CA', '2020-01-01', '2022-12-31')] });
    expect(scoreBlockA(doc, '2022-06-01').pontos).toBe(270 + 2 * 22.5 + 45);
    expect(scoreBlockA(doc, '2024-06-01').pontos).toBe(270 + 3 * 22.5);
    expect(scoreBlockA(doc, '2019-12-31').pontos).toBe(0); // not started yet
  });

  it('each coordination is capped at its type maximum', () => {
    const original = SCORING.blockA.baseShare;
    (SCORING.blockA as { baseShare: number }).baseShare = 0.9;
    try {
      const block = scoreBlockA(
        person({ coordenacoes_agency: [coordination('CAM', '2010-01-01', '2010-06-30'), coordination('CAM', '2016-01-01', null)] }),
        REF,
      );
      expect(block.itens[0]).toEqual({
        codigo: 'CAM',
        descricao: 'CAM Química (2016-01-01 a atual): base 252 + 4 ano(s) × 14 + vigente 28 + retorno 28 = 364, máximo do tipo 280',
        pontos: 280,
      });
    } finally {
      (SCORING.blockA as { baseShare: number }).baseShare = original;
    }
  });

  it('the block takes the best coordination plus 10% of the others, capped at 500', () => {
    const block = scoreBlockA(
      person({
        coordenacoes_agency: [
          coordination('CA', '2004-01-01', '2007-12-31'),
          coordination('CA', '2009-01-01', '2012-12-31'),
          coordination('CA', '2014-01-01', '2017-12-31'),
          coordination('CA', '2019-01-01', null),
        ],
      }),
      REF,
    );
    expect(block.itens.map((item) => item.pontos)).toEqual([450, 40.5, 40.5, 36, -67]);
    expect(block.itens[4]).toEqual({ codigo: 'TETO_BLOCO', descricao: 'Teto do bloco A: 500 (567 → 500)', pontos: -67 });
    expect(block.pontos).toBe(500);
  });

  it('skips unknown types and unreadable periods, accepts codes in other cases', () => {
    const block = scoreBlockA(
      person({
        coordenacoes_agency: [
          coordination('XX', '2016-01-01', null),
          coordination('CA', '2016-02-30', null),
          coordination('CA', '2016-01-01', 'sem data'),
          coordination('CA', null, null),
          null,
          'CA',
          coordination(' caj ', '2016-01-01', '2019-12-31'),
        ],
      }),
      REF,
    );
    expect(codes(block)).toEqual(['CAJ']);
    expect(block.pontos).toBe(296);
  });

  it('no coordinations score 0 with no items', () => {
    expect(scoreBlockA(person({}), REF)).toEqual({ pontos: 0, itens: [] });
    expect(scoreBlockA(person({ coordenacoes_agency: 'CA' }), REF)).toEqual({ pontos: 0, itens: [] });
  });
});

describe('block B — consultancy', () => {
  const period = (situacao: string, inicio: string, fim: string | null) => ({ situacao, inicio, fim });

  it.each([
    ['Ativo', 'CONS_ATIVO', 150],
    ['Inativo', 'CONS_HIST', 100],
    ['Falecido', 'CONS_FALECIDO', 100],
    ['ativo', 'CONS_ATIVO', 150],
    ['Suspenso', 'CONS_HIST', 100],
  ])('the latest period %s gives %s (%p)', (situacao, code, expected) => {
    const block = scoreBlockB(person({ consultoria: [period(situacao, '2023-01-01', null)] }), REF);
    expect(block.itens).toEqual([expect.objectContaining({ codigo: code, pontos: expected })]);
    expect(block.pontos).toBe(expected);
  });

  it('the situation of the latest period decides, not the order of the list', () => {
    const block = scoreBlockB(
      person({ consultoria: [period('Falecido', '2022-01-01', '2022-12-31'), period('Ativo', '2020-01-01', '2021-12-31')] }),
      REF,
    );
    expect(block.itens[0]).toEqual({
      codigo: 'CONS_FALECIDO',
      descricao: 'Consultor falecido (situação do último período: Falecido)',
      pontos: 100,
    });
  });

  it.each([
    ['2021-06-05', 0, []], // 2.99 years
    ['2021-06-01', 5, ['CONT_3_ANOS']], // exactly 3 years
    ['2019-06-02', 5, ['CONT_3_ANOS']], // 4.99 years
    ['2019-06-01', 10, ['CONT_5_ANOS']],
    ['2016-06-02', 10, ['CONT_5_ANOS']],
    ['2016-06-01', 15, ['CONT_8_ANOS']],
    ['1990-01-01', 15, ['CONT_8_ANOS']],
  ])('continuity from %s: +%p', (inicio, bonus, extra) => {
    const block = scoreBlockB(person({ consultoria: [period('Ativo', inicio, null)] }), REF);
    expect(codes(block)).toEqual(['CONS_ATIVO', ...extra]);
    expect(block.pontos).toBe(150 + bonus);
  });

  it('continuity sums the periods, counting overlaps once; fim is the last day', () => {
    const block = scoreBlockB(
      person({
        consultoria: [
          period('Inativo', '2010-01-01', '2011-12-31'),
          period('Inativo', '2011-01-01', '2012-12-31'),
          period('Ativo', '2013-01-01', '2013-12-31'),
        ],
      }),
      REF,
    );
    expect(block.itens[1]).toEqual({ codigo: 'CONT_3_ANOS', descricao: 'Continuidade: 4 anos de consultoria (≥ 3)', pontos: 5 });
  });

  it('the return bonus needs an interruption of at least one year', () => {
    const score = (secondStart: string) =>
      scoreBlockB(
        person({ consultoria: [period('Inativo', '2015-01-01', '2015-12-31'), period('Ativo', secondStart, '2017-06-30')] }),
        REF,
      );
    expect(codes(score('2016-12-31'))).toEqual(['CONS_ATIVO']);
    expect(points(score('2017-01-01'))).toEqual({ CONS_ATIVO: 150, RETORNO: 15 });
  });

  it('one return bonus however many returns; the block is capped at 180', () => {
    const block = scoreBlockB(
      person({
        consultoria: [
          period('Inativo', '2000-01-01', '2003-12-31'),
          period('Inativo', '2006-01-01', '2009-12-31'),
          period('Ativo', '2012-01-01', null),
        ],
      }),
      REF,
    );
    expect(points(block)).toEqual({ CONS_ATIVO: 150, CONT_8_ANOS: 15, RETORNO: 15 });
    expect(block.pontos).toBe(SCORING.blockB.cap);
  });

  it('overlapping periods are no return', () => {
    const block = scoreBlockB(
      person({ consultoria: [period('Inativo', '2020-01-01', '2021-12-31'), period('Ativo', '2021-06-01', null)] }),
      REF,
    );
    expect(codes(block)).toEqual(['CONS_ATIVO', 'CONT_3_ANOS']);
  });

  it('skips unreadable and future periods', () => {
    const block = scoreBlockB(
      person({
        consultoria: [
          period('Ativo', '2025-01-01', null),
          period('Ativo', '2020-02-31', null),
          null,
          period('Inativo', '2023-01-01', null),
        ],
      }),
      REF,
    );
    expect(codes(block)).toEqual(['CONS_HIST']);
    expect(scoreBlockB(person({ consultoria: [period('Ativo', '2020-02-31', null)] }), REF)).toEqual({ pontos: 0, itens: [] });
  });
});

describe('block C — evaluations and awards', () => {
  const award = (tipo: string, papel: string, ano: unknown = 2020) => ({ tipo, papel, premio: 'Prêmio de Tese', ano });

  it('grand prize > prize > mention; author and supervisor in full, co-supervisor at half', () => {
    const score = (tipo: string, papel: string) => scoreBlockC(person({ premiacoes: [award(tipo, papel)] }), REF).pontos;
    expect([score('PREMIACAO_GP', 'Autor'), score('PREMIACAO', 'Autor'), score('MENCAO', 'Autor')]).toEqual([60, 40, 20]);
    expect([score('PREMIACAO_GP', 'Orientador'), score('PREMIACAO', 'Orientador'), score('MENCAO', 'Orientador')]).toEqual([60, 40, 20]);
    expect([score('PREMIACAO_GP', 'Coorientador'), score('PREMIACAO', 'Coorientador'), score('MENCAO', 'Coorientador')]).toEqual([
      30, 20, 10,
    ]);
  });

  it('aggregates awards by type with the arithmetic in the description', () => {
    const block = scoreBlockC(
      person({
        premiacoes: [
          award('PREMIACAO_GP', 'Autor'),
          award('MENCAO', 'Orientador'),
          award('PREMIACAO_GP', 'Orientadora'),
          award('PREMIACAO_GP', 'Co-orientador'),
        ],
      }),
      REF,
    );
    expect(block.itens).toEqual([
      { codigo: 'PREMIACAO_GP', descricao: 'Grande prêmio: 2 como autor ou orientador × 60 + 1 como coorientador × 30', pontos: 150 },
      { codigo: 'MENCAO', descricao: 'Menção honrosa: 1 como autor ou orientador × 20', pontos: 20 },
      { codigo: 'TETO_PREMIACOES', descricao: 'Teto de premiações: 150 (170 → 150)', pontos: -20 },
    ]);
    expect(block.pontos).toBe(150);
  });

  it('coordinating a committee is worth more than evaluating; grand prize more than prize', () => {
    const block = scoreBlockC(
      person({
        avaliacoes_comissao: ['AVAL_COMIS_PREMIO', 'AVAL_COMIS_GP', 'COORD_COMIS_PREMIO', 'COORD_COMIS_GP'].map((tipo) => ({
          tipo,
          premio: 'P',
          ano: 2021,
        })),
      }),
      REF,
    );
    expect(points(block)).toEqual({ AVAL_COMIS_PREMIO: 10, AVAL_COMIS_GP: 15, COORD_COMIS_PREMIO: 20, COORD_COMIS_GP: 30 });
    expect(block.pontos).toBe(75);
  });

  it('inscriptions: author 5, institution 3, capped at 30', () => {
    const inscricoes = [
      ...Array(5).fill({ tipo: 'INSC_AUTOR', premio: 'P', ano: 2020 }),
      ...Array(3).fill({ tipo: 'INSC_INST', premio: 'P', ano: 2020 }),
    ];
    const block = scoreBlockC(person({ inscricoes }), REF);
    expect(block.itens).toEqual([
      { codigo: 'INSC_AUTOR', descricao: '5 inscrição(ões) como autor × 5', pontos: 25 },
      { codigo: 'INSC_INST', descricao: '3 inscrição(ões) por instituição × 3', pontos: 9 },
      { codigo: 'TETO_INSCRICOES', descricao: 'Teto de inscrições: 30 (34 → 30)', pontos: -4 },
    ]);
    expect(block.pontos).toBe(30);
  });

  it('group caps, then the block cap of 200', () => {
    const block = scoreBlockC(
      person({
        inscricoes: Array(10).fill({ tipo: 'INSC_AUTOR', premio: 'P', ano: 2020 }),
        avaliacoes_comissao: Array(4).fill({ tipo: 'COORD_COMIS_GP', premio: 'P', ano: 2020 }),
        premiacoes: Array(3).fill(award('PREMIACAO_GP', 'Autor')),
      }),
      REF,
    );
    expect(points(block)).toEqual({
      INSC_AUTOR: 50,
      TETO_INSCRICOES: -20,
      COORD_COMIS_GP: 120,
      TETO_COMISSOES: -30,
      PREMIACAO_GP: 180,
      TETO_PREMIACOES: -30,
      TETO_BLOCO: -70,
    });
    expect(block.pontos).toBe(200);
  });

  it('skips items of a future or unreadable year, unknown types and roles', () => {
    const block = scoreBlockC(
      person({
        premiacoes: [
          award('PREMIACAO', 'Autor', 2025),
          award('PREMIACAO', 'Autor', 's/d'),
          award('PREMIACAO', 'Autor', null),
          award('PRÊMIO', 'Autor'),
          award('PREMIACAO', 'Leitor'),
          award('premiacao', 'autor', '2024'),
        ],
        inscricoes: [{ tipo: 'INSC_AUTOR', premio: 'P' }, null],
        avaliacoes_comissao: { tipo: 'AVAL_COMIS_GP' },
      }),
      REF,
    );
    expect(points(block)).toEqual({ PREMIACAO: 40 });
  });
});

describe('block D — indicators', () => {
  const grant = (modalidade: string, inicio: string, fim: string | null, nivel?: string) => ({ modalidade, nivel, inicio, fim });

  it('grants by modality: current in full, finished at half', () => {
    const block = scoreBlockD(
      person({
        bolsas_funder: [
          grant('PQ-1B', '2021-03-01', '2026-02-28'),
          grant('PQ-2', '2015-03-01', '2018-02-28'),
          grant('PQ-2', '2018-03-01', '2021-02-28'),
        ],
      }),
      REF,
    );
    expect(block.itens).toEqual([
      { codigo: 'BOLSA_PQ-1B', descricao: 'Bolsa PQ-1B: 1 vigente(s) × 45', pontos: 45 },
      { codigo: 'BOLSA_PQ-2', descricao: 'Bolsa PQ-2: 2 encerrada(s) × 15', pontos: 30 },
    ]);
    expect(block.pontos).toBe(75);
  });

  it('PQ-1A > PQ-1B > PQ-1C > PQ-1D > PQ-2, DT below the same PQ level', () => {
    const score = (modalidade: string) => scoreBlockD(person({ bolsas_funder: [grant(modalidade, '2023-01-01', null)] }), REF).pontos;
    const values = ['PQ-1A', 'PQ-1B', 'PQ-1C', 'PQ-1D', 'PQ-2'].map(score);
    expect(values).toEqual([50, 45, 40, 35, 30]);
    expect(['DT-1A', 'DT-1B', 'DT-1C', 'DT-1D', 'DT-2'].map(score)).toEqual([40, 36, 32, 28, 24]);
    expect(score('PQ-SR')).toBe(50);
    expect(score('IC')).toBe(10);
  });

  it('the reference date decides whether a grant is current', () => {
    const doc = person({ bolsas_funder: [grant('PQ-1A', '2020-03-01', '2024-02-29')] });
    expect(scoreBlockD(doc, '2024-02-29').pontos).toBe(50);
    expect(scoreBlockD(doc, '2024-03-01').pontos).toBe(25);
    expect(scoreBlockD(doc, '2020-02-29').pontos).toBe(0);
  });

  it('normalises modality spellings', () => {
    expect(grantCode('PQ-1A', null)).toEqual({ codigo: 'PQ-1A', familia: 'PQ' });
    expect(grantCode(' pq 1a ', null)).toEqual({ codigo: 'PQ-1A', familia: 'PQ' });
    expect(grantCode('PQ_1B', null)).toEqual({ codigo: 'PQ-1B', familia: 'PQ' });
    expect(grantCode('PQ', '1C')).toEqual({ codigo: 'PQ-1C', familia: 'PQ' });
    expect(grantCode('PQSR', null)).toEqual({ codigo: 'PQ-SR', familia: 'PQ' });
    expect(grantCode('PQ', null)).toEqual({ codigo: 'PQ', familia: 'PQ' });
    expect(grantCode('PQ-3', null)).toEqual({ codigo: 'PQ', familia: 'PQ' });
    expect(grantCode('DT-1', null)).toEqual({ codigo: 'DT-1', familia: 'DT' });
    expect(grantCode('DTI', null)).toEqual({ codigo: 'OUTRA', familia: 'OUTRA' });
    expect(grantCode('Pós-Doutorado', null)).toEqual({ codigo: 'OUTRA', familia: 'OUTRA' });
    expect(grantCode('', '1A')).toBeUndefined();
    expect(grantCode(null, null)).toBeUndefined();
    expect(grantCode('constructor', null)).toEqual({ codigo: 'OUTRA', familia: 'OUTRA' });
  });

  it('grants are capped at 80', () => {
    const block = scoreBlockD(
      person({
        bolsas_funder: [
          grant('PQ-1A', '2023-01-01', null),
          grant('PQ-1B', '2019-01-01', '2022-12-31'),
          grant('PQ', '2015-01-01', '2018-12-31'),
        ],
      }),
      REF,
    );
    expect(points(block)).toEqual({ 'BOLSA_PQ-1A': 50, 'BOLSA_PQ-1B': 22.5, BOLSA_PQ: 15, TETO_BOLSAS: -7.5 });
    expect(block.pontos).toBe(80);
  });

  it('supervisions: by level, main supervisor over co-supervisor, concluded over ongoing', () => {
    const supervision = (nivel: string, papel: string, concluida: unknown, tipo = 'Orientação') => ({
      tipo,
      nivel,
      papel,
      concluida,
      ano: 2020,
    });
    const block = scoreBlockD(
      person({
        orientacoes: [
          supervision('Doutorado', 'Orientador', true),
          supervision('Doutorado', 'Orientador', false),
          supervision('Doutorado', 'Coorientador', true),
          supervision('Doutorado', 'Coorientador', false),
          supervision('Pós-Doutorado', 'Orientador', true),
          supervision('Mestrado', 'Orientador', null, 'Orientação Concluída'),
          supervision('Mestrado', 'Orientador', undefined, 'Orientação em Andamento'),
          supervision('Graduação', 'Orientador', true),
          supervision('Doutorado', 'Leitor', true),
        ],
      }),
      REF,
    );
    expect(points(block)).toEqual({
      ORIENT_POSDOC_CONCL: 6,
      ORIENT_DOUT_CONCL: 8,
      ORIENT_MEST_CONCL: 4,
      ORIENT_DOUT_ANDAM: 4,
      ORIENT_MEST_ANDAM: 2,
      COORIENT_DOUT_CONCL: 4,
      COORIENT_DOUT_ANDAM: 2,
    });
    expect(block.itens[1]).toEqual({
      codigo: 'ORIENT_DOUT_CONCL',
      descricao: '1 orientação(ões) de doutorado concluída(s) × 8',
      pontos: 8,
    });
  });

  it('participations 2 each (cap 20), boards by level (cap 30), supervisions cap 80, block cap 200', () => {
    const block = scoreBlockD(
      person({
        bolsas_funder: [
          grant('PQ-1A', '2023-01-01', null),
          grant('PQ-1A', '2013-01-01', '2022-12-31'),
          grant('PQ-1A', '2003-01-01', '2012-12-31'),
        ],
        participacoes: Array(11).fill({ tipo: 'Reunião', ano: 2020 }),
        orientacoes: Array(11).fill({ tipo: 'Orientação Concluída', nivel: 'Doutorado', papel: 'Orientador', concluida: true }),
        membros_banca: [
          ...Array(9).fill({ nivel: 'Doutorado', ano: 2020 }),
          { nivel: 'Mestrado', ano: 2021 },
          { nivel: 'Graduação', ano: 2022 },
        ],
      }),
      REF,
    );
    expect(points(block)).toEqual({
      'BOLSA_PQ-1A': 100,
      TETO_BOLSAS: -20,
      PARTICIPACOES: 22,
      TETO_PARTICIPACOES: -2,
      ORIENT_DOUT_CONCL: 88,
      TETO_ORIENTACOES: -8,
      BANCA_DOUT: 27,
      BANCA_MEST: 2,
      BANCA_GRAD: 1,
      TETO_BLOCO: -10,
    });
    expect(block.pontos).toBe(200);
  });

  it('skips items of a future or unreadable year (a supervision may have no year)', () => {
    const block = scoreBlockD(
      person({
        participacoes: [{ tipo: 'x', ano: 2025 }, { tipo: 'x' }, { tipo: 'x', ano: '2019' }],
        orientacoes: [
          { tipo: 'Orientação Concluída', nivel: 'Mestrado', papel: 'Orientador', concluida: true, ano: 2030 },
          { tipo: 'Orientação Concluída', nivel: 'Mestrado', papel: 'Orientador', concluida: true, ano: 'N/I' },
          { tipo: 'Orientação Concluída', nivel: 'Mestrado', papel: 'Orientador', concluida: true, ano: null },
        ],
        membros_banca: [
          { nivel: 'Mestrado', ano: null },
          { nivel: 'Livre-Docência', ano: 2020 },
        ],
      }),
      REF,
    );
    expect(points(block)).toEqual({ PARTICIPACOES: 2, ORIENT_MEST_CONCL: 4 });
  });
});

describe('block E — PPG coordination', () => {
  const teaching = (programa: string, coordenacoes: unknown, codigo_programa?: string) => ({ programa, codigo_programa, coordenacoes });

  it('base 40 + 10 per whole year (at most 4) + 20 while current', () => {
    const block = scoreBlockE(person({ docencias: [teaching('Química', [{ inicio: '2021-03-01', fim: null }])] }), REF);
    expect(block.itens).toEqual([
      {
        codigo: 'COORD_PPG',
        descricao: 'Coordenação de PPG — Química (2021-03-01 a atual): base 40 + 3 ano(s) × 10 + vigente 20',
        pontos: 90,
      },
    ]);
    expect(scoreBlockE(person({ docencias: [teaching('Química', [{ inicio: '2000-01-01', fim: '2019-12-31' }])] }), REF).pontos).toBe(80);
  });

  it('terms of one programme less than a year apart are one coordination', () => {
    const block = scoreBlockE(
      person({
        docencias: [
          teaching(
            'Química',
            [
              { inicio: '2016-01-01', fim: '2017-12-31' },
              { inicio: '2018-03-01', fim: '2019-12-31' },
            ],
            '123',
          ),
          teaching('Química (outro vínculo)', [{ inicio: '2021-01-01', fim: '2021-12-31' }], '123'),
        ],
      }),
      REF,
    );
    expect(block.itens.map((item) => [item.descricao, item.pontos])).toEqual([
      ['Coordenação de PPG — Química (2016-01-01 a 2019-12-31): base 40 + 4 ano(s) × 10', 80],
      ['Coordenação de PPG — Química (2021-01-01 a 2021-12-31): base 40 + 1 ano(s) × 10', 50],
    ]);
    expect(block.pontos).toBe(130);
  });

  it('different programmes count separately, capped at 150', () => {
    const block = scoreBlockE(
      person({
        docencias: [
          teaching('Física', [{ inicio: '2010-03-01', fim: '2014-02-28' }]),
          teaching('Química', [{ inicio: '2021-03-01', fim: null }]),
        ],
      }),
      REF,
    );
    expect(block.itens.map((item) => item.pontos)).toEqual([80, 90, -20]);
    expect(block.pontos).toBe(150);
  });

  it('the reference date decides currency', () => {
    const doc = person({ docencias: [teaching('Química', [{ inicio: '2020-01-01', fim: '2023-12-31' }])] });
    expect(scoreBlockE(doc, '2023-06-01').pontos).toBe(40 + 3 * 10 + 20);
    expect(scoreBlockE(doc, '2024-06-01').pontos).toBe(40 + 4 * 10);
  });

  it('skips unreadable periods and teaching without coordination', () => {
    const doc = person({
      docencias: [teaching('A', null), teaching('B', [{ inicio: '2020-13-01' }, null]), null, teaching('C', 'x'), { programa: 'D' }],
    });
    expect(scoreBlockE(doc, REF)).toEqual({ pontos: 0, itens: [] });
  });
});
