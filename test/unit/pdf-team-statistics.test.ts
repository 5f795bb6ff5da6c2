import { distinctInstitutions, isActiveSituation, teamStatistics, uniqueMembers, type TeamMember } from '../../domain/pdf/team-statistics';

function member(id: number, fields: Partial<TeamMember> = {}): TeamMember {
  return {
    id_pessoa: id,
    nome: `Pessoa ${id}`,
    ies: null,
    areas_avaliacao: [],
    areas_conhecimento: [],
    linhas_pesquisa: [],
    situacao: '',
    foi_coordenador: false,
    foi_premiado: false,
    posicao_ranking: null,
    pontuacao_ranking: 0,
    motivos_match: [],
    ...fields,
  };
}

describe('isActiveSituation', () => {
  it.each([
    ['Ativo', true],
    [' ativo ', true],
    ['ATIVO', true],
    ['Inativo', false],
    ['Falecido', false],
    ['', false],
    ['Ativo/Inativo', false],
  ])('%j → %p', (situacao, active) => {
    expect(isActiveSituation(situacao)).toBe(active);
  });
});

describe('distinctInstitutions', () => {
  it('counts non-empty ies once each, without case, accents or extra spaces', () => {
    const members = [
      member(1, { ies: 'UnB' }),
      member(2, { ies: 'UNB' }),
      member(3, { ies: ' unb ' }),
      member(4, { ies: 'Universidade de Brasília' }),
      member(5, { ies: 'Universidade  de Brasilia' }),
      member(6, { ies: 'USP' }),
      member(7, { ies: null }),
      member(8, { ies: '   ' }),
    ];
    // UnB, Universidade de Brasília, USP: spelling variants of one name fold together; an
    // abbreviation and a full name are different texts (the sheet cannot know they are one).
    expect(distinctInstitutions(members)).toBe(3);
  });

  it('is 0 when nobody has an institution', () => {
    expect(distinctInstitutions([member(1), member(2, { ies: '' })])).toBe(0);
  });
});

describe('teamStatistics', () => {
  it('counts total, active, coordinators, awarded and institutions', () => {
    const members = [
      member(1, { situacao: 'Ativo', foi_coordenador: true, foi_premiado: true, ies: 'UFMG' }),
      member(2, { situacao: 'Ativo', foi_coordenador: true, ies: 'ufmg' }),
      member(3, { situacao: 'Inativo', foi_premiado: true, ies: 'UFRJ' }),
      member(4, { situacao: 'Falecido', ies: null }),
      member(5, { situacao: '', ies: 'USP' }),
    ];
    expect(teamStatistics(members)).toEqual({ total: 5, ativos: 2, coordenadores: 2, premiados: 2, instituicoes: 3 });
  });

  it('a team of one with only defaults', () => {
    expect(teamStatistics([member(9)])).toEqual({ total: 1, ativos: 0, coordenadores: 0, premiados: 0, instituicoes: 0 });
  });
});

describe('uniqueMembers', () => {
  it('keeps the first listing of a person and the order of the rest', () => {
    const first = member(1, { nome: 'Ana', situacao: 'Ativo' });
    const members = [first, member(2), member(1, { nome: 'Ana de novo', situacao: 'Inativo' }), member(3), member(2)];
    expect(uniqueMembers(members).map((m) => m.id_pessoa)).toEqual([1, 2, 3]);
    expect(uniqueMembers(members)[0]).toBe(first);
  });
});
