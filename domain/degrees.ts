import type { Degree, Language } from './person-document';

/** A degree item as the API returns it (ranking entry `cv.titulacoes`, curriculum `titulacoes`). */
export interface DegreeItem {
  grau: string;
  hierarquia: number | null;
  ano: number | null;
  inicio: string | null;
  fim: string | null;
  ies_nome: string | null;
  ies_sigla: string | null;
  ies_status: string | null;
  area: string | null;
  area_avaliacao: string | null;
  programa: string | null;
  codigo_programa: string | null;
  programa_modalidade: string | null;
  programa_situacao: string | null;
  pais: string;
}

/** An integer when the stored value is a digit string (`"2004"`, `" 3 "`), otherwise null (`"s/d"`, `""`). */
export function parseDigitString(value: string | null | undefined): number | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return /^\d+$/.test(trimmed) ? Number(trimmed) : null;
}

export function toDegreeItem(degree: Degree): DegreeItem {
  return {
    grau: degree.grau ?? '',
    hierarquia: parseDigitString(degree.hierarquia),
    ano: parseDigitString(degree.ano),
    inicio: degree.inicio ?? null,
    fim: degree.fim ?? null,
    ies_nome: degree.ies_nome ?? null,
    ies_sigla: degree.ies_sigla ?? null,
    ies_status: degree.ies_status ?? null,
    area: degree.area ?? null,
    area_avaliacao: degree.area_avaliacao ?? null,
    programa: degree.programa ?? null,
    codigo_programa: degree.codigo_programa ?? null,
    programa_modalidade: degree.programa_modalidade ?? null,
    programa_situacao: degree.programa_situacao ?? null,
    pais: degree.pais || 'Brasil',
  };
}

const MISSING_HIERARCHY = 99;
const MISSING_YEAR = 0;

/** Degrees by `hierarquia` ascending (missing = 99), then `ano` descending (missing = 0); stable otherwise. */
export function sortDegreeItems(items: DegreeItem[]): DegreeItem[] {
  return items
    .map((item, index) => ({ item, index }))
    .sort(
      (a, b) =>
        (a.item.hierarquia ?? MISSING_HIERARCHY) - (b.item.hierarquia ?? MISSING_HIERARCHY) ||
        (b.item.ano ?? MISSING_YEAR) - (a.item.ano ?? MISSING_YEAR) ||
        a.index - b.index,
    )
    .map(({ item }) => item);
}

export function degreeItems(degrees: Degree[] | undefined | null): DegreeItem[] {
  return sortDegreeItems((degrees ?? []).map(toDegreeItem));
}

/** A language as a ranking entry carries it (`nivel_*`; the curriculum uses `proficiencia_*`). */
export interface RankingLanguage {
  idioma: string;
  nivel_leitura: string | null;
  nivel_escrita: string | null;
  nivel_fala: string | null;
  nivel_compreensao: string | null;
}

export function toRankingLanguage(language: Language): RankingLanguage {
  return {
    idioma: language.idioma,
    nivel_leitura: language.proficiencia_leitura ?? null,
    nivel_escrita: language.proficiencia_escrita ?? null,
    nivel_fala: language.proficiencia_fala ?? null,
    nivel_compreensao: language.proficiencia_compreensao ?? null,
  };
}
