import type { StoredEntry, StoredEntryWithDetails } from '../db/ranking-queries';
import { degreeItems, toRankingLanguage, type DegreeItem, type RankingLanguage } from './degrees';
import type { PersonDocument } from './person-document';
import type { StoredComplements } from './ranking-row';

/** The `cv` object of a ranking entry. */
export interface EntryCv {
  id_cv: string;
  url: string;
  titulacoes: DegreeItem[];
}

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

/** The stored cv: built by the job from the same document as the stored degrees (domain/ranking-row.ts). */
export function storedCv(complements: StoredComplements, cvBaseUrl: string): EntryCv | undefined {
  if (!complements.id_cv) return undefined;
  return { id_cv: complements.id_cv, url: cvUrl(cvBaseUrl, complements.id_cv), titulacoes: complements.titulacao ?? [] };
}

/** The parts of an entry that rules 3 and 4 decide. */
export interface ResolvedComplements {
  idiomas: RankingLanguage[] | null;
  titulacao: DegreeItem[] | null;
  cv: EntryCv | null;
}

/**
 * Rules 3 and 4. Rule 3: when the stored details lack languages they are filled from the index
 * document, and so are the degrees when those are missing too. Rule 4: see resolveCv. `doc` is
 * undefined when it was not needed or the index has no document for the person.
 */
export function resolveComplements(
  complements: StoredComplements,
  doc: Pick<PersonDocument, 'id_cv' | 'idiomas' | 'titulacoes'> | undefined,
  cvBaseUrl: string,
): ResolvedComplements {
  const lacksLanguages = !complements.idiomas;
  const idiomas = lacksLanguages && doc?.idiomas ? doc.idiomas.map(toRankingLanguage) : (complements.idiomas ?? null);
  const titulacao = lacksLanguages && !complements.titulacao && doc?.titulacoes ? degreeItems(doc.titulacoes) : (complements.titulacao ?? null);
  return { idiomas, titulacao, cv: resolveCv(storedCv(complements, cvBaseUrl), doc, cvBaseUrl) };
}

/** Whether rules 3 or 4 read the index document for an entry, so a page fetches only those. */
export function needsIndexDocument(complements: StoredComplements): boolean {
  const first = complements.titulacao?.[0];
  return !complements.idiomas || !complements.id_cv || !first?.programa || !first?.area_avaliacao;
}

/**
 * A ranking entry (rules 3-5) as JSON bytes: the ranking columns, then the stored pass-through
 * details spliced in as stored — most of a page's bytes, never decoded, parsed or re-serialised —
 * then languages, degrees and the cv, then any `extra` fields (e.g. `rank`).
 */
export function rankingEntryJson(
  stored: Omit<StoredEntryWithDetails, 'posicao' | 'detalhes'> & { posicao: number | null; detalhes: Buffer | string },
  doc: Pick<PersonDocument, 'id_cv' | 'idiomas' | 'titulacoes'> | undefined,
  cvBaseUrl: string,
  extra: Record<string, unknown> = {},
): Buffer {
  const { detalhes, complementos, revisao_documento: _revision, ...columns } = stored;
  const head = JSON.stringify(columns).slice(0, -1);
  const tail = JSON.stringify({ ...resolveComplements(complementos, doc, cvBaseUrl), ...extra }).slice(1);
  const passThrough = objectMembers(typeof detalhes === 'string' ? Buffer.from(detalhes) : detalhes);
  return passThrough
    ? Buffer.concat([Buffer.from(`${head},`), passThrough, Buffer.from(`,${tail}`)])
    : Buffer.from(`${head},${tail}`);
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** The members of a JSON object's bytes, without its braces; undefined when it has none. */
function objectMembers(json: Buffer): Buffer | undefined {
  const start = json.indexOf(OPEN_BRACE) + 1;
  const end = json.lastIndexOf(CLOSE_BRACE);
  for (let i = start; i < end; i += 1) {
    if (!WHITESPACE.has(json[i] as number)) return json.subarray(start, end);
  }
  return undefined;
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
