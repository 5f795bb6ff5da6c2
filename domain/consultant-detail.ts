import { z } from 'zod';
import type { StoredEntryWithDetails } from './ranking-entry';
import { areaKey } from './curriculum';
import type { PersonDocument } from './person-document';
import { detailedRankingEntrySchema, rankingEntryJson } from './ranking-entry';
import { toRankingRow } from './ranking-row';
import { scorePerson } from './scoring/score-person';
import { repairEncoding } from './text';

/**
 * What the consultant endpoints shape besides the curriculum (domain/curriculum.ts): the detailed
 * consultant record of GET /consultor/{id_pessoa} and the assessment-area list of
 * GET /consultores/areas-avaliacao. Pure: no I/O, no clock. docs/consultant-api.md.
 */

/**
 * What the record of a person outside the ranking reads from the index: everything the scorer, the
 * pass-through details and rules 3-4 read — the whole document less the curriculum-only sections.
 */
export const DETAIL_SOURCE_EXCLUDES = ['enderecos', 'empregos', 'projetos'];

/**
 * The detailed consultant record of GET /consultor/{id_pessoa} (rankedDetailJson, unrankedDetailJson):
 * a /ranking/detalhado item, whose `posicao` and `rank` are null for a person scored on the fly.
 */
export const consultantDetailSchema = z
  .object({
    ...detailedRankingEntrySchema.shape,
    posicao: z
      .number()
      .int()
      .min(1)
      .nullable()
      .meta({ description: 'Position in the last completed ranking; null for a person not in it (scored on the fly)' }),
    rank: z.number().int().min(1).nullable().meta({ description: 'The position; null for a person not in the ranking' }),
  })
  .meta({ id: 'ConsultantDetail' });

/**
 * The detailed record of a ranked person: exactly a /ranking/detalhado item (the ranking entry of
 * rules 3-5, then `rank`), `rank` being the stored position.
 */
export function rankedDetailJson(
  stored: StoredEntryWithDetails,
  doc: Pick<PersonDocument, 'id_cv' | 'idiomas' | 'titulacoes'> | undefined,
  cvBaseUrl: string,
): Buffer {
  return rankingEntryJson(stored, doc, cvBaseUrl, { rank: stored.posicao });
}

/**
 * The detailed record of a person who is in the index but not in the last completed ranking:
 * scored on the fly at `referenceDate` and shaped by the same code as a stored entry (the job's row
 * built from the document, then the ranking entry of rules 3-5), with `posicao` and `rank` null.
 */
export function unrankedDetailJson(doc: PersonDocument, referenceDate: string, cvBaseUrl: string): Buffer {
  const {
    id_pessoa,
    nome,
    nome_busca: _searchKey,
    run_id: _runId,
    impressao: _fingerprint,
    chave_documento: _key,
    verificada_em: _verified,
    ...rest
  } = toRankingRow(scorePerson(doc, referenceDate), doc, '', null);
  return rankingEntryJson({ id_pessoa, nome, posicao: null, ...rest }, doc, cvBaseUrl, { rank: null });
}

/** Distinct spellings of assessment areas the terms aggregation may return (the rest is logged). */
export const AREA_SPELLINGS_LIMIT = 1000;

/** One bucket of the terms aggregation: a stored spelling, its persons, the active ones among them. */
export interface AreaSpelling {
  spelling: string;
  persons: number;
  active: number;
}

/** An element of GET /consultores/areas-avaliacao. */
export const assessmentAreaRecordSchema = z
  .object({
    nome: z.string().meta({ description: 'The assessment area (its most frequent spelling, repaired)' }),
    total_consultores: z
      .number()
      .int()
      .min(0)
      .meta({ description: 'Persons of the index with the area in any consultancy period, active or not' }),
    total_ativos: z.number().int().min(0).meta({ description: 'Those of them whose `ativo` is true' }),
  })
  .meta({ id: 'AssessmentArea' });
export type AssessmentAreaRecord = z.infer<typeof assessmentAreaRecordSchema>;

const collator = new Intl.Collator('pt-BR', { sensitivity: 'base' });

const digitCount = (text: string) => (text.match(/\d/g) ?? []).length;

/** The spelling that names an area: more persons, then fewer digits, then alphabetical (then binary). */
function preferredSpelling(a: AreaSpelling, b: AreaSpelling): AreaSpelling {
  if (a.persons !== b.persons) return a.persons > b.persons ? a : b;
  const digitsA = digitCount(a.spelling);
  const digitsB = digitCount(b.spelling);
  if (digitsA !== digitsB) return digitsA < digitsB ? a : b;
  const order = collator.compare(a.spelling, b.spelling) || (a.spelling < b.spelling ? -1 : a.spelling > b.spelling ? 1 : 0);
  return order <= 0 ? a : b;
}

/**
 * The assessment areas from the spellings the index holds (`consultoria.areas_avaliacao.keyword`).
 * Spellings with the same `areaKey` (case, accents, encoding damage) are one area: its counts are
 * the sums of theirs, its name the most frequent spelling, repaired (ties: fewer digits, then
 * alphabetical). A person whose periods spell one area two ways counts once per spelling (the index
 * counts persons per spelling; with ~5% of area texts damaged this is rare). Blank spellings are
 * dropped. Sorted by name (Portuguese collation, case- and accent-insensitive).
 */
export function assessmentAreaList(spellings: AreaSpelling[]): AssessmentAreaRecord[] {
  const groups = new Map<string, { best: AreaSpelling; persons: number; active: number }>();
  for (const spelling of spellings) {
    const key = areaKey(spelling.spelling);
    if (key === '') continue;
    const group = groups.get(key);
    if (!group) {
      groups.set(key, { best: spelling, persons: spelling.persons, active: spelling.active });
      continue;
    }
    group.persons += spelling.persons;
    group.active += spelling.active;
    group.best = preferredSpelling(group.best, spelling);
  }
  return [...groups.values()]
    .map((group) => ({ nome: repairEncoding(group.best.spelling.trim()), total_consultores: group.persons, total_ativos: group.active }))
    .sort((a, b) => collator.compare(a.nome, b.nome) || a.nome.localeCompare(b.nome));
}
