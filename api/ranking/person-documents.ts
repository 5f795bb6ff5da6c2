import type { Client as ElasticsearchClient } from '@elastic/elasticsearch';
import type { PersonDocument } from '../../domain/person-document';
import type { Logger } from '../../lib/logger';

/**
 * Fetches the index documents of a page in one multi-get. When the index cannot be read the page
 * is still served, without the fields that come from it (logged): the ranking itself lives in MySQL.
 */
export async function fetchPersonDocuments(
  es: ElasticsearchClient,
  index: string,
  ids: number[],
  logger: Logger,
): Promise<Map<number, PersonDocument>> {
  const documents = new Map<number, PersonDocument>();
  if (ids.length === 0) return documents;
  try {
    const response = await es.mget<PersonDocument>({ index, ids: ids.map(String) });
    for (const doc of response.docs) {
      if ('found' in doc && doc.found && doc._source) documents.set(Number(doc._id), doc._source);
    }
  } catch (error) {
    logger.warn({ err: error, index, count: ids.length }, 'person documents unavailable; entries served without them');
  }
  return documents;
}
