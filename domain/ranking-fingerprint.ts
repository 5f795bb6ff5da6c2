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
 * One version of one document, as 16 bytes: its revision (primary term and sequence number) names a
 * version only within one index, and a recreated index counts again from zero, so the index's name
 * and uuid are part of it, and ROW_DERIVATION_VERSION, so a change of what the job derives from a
 * document makes every key new. Null when the revision is unknown.
 */
export function documentKey(origin: DocumentOrigin): Buffer | null {
  if (origin.revision === null || origin.indexUuid === '') return null;
  return createHash('md5').update(`${ROW_DERIVATION_VERSION}\n${origin.index}\n${origin.indexUuid}\n${origin.revision}`).digest();
}

/**
 * What a ranking entry is built from, as 16 bytes (docs/ranking-job.md, "Unchanged documents"): the
 * document's version (documentKey) and everything the run computed from it on its reference date
 * but the date itself (`stored` is domain/ranking-row.ts#storedScore's). The stored details and
 * complements are taken from the document, the columns and the score breakdown from `stored`: two
 * runs that compute the same fingerprint write the same row, and a day that changes no score leaves
 * it as it is. Null when the document's version is unknown: always rewritten.
 */
export function entryFingerprint(stored: ScoredPerson, key: Buffer | null): Buffer | null {
  if (key === null) return null;
  return createHash('md5').update(key).update(JSON.stringify(stored)).digest();
}
