import Router from '@koa/router';
import { errors, type Client as ElasticsearchClient } from '@elastic/elasticsearch';
import { z } from 'zod';
import { entryWithDetailsById } from '../../db/ranking-queries';
import {
  AREA_SPELLINGS_LIMIT,
  assessmentAreaList,
  DETAIL_SOURCE_EXCLUDES,
  rankedDetailJson,
  unrankedDetailJson,
} from '../../domain/consultant-detail';
import { CURRICULUM_SOURCE_FIELDS, curriculumAnswer } from '../../domain/curriculum';
import type { PersonDocument } from '../../domain/person-document';
import { PERSON_INDEX_BASE } from '../../domain/person-index';
import { needsIndexDocument } from '../../domain/ranking-entry';
import { referenceDateOf } from '../../domain/scoring/dates';
import { indexName } from '../../lib/elasticsearch';
import type { Services } from '../../lib/services';
import { HttpError } from '../errors';
import { parseInput } from '../validation';
import { intParam } from './params';
import { ENRICHMENT_FIELDS, fetchChangedDocuments } from './person-documents';

export const CONSULTANT_NOT_FOUND_DETAIL = 'Consultor não encontrado';
/** The detail of an index failure starts with one of these texts, then the cause. */
export const INDEX_ERROR_PREFIX = 'Erro ao ler o documento da pessoa no índice: ';
export const AREA_LIST_ERROR_PREFIX = 'Erro ao listar as áreas de avaliação: ';

// As /ranking/posicao/{id_pessoa}: a non-negative 32-bit integer, else 422.
const idPath = z.object({ id_pessoa: intParam(0, 2_147_483_647) });


const AREA_FIELD = 'consultoria.areas_avaliacao.keyword';

function failure(prefix: string, cause: unknown): HttpError {
  const error = new HttpError(500, `${prefix}${cause instanceof Error ? cause.message : String(cause)}`);
  error.cause = cause;
  return error;
}

/**
 * One `get` of a person's index document (`_source` narrowed by `source`). Null when the index has
 * no such document; any other answer (index missing or closed, unreachable) is a failure, raised as
 * a 500 carrying its cause.
 */
async function readPersonDocument(
  es: ElasticsearchClient,
  index: string,
  idPessoa: number,
  source: { includes?: string[]; excludes?: string[] } = {},
): Promise<PersonDocument | null> {
  try {
    const response = await es.get<PersonDocument>({
      index,
      id: String(idPessoa),
      _source_includes: source.includes,
      _source_excludes: source.excludes,
    });
    return response._source ?? null;
  } catch (error) {
    const documentMissing = error instanceof errors.ResponseError && error.statusCode === 404 && error.body?.found === false;
    if (documentMissing) return null;
    throw failure(INDEX_ERROR_PREFIX, error);
  }
}

/** GET /consultor/{id_pessoa}, /raw, /cv and GET /consultores/areas-avaliacao (docs/consultant-api.md). */
export function consultantRoutes(services: Services): Router {
  const { pool } = services.database;
  const es = services.elasticsearch;
  const personIndex = indexName(services.config.elasticsearch, PERSON_INDEX_BASE);
  const cvBaseUrl = services.config.ranking.cvBaseUrl;
  const router = new Router();

  router.get('/consultor/:id_pessoa', async (ctx) => {
    const { id_pessoa: idPessoa } = parseInput(idPath, ctx.params, 'path');
    const stored = await entryWithDetailsById(pool, idPessoa);
    if (stored) {
      // As a page: the index is read only for what the job did not store, and its failure is tolerated.
      const incomplete = needsIndexDocument(stored.complementos) ? [stored] : [];
      const documents = await fetchChangedDocuments(es, personIndex, incomplete, ENRICHMENT_FIELDS, services.logger);
      ctx.type = 'application/json';
      ctx.body = rankedDetailJson(stored, documents.get(idPessoa), cvBaseUrl);
      return;
    }
    const doc = await readPersonDocument(es, personIndex, idPessoa, { excludes: DETAIL_SOURCE_EXCLUDES });
    if (!doc) throw new HttpError(404, CONSULTANT_NOT_FOUND_DETAIL);
    ctx.type = 'application/json';
    ctx.body = unrankedDetailJson(doc, referenceDateOf(new Date()), cvBaseUrl);
  });

  router.get('/consultor/:id_pessoa/raw', async (ctx) => {
    const { id_pessoa: idPessoa } = parseInput(idPath, ctx.params, 'path');
    const doc = await readPersonDocument(es, personIndex, idPessoa);
    if (!doc) throw new HttpError(404, CONSULTANT_NOT_FOUND_DETAIL);
    ctx.body = doc;
  });

  router.get('/consultor/:id_pessoa/cv', async (ctx) => {
    const { id_pessoa: idPessoa } = parseInput(idPath, ctx.params, 'path');
    const doc = await readPersonDocument(es, personIndex, idPessoa, { includes: CURRICULUM_SOURCE_FIELDS });
    ctx.body = curriculumAnswer(doc, cvBaseUrl);
  });

  router.get('/consultores/areas-avaliacao', async (ctx) => {
    try {
      const response = await es.search({
        index: personIndex,
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
        | { sum_other_doc_count?: number; buckets: Array<{ key: string; doc_count: number; ativos: { doc_count: number } }> }
        | undefined;
      if (areas?.sum_other_doc_count) {
        services.logger.warn({ left: areas.sum_other_doc_count, limit: AREA_SPELLINGS_LIMIT }, 'area list cut: more spellings than the limit');
      }
      const spellings = (areas?.buckets ?? []).map((bucket) => ({
        spelling: String(bucket.key),
        persons: bucket.doc_count,
        active: bucket.ativos.doc_count,
      }));
      ctx.body = assessmentAreaList(spellings);
    } catch (error) {
      throw failure(AREA_LIST_ERROR_PREFIX, error);
    }
  });

  return router;
}
