import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { z } from 'zod';
import { normaliseSealCode } from '../../domain/seals';
import { nameSearchKey } from '../../domain/text';
import type { ApiResources } from '../resources';
import {
  rankingDetailed,
  rankingList,
  rankingPage,
  rankingPosition,
  rankingStatistics,
  sealList,
  searchRanking,
  type JsonBytes,
} from '../../services/ranking';
import { useCaseErrors } from '../use-case-errors';
import { parseInput } from '../validation';
import { boolParam, componentParam, intParam } from './params';
import { rankingDepsOf } from '../use-case-deps';

const blockFilter = componentParam
  .optional()
  .meta({ description: '`a`, `c` or `d` (any case): only persons scoring in that block, best in it first' });

export const pageQuery = z.object({
  page: intParam(1).default(1),
  size: intParam(1, 1000).default(50),
  ativo: boolParam.optional().meta({ description: '`true`/`false` (also `1`/`0`, any case): only active, or only inactive, consultants' }),
  selos: z.string().optional().meta({ description: 'Comma-separated seal codes (any case); several mean all of them' }),
});
export const listQuery = z.object({
  limite: intParam(1, 1000).default(100),
  offset: intParam(0).default(0),
  componente: blockFilter,
});
export const detailedQuery = z.object({ limite: intParam(1, 1000).default(100), componente: blockFilter });
/**
 * Bounds of a name search (docs/ranking-api.md): the text (a name, not a document) and the words
 * searched with, each of which is one more condition of the query.
 */
export const SEARCH_NAME_MAX = 200;
export const SEARCH_WORDS_MAX = 10;

export const searchQuery = z.object({
  nome: z
    .string()
    .trim()
    .min(3, 'deve ter pelo menos 3 caracteres')
    .max(SEARCH_NAME_MAX)
    .meta({ description: 'Words of the name (accents and case ignored); each word, of any length, must start a word of the name' }),
  limit: intParam(1, 20).default(5),
});
// An id is a non-negative 32-bit integer (the column type); anything else cannot name a person.
export const positionPath = z.object({ id_pessoa: intParam(0, 2_147_483_647) });

/** `selos` is comma-separated: items trimmed, empty ones dropped, compared in upper case. */
export function parseSealFilter(raw: string | undefined): string[] {
  if (!raw) return [];
  return [...new Set(raw.split(',').map(normaliseSealCode).filter(Boolean))];
}

/**
 * Words the name search uses: those of the name's search key, short ones included (`Li Wu`), each
 * once, the first SEARCH_WORDS_MAX of them. Every word must match, so a word left out can only widen
 * the answer, never hide the person searched for.
 */
export function searchWords(name: string): string[] {
  const words = nameSearchKey(name)
    .split(' ')
    .filter((word) => word.length > 0);
  return [...new Set(words)].slice(0, SEARCH_WORDS_MAX);
}

function sendJsonBytes(ctx: ParameterizedContext, json: JsonBytes): void {
  ctx.type = 'application/json';
  if (json.gzip) ctx.set('Content-Encoding', 'gzip');
  ctx.body = json.body;
}

/** The ranking reads (docs/ranking-api.md); the use cases are in services/ranking/reads.ts. */
export function rankingRoutes(resources: ApiResources): Router {
  const deps = rankingDepsOf(resources);
  const router = new Router();
  router.use(useCaseErrors());

  router.get('/ranking/paginado', async (ctx) => {
    const query = parseInput(pageQuery, ctx.query, 'query');
    // Stored pages go out compressed to clients that accept it; caches must keep the variants apart.
    ctx.vary('Accept-Encoding');
    const acceptsGzip = ctx.acceptsEncodings('gzip', 'identity') === 'gzip';
    sendJsonBytes(
      ctx,
      await rankingPage(deps, { page: query.page, size: query.size, ativo: query.ativo, selos: parseSealFilter(query.selos) }, acceptsGzip),
    );
  });

  router.get('/ranking', async (ctx) => {
    ctx.body = await rankingList(deps, parseInput(listQuery, ctx.query, 'query'));
  });

  router.get('/ranking/detalhado', async (ctx) => {
    sendJsonBytes(ctx, { body: await rankingDetailed(deps, parseInput(detailedQuery, ctx.query, 'query')), gzip: false });
  });

  router.get('/ranking/selos', async (ctx) => {
    ctx.body = await sealList(deps);
  });

  router.get('/ranking/busca', async (ctx) => {
    const query = parseInput(searchQuery, ctx.query, 'query');
    ctx.body = await searchRanking(deps, searchWords(query.nome), query.limit);
  });

  router.get('/ranking/estatisticas', async (ctx) => {
    ctx.body = await rankingStatistics(deps);
  });

  router.get('/ranking/posicao/:id_pessoa', async (ctx) => {
    const { id_pessoa: idPessoa } = parseInput(positionPath, ctx.params, 'path');
    ctx.body = await rankingPosition(deps, idPessoa);
  });

  return router;
}
