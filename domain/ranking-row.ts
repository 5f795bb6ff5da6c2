import { z } from 'zod';
import { degreeItems, toRankingLanguage, type DegreeItem, type RankingLanguage } from './degrees';
import {
  agencyCoordinationSchema,
  awardSchema,
  committeeEvaluationSchema,
  consultancyPeriodSchema,
  examinationBoardSchema,
  fundingGrantSchema,
  inscriptionSchema,
  participationSchema,
  supervisionSchema,
  teachingSchema,
  type PersonDocument,
} from './person-document';
import { scoreBreakdownSchema, type ScoredPerson } from './scoring/score-person';
import { nameSearchKey } from './text';

/** A ranking row as the job writes it (column names as in the table). */
export interface RankingRow {
  id_pessoa: number;
  nome: string;
  nome_busca: string;
  pontuacao_total: number;
  bloco_a: number;
  bloco_b: number;
  bloco_c: number;
  bloco_d: number;
  bloco_e: number;
  ativo: boolean;
  anos_atuacao: number;
  coordenador_ppg: boolean;
  tipos_atuacao: string[];
  selos: string[];
  /** The pass-through details, a JSON object text (domain/ranking-row.ts#passThroughDetailsJson). */
  detalhes: string;
  complementos: StoredComplements;
  /** The index document's revision the row was built from (domain/document-revision.ts); null when unknown. */
  revisao_documento: string | null;
  run_id: string;
  /** What the row was built from (domain/ranking-fingerprint.ts#entryFingerprint); null: rewritten by every run. */
  impressao: Buffer | null;
  /** The document version it was built from (domain/ranking-fingerprint.ts#documentKey). */
  chave_documento: Buffer | null;
  /** The reference date it was written at. */
  verificada_em: string | null;
}

/** What the job records of how a row was built, to know it unchanged later (docs/ranking-job.md, "Unchanged documents"). */
export interface RowProvenance {
  fingerprint: Buffer | null;
  documentKey: Buffer | null;
  referenceDate: string;
}

/** The pass-through detail fields the job copies from the index document, in response order. */
export const STORED_DETAILS = [
  'consultoria',
  'coordenacoes_agency',
  'inscricoes',
  'avaliacoes_comissao',
  'premiacoes',
  'bolsas_funder',
  'participacoes',
  'orientacoes',
  'membros_banca',
  'docencias',
] as const;

/**
 * The pass-through details as a ranking entry carries them: each section of the index document as
 * stored (null when the document has none), then the score breakdown (null only for an entry stored
 * without details).
 */
export const passThroughDetailsSchema = z.object({
  consultoria: z.array(consultancyPeriodSchema).nullable(),
  coordenacoes_agency: z.array(agencyCoordinationSchema).nullable(),
  inscricoes: z.array(inscriptionSchema).nullable(),
  avaliacoes_comissao: z.array(committeeEvaluationSchema).nullable(),
  premiacoes: z.array(awardSchema).nullable(),
  bolsas_funder: z.array(fundingGrantSchema).nullable(),
  participacoes: z.array(participationSchema).nullable(),
  orientacoes: z.array(supervisionSchema).nullable(),
  membros_banca: z.array(examinationBoardSchema).nullable(),
  docencias: z.array(teachingSchema).nullable(),
  pontuacao: scoreBreakdownSchema.nullable(),
});
type SameKeys<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Compile-time: the schema lists exactly the stored details and `pontuacao`. */
const detailsSchemaIsComplete: SameKeys<keyof typeof passThroughDetailsSchema.shape, (typeof STORED_DETAILS)[number] | 'pontuacao'> = true;
void detailsSchemaIsComplete;

/**
 * The stored details that rules 3 and 4 may complete from the index at read time, kept apart from
 * the pass-through JSON so a page never parses the bulky part. The stored cv is
 * `{ id_cv, url, titulacoes: titulacao ?? [] }` when `id_cv` is present: the job builds both from
 * the same document, so the degrees are stored once.
 */
export interface StoredComplements {
  idiomas?: RankingLanguage[];
  titulacao?: DegreeItem[];
  id_cv?: string;
}

/**
 * The pass-through details as one JSON object text, every field present (null when absent) and in
 * response order, then the score breakdown: a page splices it into its response as stored.
 */
export function passThroughDetailsJson(doc: Partial<PersonDocument>, pontuacao: unknown): string {
  const details: Record<string, unknown> = {};
  for (const key of STORED_DETAILS) details[key] = doc[key] ?? null;
  details.pontuacao = pontuacao ?? null;
  return JSON.stringify(details);
}

/**
 * The reference date a stored score breakdown carries in place of its own (docs/ranking-job.md,
 * "Unchanged documents"): a run on another day leaves an entry whose score that day did not change
 * as it is, and the reads put the ranking's reference date in its place (withReferenceDate).
 */
export const STORED_REFERENCE_DATE = '0000-00-00';
const STORED_REFERENCE_MEMBER = Buffer.from(`"data_referencia":"${STORED_REFERENCE_DATE}"`);
const REFERENCE_DATE_OFFSET = STORED_REFERENCE_MEMBER.length - STORED_REFERENCE_DATE.length - 1;

/** A scored person as the job stores it: the breakdown's reference date left to the reads. */
export function storedScore(scored: ScoredPerson): ScoredPerson {
  return { ...scored, pontuacao: { ...scored.pontuacao, data_referencia: STORED_REFERENCE_DATE } };
}

/**
 * Stored details with the ranking's reference date (`YYYY-MM-DD`) in the breakdown, written into
 * `detalhes` itself (each row read has its own buffer). The breakdown is the last member, so its
 * date is the last match; details stored before dates were left out carry their own date and are
 * returned as they are.
 */
export function withReferenceDate(detalhes: Buffer, referenceDate: string): Buffer {
  const at = detalhes.lastIndexOf(STORED_REFERENCE_MEMBER);
  if (at >= 0 && referenceDate.length === STORED_REFERENCE_DATE.length) detalhes.write(referenceDate, at + REFERENCE_DATE_OFFSET, 'latin1');
  return detalhes;
}

/**
 * Languages, degrees and the curriculum id as the job stores them: what the document has, an empty
 * list included; a field the document lacks stays absent, for rules 3 and 4 to fill at read time.
 */
export function storedComplements(doc: Pick<PersonDocument, 'idiomas' | 'titulacoes' | 'id_cv'>): StoredComplements {
  const complements: StoredComplements = {};
  if (doc.idiomas) complements.idiomas = doc.idiomas.map(toRankingLanguage);
  if (doc.titulacoes) complements.titulacao = degreeItems(doc.titulacoes);
  if (doc.id_cv) complements.id_cv = doc.id_cv;
  return complements;
}

/**
 * The row the job stores for a scored document: `scored` as storedScore gives it, so the details
 * carry STORED_REFERENCE_DATE and a read puts the ranking's date in its place.
 */
export function toRankingRow(
  scored: ScoredPerson,
  doc: PersonDocument,
  runId: string,
  documentRevision: string | null,
  provenance: RowProvenance | null = null,
): RankingRow {
  return {
    id_pessoa: scored.id_pessoa,
    nome: scored.nome,
    // Damaged names (`Jo227o`) are found by their repaired, accent-free form.
    nome_busca: nameSearchKey(scored.nome),
    pontuacao_total: scored.pontuacao_total,
    bloco_a: scored.bloco_a,
    bloco_b: scored.bloco_b,
    bloco_c: scored.bloco_c,
    bloco_d: scored.bloco_d,
    bloco_e: scored.bloco_e,
    ativo: scored.ativo,
    anos_atuacao: scored.anos_atuacao,
    coordenador_ppg: scored.coordenador_ppg,
    tipos_atuacao: scored.tipos_atuacao,
    selos: scored.selos,
    detalhes: passThroughDetailsJson(doc, scored.pontuacao),
    complementos: storedComplements(doc),
    revisao_documento: documentRevision,
    run_id: runId,
    impressao: provenance?.fingerprint ?? null,
    chave_documento: provenance?.documentKey ?? null,
    verificada_em: provenance?.referenceDate ?? null,
  };
}
