import type Router from '@koa/router';
import type { ApiResources } from '../resources';
import { listBranches, listRepositories } from '../../services/repos';
import { useCaseErrors } from '../use-case-errors';
import { orchestrationRouter } from './router';

/** Repositories (contract rows 3.14; docs/repositories.md); use cases in services/repos/. */
export function reposRoutes(resources: ApiResources): Router {
  const config = resources.config.orchestration.repositories;
  const router = orchestrationRouter('/repos');
  router.use(useCaseErrors());

  router.get('/', async (ctx) => {
    ctx.body = await listRepositories(config);
  });

  // The name is checked against the configured ones (404 otherwise) before git is asked anything.
  router.get('/:name/branches', async (ctx) => {
    ctx.body = await listBranches(config, ctx.params.name ?? '');
  });

  return router;
}
