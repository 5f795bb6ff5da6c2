import type Router from '@koa/router';
import { orchestrationRouter } from './router';
import {
  clearExecutionHistory,
  deleteExecution,
  getExecution,
  iterateExecutionHistory,
  listExecutionHistory,
  publicExecution,
  recentExecutions,
} from '../../db/executions-store';
import type { Services } from '../../lib/services';
import { HttpError } from '../errors';
import { parseInput } from '../validation';
import { csvStream, exportFileName } from './executions-csv';
import { exportQuery, historyQuery, recentQuery } from './executions-input';
import { withoutEmptyValues } from './query';

/**
 * The execution history: recent, paginated history with filters, detail, delete, clear and CSV
 * export (docs/executions.md). Starting, cancelling and retrying executions live elsewhere.
 */
export function executionsRoutes(services: Services): Router {
  const { db } = services.database;
  const router = orchestrationRouter('/executions');

  router.get('/recent', async (ctx) => {
    const { limit } = parseInput(recentQuery, withoutEmptyValues(ctx.query), 'query');
    ctx.body = await recentExecutions(db, limit);
  });

  router.get('/history', async (ctx) => {
    const { filters, page } = parseInput(historyQuery, withoutEmptyValues(ctx.query), 'query');
    ctx.body = await listExecutionHistory(db, filters, page);
  });

  router.get('/history/:id', async (ctx) => {
    const id = ctx.params.id ?? '';
    const execution = await getExecution(db, id);
    if (!execution) throw new HttpError(404, `execution ${id} not found`);
    ctx.body = publicExecution(execution);
  });

  router.delete('/history/:id', async (ctx) => {
    const id = ctx.params.id ?? '';
    const outcome = await deleteExecution(db, id);
    if (outcome === 'not-found') throw new HttpError(404, `execution ${id} not found`);
    if (outcome === 'active') throw new HttpError(409, `execution ${id} is still active: cancel it first`);
    ctx.status = 204;
  });

  /** Deletes every finished record; queued and running ones stay (their workflows still write to them). */
  router.delete('/history', async (ctx) => {
    await clearExecutionHistory(db);
    ctx.status = 204;
  });

  router.get('/export', async (ctx) => {
    const filters = parseInput(exportQuery, withoutEmptyValues(ctx.query), 'query');
    const body = await csvStream(iterateExecutionHistory(db, filters)[Symbol.asyncIterator]());
    ctx.type = 'text/csv; charset=utf-8';
    ctx.set('Content-Disposition', `attachment; filename=${exportFileName(new Date())}`);
    ctx.body = body;
  });

  return router;
}
