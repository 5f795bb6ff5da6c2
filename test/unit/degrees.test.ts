import { degreeItems, parseDigitString, toDegreeItem, toRankingLanguage } from '../../domain/degrees';

describe('parseDigitString (ano, hierarquia)', () => {
  it.each([
    ['2004', 2004],
    [' 3 ', 3],
    ['0', 0],
    ['s/d', null],
    ['', null],
    ['20O4', null],
    ['-1', null],
    ['2004.0', null],
    [null, null],
    [undefined, null],
  ])('%p → %p', (input, expected) => expect(parseDigitString(input)).toBe(expected));
});

describe('toDegreeItem', () => {
  it('fills defaults: empty grau, nulls, pais Brasil', () => {
    expect(toDegreeItem({})).toEqual({
      grau: '',
      hierarquia: null,
      ano: null,
      inicio: null,
      fim: null,
      ies_nome: null,
      ies_sigla: null,
      ies_status: null,
      area: null,
      area_avaliacao: null,
      programa: null,
      codigo_programa: null,
      programa_modalidade: null,
      programa_situacao: null,
      pais: 'Brasil',
    });
    expect(toDegreeItem({ grau: 'Doutorado', hierarquia: '2', ano: '2010', pais: 'Portugal' })).toMatchObject({
      grau: 'Doutorado',
      hierarquia: 2,
      ano: 2010,
      pais: 'Portugal',
    });
  });
});

describe('degreeItems ordering', () => {
  it('sorts by hierarquia ascending (missing = 99), then ano descending (missing = 0)', () => {
    const sorted = degreeItems([
      { grau: 'Graduação', hierarquia: '4', ano: '1990' },
      { grau: 'Sem hierarquia', hierarquia: 'N/I', ano: '2020' },
      { grau: 'Doutorado antigo', hierarquia: '2', ano: '2001' },
      { grau: 'Doutorado sem ano', hierarquia: '2', ano: 's/d' },
      { grau: 'Doutorado recente', hierarquia: '2', ano: '2015' },
      { grau: 'Pós-Doutorado', hierarquia: '1', ano: '' },
    ]);
    expect(sorted.map((item) => item.grau)).toEqual([
      'Pós-Doutorado',
      'Doutorado recente',
      'Doutorado antigo',
      'Doutorado sem ano',
      'Graduação',
      'Sem hierarquia',
    ]);
  });

  it('returns an empty list for absent degrees', () => {
    expect(degreeItems(undefined)).toEqual([]);
  });
});

describe('toRankingLanguage', () => {
  it('maps proficiencia_* to nivel_*', () => {
    expect(toRankingLanguage({ idioma: 'Inglês', proficiencia_leitura: 'Bem', proficiencia_fala: 'Razoavelmente' })).toEqual({
      idioma: 'Inglês',
      nivel_leitura: 'Bem',
      nivel_escrita: null,
      nivel_fala: 'Razoavelmente',
      nivel_compreensao: null,
    });
  });
});
