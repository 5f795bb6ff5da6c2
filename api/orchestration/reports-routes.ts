import type Router from '@koa/router';
import { orchestrationRouter } from './router';
import type { Middleware } from 'koa';
import { deleteReport, InvalidReportNameError, listReports, readReport } from '../../activities/agents/reports';
import type { Services } from '../../lib/services';
import { HttpError } from '../errors';

/** A name that is not a report file name (`..`, separators, NUL...) is refused before any file access. */
const invalidNameAsBadRequest: Middleware = async (_ctx, next) => {
  try {
    await next();
  } catch (error) {
    if (error instanceof InvalidReportNameError) throw new HttpError(400, error.message);
    throw error;
  }
};

/** Markdown reports of the data area (docs/reports-notifications-settings.md). */
export function reportsRoutes(services: Services): Router {
  const { dataDir } = services.config.orchestration;
  const router = orchestrationRouter('/reports');
  router.use(invalidNameAsBadRequest);

  router.get('/', async (ctx) => {
    ctx.body = await listReports(dataDir);
  });

  // The router hands the name decoded: `..%2F..%2Fetc%2Fpasswd` arrives as `../../etc/passwd`.
  router.get('/:filename', async (ctx) => {
    const filename = ctx.params.filename ?? '';
    const markdown = await readReport(dataDir, filename);
    if (markdown === null) throw new HttpError(404, `report ${filename} not found`);
    ctx.type = 'text/markdown; charset=utf-8';
    ctx.body = markdown;
  });

  router.delete('/:filename', async (ctx) => {
    const filename = ctx.params.filename ?? '';
    if (!(await deleteReport(dataDir, filename))) throw new HttpError(404, `report ${filename} not found`);
    ctx.status = 204;
  });

  return router;
}
