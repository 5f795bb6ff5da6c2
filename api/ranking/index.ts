import Router from '@koa/router';
import type { ApiResources } from '../resources';
import { ALLOWED_METHODS } from '../errors';
import { consultantRoutes } from './consultant-routes';
import { healthRouter } from './health';
import { jobRoutes } from './job-routes';
import { pdfRoutes } from './pdf-routes';
import { rankingBudgets } from './rate-limits';
import { rankingRoutes } from './ranking-routes';
import { storeUnavailableAs503 } from './store-unavailable';
import { suggestionRoutes } from './suggestion-routes';
import { openApiDocuments } from '../openapi/catalog';
import { documentRoutes } from '../openapi/routes';

/** GET /api/v1/openapi.json and /api/v1/docs (docs/openapi.md). */
function referenceRoutes(): Router {
  const router = new Router();
  documentRoutes(router, 'ranking', () => openApiDocuments().ranking);
  return router;
}

/** The consultant ranking service, mounted at /api/v1. */
export function rankingApi(resources: ApiResources): Router {
  const api = new Router({ prefix: '/api/v1' });
  api.use(storeUnavailableAs503());
  // Routes that start work spend a budget per client; the reads do not (docs/ranking-api.md).
  const budgets = rankingBudgets(resources);
  api.use('/ranking/processar', budgets.job);
  api.use(['/consultor/:id_pessoa/pdf', '/equipe/pdf'], budgets.pdf);
  for (const router of [
    healthRouter(),
    rankingRoutes(resources),
    jobRoutes(resources),
    consultantRoutes(resources),
    suggestionRoutes(resources),
    pdfRoutes(resources),
    referenceRoutes(),
  ]) {
    api.use(router.routes(), router.allowedMethods(ALLOWED_METHODS));
  }
  return api;
}
