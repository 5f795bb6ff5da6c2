import type Router from '@koa/router';
import { orchestrationRouter } from './router';
import type { ApiResources } from '../resources';
import { deleteReport, listReports, readReport } from '../../services/reports';
import { useCaseErrors } from '../use-case-errors';

/**
 * Markdown reports of the data area (docs/reports-notifications-settings.md; contract rows 69-71);
 * use cases in services/reports.ts.
 */
export function reportsRoutes(resources: ApiResources): Router {
  const deps = { dataDir: resources.config.orchestration.dataDir };
  const router = orchestrationRouter('/reports');
  router.use(useCaseErrors());

  router.get('/', async (ctx) => {
    ctx.body = await listReports(deps);
  });

  // The router hands the name decoded: `..%2F..%2Fetc%2Fpasswd` arrives as `../../etc/passwd`.
  router.get('/:filename', async (ctx) => {
    ctx.body = await readReport(deps, ctx.params.filename ?? '');
  });

  router.delete('/:filename', async (ctx) => {
    await deleteReport(deps, ctx.params.filename ?? '');
    ctx.body = { success: true };
  });

  return router;
}
