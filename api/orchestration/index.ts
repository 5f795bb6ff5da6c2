import type Router from '@koa/router';
import type { Services } from '../../lib/services';
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

/** The agent orchestration service, mounted at /api; its edge (token, CORS, rate limit) is in api/app.ts. */
export function orchestrationApi(services: Services): Router {
  const api = orchestrationRouter('/api');
  // The edge in api/app.ts already asked for the token; asking again for whatever a route here
  // matched means no reading of a path, however odd, reaches a handler without it (or the panel's session).
  api.use(requireToken(services.config.orchestration.authToken, panelSessions(services.config, services.redis)));
  for (const router of [
    healthRoutes(),
    systemRouter(services),
    agentsRoutes(services),
    executionControlRoutes(services),
    executionsRoutes(services),
    reportsRoutes(services),
    notificationsRoutes(services),
    settingsRoutes(services),
    pipelinesRoutes(services),
    tasksRoutes(services),
    schedulesRoutes(services),
    webhooksRoutes(services),
    statsRoutes(services),
    filesRoutes(services),
    reposRoutes(services),
    uploadsRoutes(services),
  ]) {
    api.use(router.routes(), router.allowedMethods({ throw: true }));
  }
  assertExactMatching(api);
  return api;
}
