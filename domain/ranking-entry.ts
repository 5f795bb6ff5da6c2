import { z } from 'zod';
import { degreeItems, degreeItemSchema, rankingLanguageSchema, toRankingLanguage } from './degrees';
import type { PersonDocument } from './person-document';
import { passThroughDetailsSchema, type RankingRow, type StoredComplements } from './ranking-row';
import { ACTIVITY_KINDS } from './scoring/score-person';

/** A positioned row as readers get it: the ranking columns of what the job wrote, plus the position. */
export type StoredEntry = Omit<
  RankingRow,
  'nome_busca' | 'run_id' | 'impressao' | 'chave_documento' | 'verificada_em' | 'detalhes' | 'complementos' | 'revisao_documento'
> & { posicao: number };

/**
 * An entry with its details: the pass-through JSON as the stored bytes (never decoded, parsed or
 * re-encoded here: a page is mostly these bytes) and the complements, as bytes in response form when
 * the job stored them so (complete entries), else parsed.
 */
export type StoredEntryWithDetails = StoredEntry &
  Pick<RankingRow, 'revisao_documento'> & { detalhes: Buffer; complementos: EntryComplements };

/** The `cv` object of a ranking entry; `url` last in every entry, as complements in response form have it. */
export const entryCvSchema = z
  .object({
    id_cv: z.string().meta({ description: 'The curriculum identifier' }),
    titulacoes: z
      .array(degreeItemSchema)
      .meta({ description: 'By `hierarquia` ascending (missing 99), then `ano` descending (missing 0)' }),
    url: z.string().meta({ description: '`<CV_BASE_URL>/<id_cv>`' }),
  })
  .meta({ id: 'EntryCv' });
export type EntryCv = z.infer<typeof entryCvSchema>;

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
  return { id_cv: doc.id_cv, titulacoes, url: cvUrl(cvBaseUrl, doc.id_cv) };
}

/** The stored cv: built by the job from the same document as the stored degrees (domain/ranking-row.ts). */
export function storedCv(complements: StoredComplements, cvBaseUrl: string): EntryCv | undefined {
  if (!complements.id_cv) return undefined;
  return { id_cv: complements.id_cv, titulacoes: complements.titulacao ?? [], url: cvUrl(cvBaseUrl, complements.id_cv) };
}

/** The parts of an entry that rules 3 and 4 decide. */
export const resolvedComplementsSchema = z.object({
  idiomas: z
    .array(rankingLanguageSchema)
    .nullable()
    .meta({ description: "The stored languages, else the index document's (rule 3); null when neither has any" }),
  titulacao: z
    .array(degreeItemSchema)
    .nullable()
    .meta({ description: "The stored degrees, else the index document's (rule 3); null when neither has any" }),
  cv: entryCvSchema.nullable().meta({ description: 'Rule 4; null when no curriculum identifier is known' }),
});
export type ResolvedComplements = z.infer<typeof resolvedComplementsSchema>;

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
  const titulacao =
    lacksLanguages && !complements.titulacao && doc?.titulacoes ? degreeItems(doc.titulacoes) : (complements.titulacao ?? null);
  return { idiomas, titulacao, cv: resolveCv(storedCv(complements, cvBaseUrl), doc, cvBaseUrl) };
}

/**
 * The complements of a complete entry in response form, as the job stores them (readyComplementsJson),
 * with the curriculum id its cv url is built from at read time.
 */
export interface ReadyComplements {
  json: Buffer;
  idCv: string;
}

/** Complements as a reader gets them: in response form when complete, else as stored for rules 3 and 4. */
export type EntryComplements = StoredComplements | ReadyComplements;

export function isReady(complements: EntryComplements): complements is ReadyComplements {
  return 'json' in complements;
}

/** Whether rules 3 or 4 read the index document for an entry, so a page fetches only those. */
export function needsIndexDocument(complements: EntryComplements): boolean {
  if (isReady(complements)) return false;
  const first = complements.titulacao?.[0];
  return !complements.idiomas || !complements.id_cv || !first?.programa || !first?.area_avaliacao;
}

/**
 * Rules 3 and 4's members of a complete entry (one no index document can change) in response form,
 * up to its cv's url, which depends on CV_BASE_URL and is appended at read time:
 * `"idiomas":…,"titulacao":…,"cv":{"id_cv":…,"titulacoes":…`. Null for an incomplete entry. The job
 * stores it, so a page splices bytes instead of parsing and serialising ~1 KB per entry.
 */
export function readyComplementsJson(complements: StoredComplements): string | null {
  if (needsIndexDocument(complements)) return null;
  const titulacao = JSON.stringify(complements.titulacao);
  return `"idiomas":${JSON.stringify(complements.idiomas)},"titulacao":${titulacao},"cv":{"id_cv":${JSON.stringify(complements.id_cv)},"titulacoes":${titulacao}`;
}

/** What rankingEntryJson needs of an entry: the ranking columns, the stored details and the complements. */
export type EntryToRender = Omit<StoredEntry, 'posicao'> & {
  posicao: number | null;
  detalhes: Buffer | string;
  complementos: EntryComplements;
};

/** The ranking columns of an entry, in response order (`posicao` null only for a person scored on the fly). */
export const entryColumnsSchema = z.object({
  id_pessoa: z.number().int(),
  nome: z.string().meta({ description: 'As stored (may carry encoding damage, e.g. `Jo227o`)' }),
  posicao: z.number().int().min(1).nullable().meta({ description: 'Position in the ranking, 1 is best' }),
  pontuacao_total: z.number().meta({ description: 'Sum of the five blocks, 2 decimals' }),
  bloco_a: z.number().meta({ description: 'Block A: coordination roles at agency level' }),
  bloco_b: z.number().meta({ description: 'Block B: consultancy' }),
  bloco_c: z.number().meta({ description: 'Block C: evaluations and awards' }),
  bloco_d: z.number().meta({ description: 'Block D: indicators' }),
  bloco_e: z.number().meta({ description: 'Block E: graduate-programme (PPG) coordination' }),
  ativo: z.boolean(),
  anos_atuacao: z.number().meta({ description: 'Years of activity as a consultant' }),
  coordenador_ppg: z.boolean(),
  tipos_atuacao: z.array(z.enum(ACTIVITY_KINDS)).meta({ description: 'Kinds of activity, in this fixed order' }),
  selos: z.array(z.string()).meta({ description: "The person's seal codes (GET /ranking/selos), upper case, sorted" }),
});
export type EntryColumns = z.infer<typeof entryColumnsSchema>;

/**
 * A ranking entry as GET /ranking/paginado serves it (rules 3-5): the columns, the pass-through
 * details, the score breakdown, then languages, degrees and the cv. Never built as an object: its
 * bytes are spliced (rankingEntryJson); this is what they hold.
 */
export const rankingEntrySchema = z
  .object({
    ...entryColumnsSchema.shape,
    posicao: z.number().int().min(1).meta({ description: 'Position in the ranking, 1 is best' }),
    ...passThroughDetailsSchema.shape,
    ...resolvedComplementsSchema.shape,
  })
  .meta({ id: 'RankingEntry' });

/** An item of GET /ranking/detalhado: the ranking entry and `rank`. */
export const detailedRankingEntrySchema = z
  .object({
    ...rankingEntrySchema.shape,
    rank: z
      .number()
      .int()
      .min(1)
      .meta({ description: "The position; with `componente`, the place in that block's list (1-based, counting the offset)" }),
  })
  .meta({ id: 'DetailedRankingEntry' });

/** The ranking columns of an entry as JSON members, in response order. */
function columnMembers(entry: EntryToRender): string {
  // Typed by the schema (the kinds are the scorer's, stored as text: any string here).
  const columns: Omit<EntryColumns, 'tipos_atuacao'> & { tipos_atuacao: readonly string[] } = {
    id_pessoa: entry.id_pessoa,
    nome: entry.nome,
    posicao: entry.posicao,
    pontuacao_total: entry.pontuacao_total,
    bloco_a: entry.bloco_a,
    bloco_b: entry.bloco_b,
    bloco_c: entry.bloco_c,
    bloco_d: entry.bloco_d,
    bloco_e: entry.bloco_e,
    ativo: entry.ativo,
    anos_atuacao: entry.anos_atuacao,
    coordenador_ppg: entry.coordenador_ppg,
    tipos_atuacao: entry.tipos_atuacao,
    selos: entry.selos,
  };
  return JSON.stringify(columns).slice(1, -1);
}

/** Rules 3 and 4's members of an entry, then the `extra` ones. */
function complementMembers(
  complements: EntryComplements,
  doc: Pick<PersonDocument, 'id_cv' | 'idiomas' | 'titulacoes'> | undefined,
  cvBaseUrl: string,
  extra: Record<string, unknown>,
): Buffer[] {
  const extraMembers = JSON.stringify(extra).slice(1, -1);
  const afterCv = extraMembers ? `,${extraMembers}` : '';
  if (isReady(complements)) {
    return [complements.json, Buffer.from(`,"url":${JSON.stringify(cvUrl(cvBaseUrl, complements.idCv))}}${afterCv}`)];
  }
  return [Buffer.from(JSON.stringify({ ...resolveComplements(complements, doc, cvBaseUrl), ...extra }).slice(1, -1))];
}

/**
 * A ranking entry (rules 3-5) as JSON bytes: the ranking columns, then the stored pass-through
 * details spliced in as stored — most of a page's bytes, never decoded, parsed or re-serialised —
 * then languages, degrees and the cv (spliced too when the job stored them in response form), then
 * any `extra` fields (e.g. `rank`).
 */
export function rankingEntryJson(
  entry: EntryToRender,
  doc: Pick<PersonDocument, 'id_cv' | 'idiomas' | 'titulacoes'> | undefined,
  cvBaseUrl: string,
  extra: Record<string, unknown> = {},
): Buffer {
  const passThrough = objectMembers(typeof entry.detalhes === 'string' ? Buffer.from(entry.detalhes) : entry.detalhes);
  return Buffer.concat([
    Buffer.from(`{${columnMembers(entry)},`),
    ...(passThrough ? [passThrough, COMMA] : []),
    ...complementMembers(entry.complementos, doc, cvBaseUrl, extra),
    CLOSING_BRACE,
  ]);
}

const COMMA = Buffer.from(',');
const CLOSING_BRACE = Buffer.from('}');
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
export const rankingSummarySchema = z
  .object({
    id_pessoa: z.number().int(),
    nome: z.string(),
    anos_atuacao: z.number(),
    ativo: z.boolean(),
    veterano: z.boolean().meta({ description: '`anos_atuacao >= 10`' }),
    pontuacao_total: z.number(),
    bloco_a: z.number(),
    bloco_c: z.number(),
    bloco_d: z.number(),
    rank: z
      .number()
      .int()
      .min(1)
      .meta({ description: "The position; with `componente`, the place in that block's list (1-based, counting the offset)" }),
  })
  .meta({ id: 'RankingSummary' });
export type RankingSummary = z.infer<typeof rankingSummarySchema>;

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
