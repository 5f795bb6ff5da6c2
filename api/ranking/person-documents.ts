import type { Client as ElasticsearchClient } from '@elastic/elasticsearch';
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
