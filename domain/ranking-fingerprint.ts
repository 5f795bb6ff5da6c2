import { createHash } from 'node:crypto';
import type { ScoredPerson } from './scoring/score-person';

/**
 * Bump when what the job derives from a document changes (the stored details, complements or
 * columns, their order or form): every entry's fingerprint then differs and the next run rewrites
 * them all once.
 */
export const ROW_DERIVATION_VERSION = 1;

/** Where a document was read: the index (its name and the uuid Elasticsearch gave it at creation) and the document's revision. */
export interface DocumentOrigin {
  index: string;
  indexUuid: string;
  /** domain/document-revision.ts; null when the index did not give it. */
  revision: string | null;
}

/**
 * What a ranking entry is built from, as 16 bytes (docs/ranking-job.md, "Unchanged documents"): the
 * document, known by its revision in its index, and everything the run computed from it on its
 * reference date. The stored details and complements are taken from the document; the columns and
 * the score breakdown from `scored`: two runs that compute the same fingerprint write the same row.
 *
 * The revision (primary term and sequence number) names one version of a document only within one
 * index: a recreated index counts again from zero, so the index's uuid is part of it. The reference
 * date is not (`stored` is domain/ranking-row.ts#storedScore's, without it): a date that changes no
 * score leaves the row as it is, one that changes a score (an open period grows by a day) changes
 * `stored`. Null when the revision is unknown: always rewritten.
 */
export function entryFingerprint(stored: ScoredPerson, origin: DocumentOrigin): Buffer | null {
  if (origin.revision === null || origin.indexUuid === '') return null;
  return createHash('md5')
    .update(`${ROW_DERIVATION_VERSION}\n${origin.index}\n${origin.indexUuid}\n${origin.revision}\n`)
    .update(JSON.stringify(stored))
    .digest();
}
