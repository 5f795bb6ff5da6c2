import { errors, type Client as ElasticsearchClient } from '@elastic/elasticsearch';
import { AREA_SPELLINGS_LIMIT, type AreaSpelling } from '../domain/consultant-detail';
import { documentRevision } from '../domain/document-revision';
import type { PersonDocument } from '../domain/person-document';
import type { SuggestionSource } from '../domain/suggestion/candidate';
import { suggestionSearchRequest } from '../domain/suggestion/search-request';
import type { SuggestionHit } from '../domain/suggestion/suggest';
import type { Logger } from '../lib/logger';

/**
 * Every read of the person index the HTTP API makes (docs/application-layer.md): one module, so
 * the round trips of a page are visible in one place. Each function is one request to Elasticsearch
 * (`fetchChangedDocuments`: at most two), as the routes made them before.
 */

export interface PersonIndex {
  es: ElasticsearchClient;
  /** The person index's name, with ELASTICSEARCH_INDEX_PREFIX. */
  index: string;
  logger: Logger;
}

/** The index could not be read (not "no such person"); `message` is the cause's. */
export class PersonIndexError extends Error {
  override name = 'PersonIndexError';
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/** What rules 3 and 4 read from a person's index document. */
export const ENRICHMENT_FIELDS: Array<keyof PersonDocument> = ['id_cv', 'idiomas', 'titulacoes'];

/**
 * Fetches the index documents of a page in one multi-get, only the fields asked for (a whole
 * document is several KB; a page needs three fields of it). When the index cannot be read the page
 * is still served, without the fields that come from it (logged): the ranking itself lives in MySQL.
 */
export async function fetchPersonDocuments(
  persons: PersonIndex,
  ids: number[],
  fields: Array<keyof PersonDocument>,
): Promise<Map<number, Partial<PersonDocument>>> {
  const { es, index, logger } = persons;
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
  persons: PersonIndex,
  entries: StoredRevision[],
  fields: Array<keyof PersonDocument>,
): Promise<Map<number, Partial<PersonDocument>>> {
  const { es, index, logger } = persons;
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
  return fetchPersonDocuments(persons, changed, fields);
}

/**
 * One `get` of a person's index document (`_source` narrowed by `source`). Null when the index has
 * no such document; any other answer (index missing or closed, unreachable) is a PersonIndexError.
 */
export async function readPersonDocument(
  persons: PersonIndex,
  idPessoa: number,
  source: { includes?: string[]; excludes?: string[] } = {},
): Promise<PersonDocument | null> {
  try {
    const response = await persons.es.get<PersonDocument>({
      index: persons.index,
      id: String(idPessoa),
      _source_includes: source.includes,
      _source_excludes: source.excludes,
    });
    return response._source ?? null;
  } catch (error) {
    const documentMissing =
      error instanceof errors.ResponseError && error.statusCode === 404 && (error.body as { found?: unknown } | undefined)?.found === false;
    if (documentMissing) return null;
    throw new PersonIndexError(error);
  }
}

/**
 * The fields `includes` of one document; undefined when the index has no such person or no index
 * exists at all (an absent person is an answer, not a failure: the PDF sheet). Other failures are a
 * PersonIndexError.
 */
export async function readPersonFields(
  persons: PersonIndex,
  idPessoa: number,
  includes: readonly string[],
): Promise<Partial<PersonDocument> | undefined> {
  try {
    const response = await persons.es.get<Partial<PersonDocument>>(
      { index: persons.index, id: String(idPessoa), _source_includes: [...includes] },
      { ignore: [404] },
    );
    return response.found ? response._source : undefined;
  } catch (error) {
    throw new PersonIndexError(error);
  }
}

const AREA_FIELD = 'consultoria.areas_avaliacao.keyword';

/** Every spelling of an assessment area with its persons and active persons, in one aggregation; PersonIndexError on failure. */
export async function assessmentAreaSpellings(persons: PersonIndex): Promise<AreaSpelling[]> {
  try {
    const response = await persons.es.search({
      index: persons.index,
      size: 0,
      track_total_hits: false,
      aggs: {
        areas: {
          terms: { field: AREA_FIELD, size: AREA_SPELLINGS_LIMIT },
          aggs: { ativos: { filter: { term: { ativo: true } } } },
        },
      },
    });
    const areas = response.aggregations?.areas as
      { sum_other_doc_count?: number; buckets: Array<{ key: string; doc_count: number; ativos: { doc_count: number } }> } | undefined;
    if (areas?.sum_other_doc_count) {
      persons.logger.warn({ left: areas.sum_other_doc_count, limit: AREA_SPELLINGS_LIMIT }, 'area list cut: more spellings than the limit');
    }
    return (areas?.buckets ?? []).map((bucket) => ({
      spelling: String(bucket.key),
      persons: bucket.doc_count,
      active: bucket.ativos.doc_count,
    }));
  } catch (error) {
    throw new PersonIndexError(error);
  }
}

/** The candidates of a theme suggestion: one search (domain/suggestion/search-request.ts); failures propagate as they are. */
export async function suggestionHits(persons: PersonIndex, query: Parameters<typeof suggestionSearchRequest>[0]): Promise<SuggestionHit[]> {
  const response = await persons.es.search<SuggestionSource>({ index: persons.index, ...suggestionSearchRequest(query) });
  return response.hits.hits.map((hit) => ({
    id_pessoa: Number(hit._source?.id_pessoa ?? hit._id),
    score: hit._score ?? 0,
    source: hit._source ?? {},
  }));
}
