import Router from '@koa/router';
import { z } from 'zod';
import { rankingPlaces } from '../../db/ranking-positions';
import { PERSON_INDEX_BASE } from '../../domain/person-index';
import type { SuggestionSource } from '../../domain/suggestion/candidate';
import { suggestionSearchRequest } from '../../domain/suggestion/search-request';
import { rankSuggestions, type SuggestionHit } from '../../domain/suggestion/suggest';
import { indexName } from '../../lib/elasticsearch';
import type { Services } from '../../lib/services';
import { HttpError } from '../errors';
import { parseInput } from '../validation';
import { boolParam, intParam } from './params';

/** Rule 7: the detail of every failure after validation starts with this text, then the cause. */
const SUGGESTION_ERROR_PREFIX = 'Erro ao sugerir consultores: ';

const suggestionQuery = z.object({
  tema: z.string().trim().min(2, 'must have at least 2 characters'),
  // An empty area is no filter.
  area_avaliacao: z
    .string()
    .trim()
    .optional()
    .transform((area) => area || undefined),
  apenas_ativos: boolParam.default(true),
  quantidade: intParam(1, 100).default(20),
});

/**
 * The cause as one line: the error's message (an Elasticsearch message spans lines: `index_closed_exception
 * Root causes: ...`), else its code (a refused socket may have no message).
 */
function causeText(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const code = (cause as { code?: unknown }).code;
  return cause.message.replace(/\s+/g, ' ').trim() || (typeof code === 'string' ? code : cause.name);
}

function suggestionError(cause: unknown): HttpError {
  const error = new HttpError(500, `${SUGGESTION_ERROR_PREFIX}${causeText(cause)}`);
  error.cause = cause;
  return error;
}

/** GET /consultores/sugerir (docs/suggestion.md): one search, one positions query, pure rules 2-6. */
export function suggestionRoutes(services: Services): Router {
  const { pool } = services.database;
  const personIndex = indexName(services.config.elasticsearch, PERSON_INDEX_BASE);
  const router = new Router();

  router.get('/consultores/sugerir', async (ctx) => {
    const query = parseInput(suggestionQuery, ctx.query, 'query');
    try {
      const response = await services.elasticsearch.search<SuggestionSource>({ index: personIndex, ...suggestionSearchRequest(query) });
      const hits: SuggestionHit[] = response.hits.hits.map((hit) => ({
        id_pessoa: Number(hit._source?.id_pessoa ?? hit._id),
        score: hit._score ?? 0,
        source: hit._source ?? {},
      }));
      const ranking = await rankingPlaces(pool, hits.map((hit) => hit.id_pessoa));
      if (!ranking.ready) services.logger.debug('suggestion without ranking positions: the ranking is not processed');
      const consultores = rankSuggestions(query.tema, hits, ranking.places, query.quantidade);
      ctx.body = { tema_buscado: query.tema, total_encontrados: consultores.length, consultores };
    } catch (error) {
      throw suggestionError(error);
    }
  });

  return router;
}
