import Router from '@koa/router';
import type { Services } from '../../lib/services';
import { agentsRoutes } from './agents-routes';
import { systemRouter } from './system';

/** The agent orchestration service, mounted at /api. */
export function orchestrationApi(services: Services): Router {
  const api = new Router({ prefix: '/api' });
  for (const router of [systemRouter(services), agentsRoutes(services)]) {
    api.use(router.routes(), router.allowedMethods({ throw: true }));
  }
  return api;
}
