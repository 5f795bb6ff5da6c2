import type { StoredEntry } from '../db/ranking-queries';
import { degreeItems, toRankingLanguage, type DegreeItem, type RankingLanguage } from './degrees';
import type { PersonDocument } from './person-document';
import { STORED_DETAILS } from './ranking-row';

/** The `cv` object of a ranking entry. */
export interface EntryCv {
  id_cv: string;
  url: string;
  titulacoes: DegreeItem[];
}

/** The details an entry passes through: what the job stores, plus the score breakdown. */
const DETAIL_FIELDS = [...STORED_DETAILS, 'pontuacao'] as const;

export type RankingEntry = Omit<StoredEntry, 'detalhes'> &
  Record<(typeof DETAIL_FIELDS)[number], unknown> & {
    idiomas: RankingLanguage[] | null;
    titulacao: DegreeItem[] | null;
    cv: EntryCv | null;
  };

export function cvUrl(cvBaseUrl: string, idCv: string): string {
  return `${cvBaseUrl.replace(/\/+$/, '')}/${encodeURIComponent(idCv)}`;
}

/**
 * Rule 4: a stored cv is kept unless it is absent or its first degree lacks `programa` or
 * `area_avaliacao`; then it is rebuilt from the document, only when the document has a curriculum
 * identifier; a document without degrees does not replace an existing cv.
 */
export function resolveCv(
  stored: EntryCv | null | undefined,
  doc: Pick<PersonDocument, 'id_cv' | 'titulacoes'> | undefined,
  cvBaseUrl: string,
): EntryCv | null {
  const first = stored?.titulacoes?.[0];
  const complete = stored && first && first.programa && first.area_avaliacao;
  if (complete) return stored;
  if (!doc?.id_cv) return stored ?? null;
  const titulacoes = degreeItems(doc.titulacoes);
  if (titulacoes.length === 0 && stored) return stored;
  return { id_cv: doc.id_cv, url: cvUrl(cvBaseUrl, doc.id_cv), titulacoes };
}

/**
 * A ranking entry of /ranking/paginado: the stored row and details (null when absent), with
 * languages and degrees filled from the index document when the details lack them (rule 3)
 * and the cv resolved by rule 4. `doc` is undefined when the index has no document for the person.
 */
export function toRankingEntry(
  stored: StoredEntry,
  doc: Pick<PersonDocument, 'id_cv' | 'idiomas' | 'titulacoes'> | undefined,
  cvBaseUrl: string,
): RankingEntry {
  const { detalhes, ...columns } = stored;
  const details = Object.fromEntries(DETAIL_FIELDS.map((field) => [field, detalhes[field] ?? null])) as Record<
    (typeof DETAIL_FIELDS)[number],
    unknown
  >;
  const storedLanguages = detalhes.idiomas as RankingLanguage[] | undefined;
  const storedDegrees = detalhes.titulacao as DegreeItem[] | undefined;
  return {
    ...columns,
    ...details,
    idiomas: storedLanguages ?? (doc?.idiomas ? doc.idiomas.map(toRankingLanguage) : null),
    titulacao: storedDegrees ?? (doc?.titulacoes ? degreeItems(doc.titulacoes) : null),
    cv: resolveCv(detalhes.cv as EntryCv | undefined, doc, cvBaseUrl),
  };
}

/** Whether an entry needs its index document (rules 3 and 4), so a page fetches only those. */
export function needsIndexDocument(stored: StoredEntry): boolean {
  const cv = stored.detalhes.cv as EntryCv | undefined;
  const first = cv?.titulacoes?.[0];
  return !stored.detalhes.idiomas || !stored.detalhes.titulacao || !cv || !first?.programa || !first?.area_avaliacao;
}

/** An element of GET /ranking. */
export interface RankingSummary {
  id_pessoa: number;
  nome: string;
  anos_atuacao: number;
  ativo: boolean;
  veterano: boolean;
  pontuacao_total: number;
  bloco_a: number;
  bloco_c: number;
  bloco_d: number;
  rank: number;
}

export const VETERAN_YEARS = 10;

export function toRankingSummary(entry: StoredEntry, rank: number): RankingSummary {
  return {
    id_pessoa: entry.id_pessoa,
    nome: entry.nome,
    anos_atuacao: entry.anos_atuacao,
    ativo: entry.ativo,
    veterano: entry.anos_atuacao >= VETERAN_YEARS,
    pontuacao_total: entry.pontuacao_total,
    bloco_a: entry.bloco_a,
    bloco_c: entry.bloco_c,
    bloco_d: entry.bloco_d,
    rank,
  };
}
