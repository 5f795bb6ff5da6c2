import { z } from 'zod';
import type { Degree, Language } from './person-document';

const stored = z.string().nullable();

/** A degree item as the API returns it (ranking entry `cv.titulacoes`, curriculum `titulacoes`). */
export const degreeItemSchema = z
  .object({
    grau: z.string().meta({ description: "The degree; '' when the document has none" }),
    hierarquia: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Lower is higher (1 Pós-Doutorado … 4 Graduação); null when the stored value is not a digit string' }),
    ano: z.number().int().nullable().meta({ description: 'The stored year when it is a digit string, else null' }),
    inicio: stored,
    fim: stored,
    ies_nome: stored,
    ies_sigla: stored,
    ies_status: stored,
    area: stored,
    area_avaliacao: stored,
    programa: stored,
    codigo_programa: stored,
    programa_modalidade: stored,
    programa_situacao: stored,
    pais: z.string().meta({ description: '`Brasil` when the document has none' }),
  })
  .meta({ id: 'DegreeItem' });
export type DegreeItem = z.infer<typeof degreeItemSchema>;

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
export const rankingLanguageSchema = z
  .object({ idioma: z.string(), nivel_leitura: stored, nivel_escrita: stored, nivel_fala: stored, nivel_compreensao: stored })
  .meta({ id: 'RankingLanguage' });
export type RankingLanguage = z.infer<typeof rankingLanguageSchema>;

export function toRankingLanguage(language: Language): RankingLanguage {
  return {
    idioma: language.idioma,
    nivel_leitura: language.proficiencia_leitura ?? null,
    nivel_escrita: language.proficiencia_escrita ?? null,
    nivel_fala: language.proficiencia_fala ?? null,
    nivel_compreensao: language.proficiencia_compreensao ?? null,
  };
}
