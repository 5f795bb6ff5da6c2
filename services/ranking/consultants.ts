import { entryWithDetailsById } from '../../db/ranking-queries';
import {
  assessmentAreaList,
  DETAIL_SOURCE_EXCLUDES,
  rankedDetailJson,
  unrankedDetailJson,
  type AssessmentAreaRecord,
} from '../../domain/consultant-detail';
import { CURRICULUM_SOURCE_FIELDS, CURRICULUM_UNREADABLE, curriculumAnswer, type CurriculumAnswer } from '../../domain/curriculum';
import type { PersonDocument } from '../../domain/person-document';
import { needsIndexDocument } from '../../domain/ranking-entry';
import { referenceDateOf } from '../../domain/scoring/dates';
import { NotFoundError } from '../errors';
import { assessmentAreaSpellings, ENRICHMENT_FIELDS, fetchChangedDocuments, PersonIndexError, readPersonDocument } from '../persons';
import type { RankingDeps } from './deps';

/**
 * A consultant's detail, raw document, curriculum, and the assessment areas (docs/consultant-api.md).
 * Index failures are PersonIndexErrors (services/persons.ts); a person in neither the ranking nor the
 * index is a NotFoundError with `notFoundDetail`.
 */

export const CONSULTANT_NOT_FOUND_DETAIL = 'Consultor não encontrado';

/** The detail as JSON bytes: the stored entry (the index read only for what the job did not store), else scored from the document. */
export async function consultantDetail(deps: RankingDeps, idPessoa: number): Promise<Buffer> {
  const stored = await entryWithDetailsById(deps.pool, idPessoa);
  if (stored) {
    // As a page: the index is read only for what the job did not store, and its failure is tolerated.
    const incomplete = needsIndexDocument(stored.complementos) ? [stored] : [];
    const documents = await fetchChangedDocuments(deps.persons, incomplete, ENRICHMENT_FIELDS);
    return rankedDetailJson(stored, documents.get(idPessoa), deps.cvBaseUrl);
  }
  const doc = await readPersonDocument(deps.persons, idPessoa, { excludes: DETAIL_SOURCE_EXCLUDES });
  if (!doc) throw new NotFoundError(CONSULTANT_NOT_FOUND_DETAIL);
  return unrankedDetailJson(doc, referenceDateOf(new Date()), deps.cvBaseUrl);
}

export async function consultantDocument(deps: RankingDeps, idPessoa: number): Promise<PersonDocument> {
  const doc = await readPersonDocument(deps.persons, idPessoa);
  if (!doc) throw new NotFoundError(CONSULTANT_NOT_FOUND_DETAIL);
  return doc;
}

/**
 * Always an answer (the specification: the route always answers 200): an index that cannot be read
 * gives `encontrado: false` with the reason (CURRICULUM_UNREADABLE and the cause), logged.
 */
export async function consultantCurriculum(deps: RankingDeps, idPessoa: number): Promise<CurriculumAnswer> {
  let doc: Partial<PersonDocument> | null;
  try {
    doc = await readPersonDocument(deps.persons, idPessoa, { includes: CURRICULUM_SOURCE_FIELDS });
  } catch (error) {
    if (!(error instanceof PersonIndexError)) throw error;
    deps.logger.warn({ err: error.cause ?? error, idPessoa }, 'curriculum: the index could not be read');
    return { encontrado: false, motivo: `${CURRICULUM_UNREADABLE}${error.message}` };
  }
  return curriculumAnswer(doc, deps.cvBaseUrl);
}

export async function assessmentAreas(deps: RankingDeps): Promise<AssessmentAreaRecord[]> {
  return assessmentAreaList(await assessmentAreaSpellings(deps.persons));
}
