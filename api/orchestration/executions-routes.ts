import type Router from '@koa/router';
import { orchestrationRouter } from './router';
import type { ApiResources } from '../resources';
import {
  clearExecutionHistory,
  deleteExecution,
  executionDetail,
  executionHistory,
  exportExecutionHistory,
  recentExecutions,
} from '../../services/executions';
import { useCaseErrors } from '../use-case-errors';
import { parseInput } from '../validation';
import { csvStream, exportFileName } from './executions-csv';
import { exportQuery, historyQuery, recentQuery } from './executions-input';
import { withoutEmptyValues } from './query';
import { executionDepsOf } from '../use-case-deps';

/**
 * The execution history in the admin panel's shapes (contract 3.8; docs/executions.md): recent,
 * history with filters ({items, total}), detail, delete, clear and the CSV export. Starting,
 * cancelling and retrying executions live elsewhere; the use cases are in services/executions/.
 */
export function executionsRoutes(resources: ApiResources): Router {
  const deps = executionDepsOf(resources);
  const router = orchestrationRouter('/executions');
  router.use(useCaseErrors());

  router.get('/recent', async (ctx) => {
    const { limit } = parseInput(recentQuery, withoutEmptyValues(ctx.query), 'query');
    ctx.body = await recentExecutions(deps, limit);
  });

  router.get('/history', async (ctx) => {
    const { filters, page } = parseInput(historyQuery, withoutEmptyValues(ctx.query), 'query');
    ctx.body = await executionHistory(deps, filters, page);
  });

  router.get('/history/:id', async (ctx) => {
    ctx.body = await executionDetail(deps, ctx.params.id ?? '');
  });

  router.delete('/history/:id', async (ctx) => {
    await deleteExecution(deps, ctx.params.id ?? '');
    ctx.status = 204;
  });

  /** Deletes every finished record; active ones stay (their workflows still write to them). */
  router.delete('/history', async (ctx) => {
    await clearExecutionHistory(deps);
    ctx.status = 204;
  });

  router.get('/export', async (ctx) => {
    const filters = parseInput(exportQuery, withoutEmptyValues(ctx.query), 'query');
    const body = await csvStream(exportExecutionHistory(deps, filters)[Symbol.asyncIterator]());
    ctx.type = 'text/csv; charset=utf-8';
    ctx.set('Content-Disposition', `attachment; filename=${exportFileName(new Date())}`);
    ctx.body = body;
  });

  return router;
}
