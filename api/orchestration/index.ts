import type Router from '@koa/router';
import type { ApiResources } from '../resources';
import { ALLOWED_METHODS } from '../errors';
import { agentsRoutes } from './agents-routes';
import { executionControlRoutes } from './execution-control-routes';
import { executionsRoutes } from './executions-routes';
import { filesRoutes } from './files-routes';
import { healthRoutes } from './health-routes';
import { notificationsRoutes } from './notifications-routes';
import { reportsRoutes } from './reports-routes';
import { pipelinesRoutes } from './pipelines-routes';
import { reposRoutes } from './repos-routes';
import { panelSessions, requireToken } from './security';
import { assertExactMatching, orchestrationRouter } from './router';
import { schedulesRoutes } from './schedules-routes';
import { settingsRoutes } from './settings-routes';
import { statsRoutes } from './stats-routes';
import { systemRouter } from './system';
import { webhooksRoutes } from './webhooks-routes';
import { tasksRoutes } from './tasks-routes';
import { uploadsRoutes } from './uploads-routes';
import { openApiDocuments } from '../openapi/catalog';
import { documentRoutes } from '../openapi/routes';

/** GET /api/openapi.json and /api/docs (docs/openapi.md). */
function referenceRoutes(): Router {
  const router = orchestrationRouter();
  documentRoutes(router, 'orchestration', () => openApiDocuments().orchestration);
  return router;
}

/** The agent orchestration service, mounted at /api; its edge (token, CORS, rate limit) is in api/app.ts. */
export function orchestrationApi(resources: ApiResources): Router {
  const api = orchestrationRouter('/api');
  // The edge in api/app.ts already asked for the token; asking again for whatever a route here
  // matched means no reading of a path, however odd, reaches a handler without it (or the panel's session).
  api.use(requireToken(resources.config.orchestration.authToken, panelSessions(resources.config, resources.redis)));
  for (const router of [
    healthRoutes(),
    systemRouter(resources),
    agentsRoutes(resources),
    executionControlRoutes(resources),
    executionsRoutes(resources),
    reportsRoutes(resources),
    notificationsRoutes(resources),
    settingsRoutes(resources),
    pipelinesRoutes(resources),
    tasksRoutes(resources),
    schedulesRoutes(resources),
    webhooksRoutes(resources),
    statsRoutes(resources),
    filesRoutes(resources),
    reposRoutes(resources),
    uploadsRoutes(resources),
    referenceRoutes(),
  ]) {
    api.use(router.routes(), router.allowedMethods(ALLOWED_METHODS));
  }
  assertExactMatching(api);
  return api;
}
