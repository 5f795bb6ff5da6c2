import type Router from '@koa/router';
import { orchestrationRouter } from './router';
import type { ApiResources } from '../resources';
import { chartStats, costStats } from '../../services/stats';
import { useCaseErrors } from '../use-case-errors';
import { parseInput } from '../validation';
import { withoutEmptyValues } from './query';
import { chartsQuery, costsQuery } from './stats-input';

/** The dashboard's statistics (contract 3.9; docs/statistics.md); use cases in services/stats/. */
export function statsRoutes(resources: ApiResources): Router {
  const deps = { db: resources.database.db, workdirRoots: resources.config.orchestration.workdirRoots };
  const router = orchestrationRouter('/stats');
  router.use(useCaseErrors());

  /** `days` 1..365, default 7 (the panel sends 7, 14 or 30). */
  router.get('/charts', async (ctx) => {
    const { days } = parseInput(chartsQuery, withoutEmptyValues(ctx.query), 'query');
    ctx.body = await chartStats(deps, days);
  });

  /** `days` 1..365, default 30. */
  router.get('/costs', async (ctx) => {
    const { days } = parseInput(costsQuery, withoutEmptyValues(ctx.query), 'query');
    ctx.body = await costStats(deps, days);
  });

  return router;
}
