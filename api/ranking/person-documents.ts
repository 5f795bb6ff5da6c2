import type { Client as ElasticsearchClient } from '@elastic/elasticsearch';
import { documentRevision } from '../../domain/document-revision';
import type { PersonDocument } from '../../domain/person-document';
import type { Logger } from '../../lib/logger';

/** What rules 3 and 4 read from a person's index document. */
export const ENRICHMENT_FIELDS: Array<keyof PersonDocument> = ['id_cv', 'idiomas', 'titulacoes'];

/**
 * Fetches the index documents of a page in one multi-get, only the fields asked for (a whole
 * document is several KB; a page needs three fields of it). When the index cannot be read the page
 * is still served, without the fields that come from it (logged): the ranking itself lives in MySQL.
 */
export async function fetchPersonDocuments(
  es: ElasticsearchClient,
  index: string,
  ids: number[],
  fields: Array<keyof PersonDocument>,
  logger: Logger,
): Promise<Map<number, Partial<PersonDocument>>> {
  const documents = new Map<number, Partial<PersonDocument>>();
  if (ids.length === 0) return documents;
  try {
    const response = await es.mget<Partial<PersonDocument>>({ index, ids: ids.map(String), _source_includes: fields });
    for (const doc of response.docs) {
      if ('found' in doc && doc.found && doc._source) documents.set(Number(doc._id), doc._source);
    }
  } catch (error) {
    logger.warn({ err: error, index, count: ids.length }, 'person documents unavailable; entries served without them');
  }
  return documents;
}

/** An entry whose stored complements rules 3 and 4 may complete, and the document revision they were built from. */
export interface StoredRevision {
  id_pessoa: number;
  revisao_documento: string | null;
}

/**
 * The index documents rules 3 and 4 must read for these entries: only those changed since the job
 * built the entry. A document still at that revision gives exactly what the job stored (the rules
 * are pure), so reading it again changes nothing. A multi-get without `_source` — about a quarter
 * of the cost of one that filters sources — finds the changed ones; a second reads their fields.
 * An entry of unknown revision (written before revisions were stored) is always read.
 */
export async function fetchChangedDocuments(
  es: ElasticsearchClient,
  index: string,
  entries: StoredRevision[],
  fields: Array<keyof PersonDocument>,
  logger: Logger,
): Promise<Map<number, Partial<PersonDocument>>> {
  const changed = entries.filter((entry) => entry.revisao_documento === null).map((entry) => entry.id_pessoa);
  const known = new Map(entries.flatMap((entry) => (entry.revisao_documento === null ? [] : [[entry.id_pessoa, entry.revisao_documento]])));
  if (known.size > 0) {
    try {
      const response = await es.mget({ index, ids: [...known.keys()].map(String), _source: false });
      for (const doc of response.docs) {
        // A document no longer in the index has nothing to fill from: the entry keeps what was stored.
        if (!('found' in doc) || !doc.found) continue;
        if (documentRevision(doc) !== known.get(Number(doc._id))) changed.push(Number(doc._id));
      }
    } catch (error) {
      logger.warn({ err: error, index, count: known.size }, 'person documents unavailable; entries served without them');
      return new Map();
    }
  }
  return fetchPersonDocuments(es, index, changed, fields, logger);
}
