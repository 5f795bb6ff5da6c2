import Router from '@koa/router';
import type { Services } from '../../lib/services';

/** Agents: CRUD, versions, export/import/duplicate and secrets (docs/agents.md). */
export function agentsRoutes(_services: Services): Router {
  return new Router();
}
