import Router from '@koa/router';
import { z } from 'zod';
import type { ApiResources } from '../resources';
import { suggestConsultants } from '../../services/ranking';
import { HttpError } from '../errors';
import { parseInput } from '../validation';
import { boolParam, intParam } from './params';
import { rankingDepsOf } from '../use-case-deps';

/** Rule 7: the detail of every failure after validation starts with this text, then the cause. */
export const SUGGESTION_ERROR_PREFIX = 'Erro ao sugerir consultores: ';

export const suggestionQuery = z.object({
  tema: z.string().trim().min(2, 'deve ter pelo menos 2 caracteres'),
  // An empty area is no filter.
  area_avaliacao: z
    .string()
    .trim()
    .optional()
    .transform((area) => area || undefined),
  apenas_ativos: boolParam.default(true).meta({ description: '`true`/`false` (also `1`/`0`, any case): only active consultants' }),
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

/** GET /consultores/sugerir (docs/suggestion.md); the use case is in services/ranking/suggestions.ts. */
export function suggestionRoutes(resources: ApiResources): Router {
  const deps = rankingDepsOf(resources);
  const router = new Router();

  router.get('/consultores/sugerir', async (ctx) => {
    const query = parseInput(suggestionQuery, ctx.query, 'query');
    try {
      ctx.body = await suggestConsultants(deps, query);
    } catch (error) {
      throw suggestionError(error);
    }
  });

  return router;
}
