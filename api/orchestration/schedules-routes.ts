import type Router from '@koa/router';
import type { ApiResources } from '../resources';
import { createSchedule, deleteSchedule, listSchedules, scheduleHistory, updateSchedule } from '../../services/schedules';
import { useCaseErrors } from '../use-case-errors';
import { parseInput } from '../validation';
import { withoutEmptyValues } from './query';
import { orchestrationRouter } from './router';
import { scheduleCreateBody, scheduleHistoryQuery, scheduleUpdateBody } from './schedules-input';
import { scheduleDepsOf } from '../use-case-deps';

/** Agent schedules (contract rows 21-25, 3.5; docs/tasks-schedules.md); use cases in services/schedules/. */
export function schedulesRoutes(resources: ApiResources): Router {
  const deps = scheduleDepsOf(resources);
  const router = orchestrationRouter('/schedules');
  router.use(useCaseErrors());

  router.get('/', async (ctx) => {
    ctx.body = await listSchedules(deps);
  });

  // Declared before the '/:id' routes: "history" is not an id.
  router.get('/history', async (ctx) => {
    const { limit } = parseInput(scheduleHistoryQuery, withoutEmptyValues(ctx.query), 'query');
    ctx.body = await scheduleHistory(deps, limit);
  });

  router.post('/', async (ctx) => {
    const schedule = await createSchedule(deps, parseInput(scheduleCreateBody, ctx.request.body, 'body'));
    ctx.status = 201;
    ctx.set('Location', `/api/schedules/${schedule.id}`);
    ctx.body = schedule;
  });

  router.put('/:id', async (ctx) => {
    ctx.body = await updateSchedule(deps, ctx.params.id ?? '', parseInput(scheduleUpdateBody, ctx.request.body, 'body'));
  });

  router.delete('/:id', async (ctx) => {
    await deleteSchedule(deps, ctx.params.id ?? '');
    ctx.status = 204;
  });

  return router;
}
