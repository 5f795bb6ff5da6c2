import Router from '@koa/router';
import type { Services } from '../../lib/services';
import { systemRouter } from './system';

/** The agent orchestration service, mounted at /api. */
export function orchestrationApi(services: Services): Router {
  const api = new Router({ prefix: '/api' });
  const system = systemRouter(services);
  api.use(system.routes(), system.allowedMethods({ throw: true }));
  return api;
}
