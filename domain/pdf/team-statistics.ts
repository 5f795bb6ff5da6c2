import { foldForSearch } from '../text';

/** A team member as POST /equipe/pdf receives it (spec "Team request"), defaults applied. */
export interface TeamMember {
  id_pessoa: number;
  nome: string;
  ies: string | null;
  areas_avaliacao: string[];
  areas_conhecimento: string[];
  linhas_pesquisa: string[];
  situacao: string;
  foi_coordenador: boolean;
  foi_premiado: boolean;
  posicao_ranking: number | null;
  pontuacao_ranking: number;
  motivos_match: string[];
}

export interface TeamRequest {
  tema: string;
  area_avaliacao: string | null;
  consultores: TeamMember[];
}

/** The statistics the team sheet shows (definitions in docs/pdf.md). */
export interface TeamStatistics {
  total: number;
  ativos: number;
  coordenadores: number;
  premiados: number;
  instituicoes: number;
}

/** `situacao` as the suggestion gives it (`Ativo`, `Inativo`, `Falecido`), compared folded. */
export function isActiveSituation(situacao: string): boolean {
  return foldForSearch(situacao) === 'ativo';
}

/**
 * Members without repeats: a person listed twice is one member (the first listing wins), so the
 * statistics and the table count people, not rows sent.
 */
export function uniqueMembers(members: readonly TeamMember[]): TeamMember[] {
  const seen = new Set<number>();
  return members.filter((member) => !seen.has(member.id_pessoa) && Boolean(seen.add(member.id_pessoa)));
}

/** Institutions are distinct non-empty `ies`, compared without case, accents or extra spaces. */
export function distinctInstitutions(members: readonly TeamMember[]): number {
  const keys = members.map((member) => foldForSearch(member.ies ?? '')).filter(Boolean);
  return new Set(keys).size;
}

export function teamStatistics(members: readonly TeamMember[]): TeamStatistics {
  return {
    total: members.length,
    ativos: members.filter((member) => isActiveSituation(member.situacao)).length,
    coordenadores: members.filter((member) => member.foi_coordenador).length,
    premiados: members.filter((member) => member.foi_premiado).length,
    instituicoes: distinctInstitutions(members),
  };
}
