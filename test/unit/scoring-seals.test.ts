import type { PersonDocument } from '../../domain/person-document';
import { scorePerson } from '../../domain/scoring/score-person';
import { deriveSeals, normaliseSealCode, SEAL_CATALOGUE, sealCatalogue, sealCatalogueEntry, UNKNOWN_SEAL_ICON } from '../../domain/seals';

const REF = '2024-06-01';

function person(details: Record<string, unknown>): PersonDocument {
  return { id_pessoa: 1, nome: 'Teste', ativo: true, ...details };
}

describe('seal catalogue', () => {
  it('is the table of the specification, in its order, each with a symbol', () => {
    expect(SEAL_CATALOGUE.map(({ codigo, label, grupo }) => [codigo, label, grupo])).toEqual([
      ['PRESID_CAMARA', 'Presidente Câmara', 'funcoes'],
      ['COORD_PPG', 'Coord. PPG', 'funcoes'],
      ['BPQ', 'Bolsista PQ', 'funcoes'],
      ['AUTOR_GP', 'Autor Grande Prêmio', 'premiacoes'],
      ['AUTOR_PREMIO', 'Autor Prêmio', 'premiacoes'],
      ['AUTOR_MENCAO', 'Autor Menção', 'premiacoes'],
      ['ORIENT_GP', 'Orientador GP', 'premiacoes'],
      ['ORIENT_PREMIO', 'Orientador Prêmio', 'premiacoes'],
      ['ORIENT_MENCAO', 'Orientador Menção', 'premiacoes'],
      ['COORIENT_GP', 'Coorientador GP', 'premiacoes'],
      ['COORIENT_PREMIO', 'Coorientador Prêmio', 'premiacoes'],
      ['COORIENT_MENCAO', 'Coorientador Menção', 'premiacoes'],
      ['ORIENT_POS_DOC', 'Orient. Pós-Doc', 'orientacoes'],
      ['ORIENT_TESE', 'Orient. Tese', 'orientacoes'],
      ['ORIENT_DISS', 'Orient. Dissertação', 'orientacoes'],
      ['CO_ORIENT_POS_DOC', 'Coorient. Pós-Doc', 'coorientacoes'],
      ['CO_ORIENT_TESE', 'Coorient. Tese', 'coorientacoes'],
      ['CO_ORIENT_DISS', 'Coorient. Dissertação', 'coorientacoes'],
    ]);
    for (const entry of SEAL_CATALOGUE) expect(entry.icone).not.toBe('');
    expect(sealCatalogueEntry('PRESID_CAMARA').icone).toBe('🏛️');
    expect(sealCatalogueEntry('COORD_PPG').icone).toBe('🎓');
  });

  it('sealCatalogue() hands out copies', () => {
    const copy = sealCatalogue();
    expect(copy).toEqual(SEAL_CATALOGUE);
    (copy[0] as { label: string }).label = 'changed';
    expect(SEAL_CATALOGUE[0]?.label).toBe('Presidente Câmara');
  });

  it('finds entries in any case and spacing', () => {
    expect(sealCatalogueEntry(' bpq ')).toEqual({ codigo: 'BPQ', label: 'Bolsista PQ', icone: '🔬', grupo: 'funcoes' });
    expect(sealCatalogueEntry('co_orient_tese').codigo).toBe('CO_ORIENT_TESE');
  });

  it('a code without metadata: label is the code, group outros, a generic symbol', () => {
    expect(sealCatalogueEntry('novo_selo')).toEqual({ codigo: 'NOVO_SELO', label: 'NOVO_SELO', icone: UNKNOWN_SEAL_ICON, grupo: 'outros' });
    expect(sealCatalogueEntry('constructor').grupo).toBe('outros');
  });

  it('normaliseSealCode trims and upper-cases', () => {
    expect(normaliseSealCode('  orient_gp ')).toBe('ORIENT_GP');
    expect(normaliseSealCode('Co_Orient_Diss')).toBe('CO_ORIENT_DISS');
    expect(normaliseSealCode('')).toBe('');
  });
});

describe('deriveSeals', () => {
  it('PRESID_CAMARA: an agency coordination whose funcao starts with Presidente', () => {
    const coordination = (funcao: unknown, inicio = '2020-01-01') => ({ tipo: 'CA', inicio, fim: null, funcao });
    expect(deriveSeals(person({ coordenacoes_agency: [coordination('Presidente da Câmara Temática')] }), REF)).toEqual(['PRESID_CAMARA']);
    expect(deriveSeals(person({ coordenacoes_agency: [coordination('  presidente')] }), REF)).toEqual(['PRESID_CAMARA']);
    expect(deriveSeals(person({ coordenacoes_agency: [coordination('Vice-Presidente')] }), REF)).toEqual([]);
    expect(deriveSeals(person({ coordenacoes_agency: [coordination(null)] }), REF)).toEqual([]);
    expect(deriveSeals(person({ coordenacoes_agency: [coordination('Presidente', '2025-01-01')] }), REF)).toEqual([]);
  });

  it('COORD_PPG: any PPG coordination period, current or not', () => {
    const docencias = (coordenacoes: unknown) => [{ programa: 'Química', coordenacoes }];
    expect(deriveSeals(person({ docencias: docencias([{ inicio: '2010-01-01', fim: '2011-12-31' }]) }), REF)).toEqual(['COORD_PPG']);
    expect(deriveSeals(person({ docencias: docencias([]) }), REF)).toEqual([]);
    expect(deriveSeals(person({ docencias: docencias([{ inicio: 'x' }]) }), REF)).toEqual([]);
  });

  it('BPQ: a PQ grant current at the reference date', () => {
    const doc = person({
      bolsas_funder: [
        { modalidade: 'PQ-2', inicio: '2021-03-01', fim: '2024-02-29' },
        { modalidade: 'DT-1', inicio: '2021-03-01', fim: null },
      ],
    });
    expect(deriveSeals(doc, '2024-02-29')).toEqual(['BPQ']);
    expect(deriveSeals(doc, '2024-03-01')).toEqual([]);
    expect(deriveSeals(person({ bolsas_funder: [{ modalidade: 'PQ', nivel: '1A', inicio: '2021-03-01', fim: null }] }), REF)).toEqual([
      'BPQ',
    ]);
  });

  it.each([
    ['Autor', 'PREMIACAO_GP', 'AUTOR_GP'],
    ['Autor', 'PREMIACAO', 'AUTOR_PREMIO'],
    ['Autor', 'MENCAO', 'AUTOR_MENCAO'],
    ['Orientador', 'PREMIACAO_GP', 'ORIENT_GP'],
    ['Orientador', 'PREMIACAO', 'ORIENT_PREMIO'],
    ['Orientador', 'MENCAO', 'ORIENT_MENCAO'],
    ['Coorientador', 'PREMIACAO_GP', 'COORIENT_GP'],
    ['Coorientador', 'PREMIACAO', 'COORIENT_PREMIO'],
    ['Coorientador', 'MENCAO', 'COORIENT_MENCAO'],
  ])('an award as %s of type %s gives %s', (papel, tipo, seal) => {
    expect(deriveSeals(person({ premiacoes: [{ tipo, papel, premio: 'P', ano: 2020 }] }), REF)).toEqual([seal]);
  });

  it.each([
    ['Orientador', 'Pós-Doutorado', 'ORIENT_POS_DOC'],
    ['Orientador', 'Doutorado', 'ORIENT_TESE'],
    ['Orientador', 'Mestrado', 'ORIENT_DISS'],
    ['Coorientador', 'Pós-Doutorado', 'CO_ORIENT_POS_DOC'],
    ['Coorientador', 'Doutorado', 'CO_ORIENT_TESE'],
    ['Coorientador', 'Mestrado', 'CO_ORIENT_DISS'],
  ])('a concluded supervision as %s of %s gives %s; an ongoing one none', (papel, nivel, seal) => {
    const supervision = (concluida: boolean) => ({ tipo: 'Orientação', nivel, papel, concluida, ano: 2020 });
    expect(deriveSeals(person({ orientacoes: [supervision(true)] }), REF)).toEqual([seal]);
    expect(deriveSeals(person({ orientacoes: [supervision(false)] }), REF)).toEqual([]);
  });

  it('gives each code once, sorted, in upper case', () => {
    const seals = deriveSeals(
      person({
        premiacoes: [
          { tipo: 'MENCAO', papel: 'Orientador', premio: 'P', ano: 2020 },
          { tipo: 'MENCAO', papel: 'Orientador', premio: 'Q', ano: 2021 },
          { tipo: 'PREMIACAO_GP', papel: 'Autor', premio: 'P', ano: 2020 },
        ],
        orientacoes: [
          { tipo: 'Orientação Concluída', nivel: 'Mestrado', papel: 'Orientador', concluida: true },
          { tipo: 'Orientação Concluída', nivel: 'Mestrado', papel: 'Orientador', concluida: true },
        ],
      }),
      REF,
    );
    expect(seals).toEqual(['AUTOR_GP', 'ORIENT_DISS', 'ORIENT_MENCAO']);
  });

  it('skips what the scoring skips: future years, unknown roles, dirty values', () => {
    expect(
      deriveSeals(
        person({
          premiacoes: [
            { tipo: 'MENCAO', papel: 'Autor', premio: 'P', ano: 2025 },
            { tipo: 'MENCAO', papel: 'Leitor', premio: 'P', ano: 2020 },
            null,
          ],
          orientacoes: 'muitas',
          bolsas_funder: [{ modalidade: 'PQ-1A', inicio: null }],
        }),
        REF,
      ),
    ).toEqual([]);
    expect(deriveSeals(person({}), REF)).toEqual([]);
  });

  it('scorePerson gives the same seals', () => {
    const doc = person({
      coordenacoes_agency: [{ tipo: 'CAJ', inicio: '2019-01-01', fim: null, funcao: 'Presidente' }],
      bolsas_funder: [{ modalidade: 'PQ-1D', inicio: '2022-03-01', fim: null }],
      premiacoes: [{ tipo: 'PREMIACAO', papel: 'Coorientador', premio: 'P', ano: 2019 }],
      orientacoes: [{ tipo: 'Orientação Concluída', nivel: 'Pós-Doutorado', papel: 'Coorientador', concluida: true, ano: 2019 }],
      docencias: [{ programa: 'Física', coordenacoes: [{ inicio: '2018-01-01', fim: null }] }],
    });
    const seals = deriveSeals(doc, REF);
    expect(seals).toEqual(['BPQ', 'COORD_PPG', 'COORIENT_PREMIO', 'CO_ORIENT_POS_DOC', 'PRESID_CAMARA']);
    expect(scorePerson(doc, REF).selos).toEqual(seals);
  });
});
