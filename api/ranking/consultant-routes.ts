import Router from '@koa/router';
import { z } from 'zod';
import type { ApiResources } from '../resources';
import { PersonIndexError } from '../../services/persons';
import { assessmentAreas, consultantCurriculum, consultantDetail, consultantDocument } from '../../services/ranking';
import { HttpError } from '../errors';
import { useCaseErrors } from '../use-case-errors';
import { parseInput } from '../validation';
import { intParam } from './params';
import { rankingDepsOf } from '../use-case-deps';

export { CONSULTANT_NOT_FOUND_DETAIL } from '../../services/ranking';
/** The detail of an index failure starts with one of these texts, then the cause. */
export const INDEX_ERROR_PREFIX = 'Erro ao ler o documento da pessoa no índice: ';
export const AREA_LIST_ERROR_PREFIX = 'Erro ao listar as áreas de avaliação: ';

// As /ranking/posicao/{id_pessoa}: a non-negative 32-bit integer, else 422.
export const idPath = z.object({ id_pessoa: intParam(0, 2_147_483_647) });

/** An index failure as a 500 whose detail is `prefix` and the cause (the cause itself goes to the log). */
function indexFailures(prefix: string) {
  return (error: unknown): never => {
    if (!(error instanceof PersonIndexError)) throw error;
    const failure = new HttpError(500, `${prefix}${error.message}`);
    failure.cause = error.cause;
    throw failure;
  };
}

/** GET /consultor/{id_pessoa}, /raw, /cv and GET /consultores/areas-avaliacao (docs/consultant-api.md); use cases in services/ranking/. */
export function consultantRoutes(resources: ApiResources): Router {
  const deps = rankingDepsOf(resources);
  const router = new Router();
  router.use(useCaseErrors());

  router.get('/consultor/:id_pessoa', async (ctx) => {
    const { id_pessoa: idPessoa } = parseInput(idPath, ctx.params, 'path');
    const detail = await consultantDetail(deps, idPessoa).catch(indexFailures(INDEX_ERROR_PREFIX));
    ctx.type = 'application/json';
    ctx.body = detail;
  });

  router.get('/consultor/:id_pessoa/raw', async (ctx) => {
    const { id_pessoa: idPessoa } = parseInput(idPath, ctx.params, 'path');
    ctx.body = await consultantDocument(deps, idPessoa).catch(indexFailures(INDEX_ERROR_PREFIX));
  });

  router.get('/consultor/:id_pessoa/cv', async (ctx) => {
    const { id_pessoa: idPessoa } = parseInput(idPath, ctx.params, 'path');
    // Always 200 (the specification): an index failure is an answer with its reason (the use case).
    ctx.body = await consultantCurriculum(deps, idPessoa);
  });

  router.get('/consultores/areas-avaliacao', async (ctx) => {
    ctx.body = await assessmentAreas(deps).catch(indexFailures(AREA_LIST_ERROR_PREFIX));
  });

  return router;
}
