import Router from '@koa/router';
import type { Services } from '../../lib/services';
import { healthRouter } from './health';

/** The consultant ranking service, mounted at /api/v1. */
export function rankingApi(_services: Services): Router {
  const api = new Router({ prefix: '/api/v1' });
  const health = healthRouter();
  api.use(health.routes(), health.allowedMethods({ throw: true }));
  return api;
}
