import type Router from '@koa/router';
import type { ApiResources } from '../resources';
import { createTask, deleteTask, listTasks, updateTask } from '../../services/tasks';
import { useCaseErrors } from '../use-case-errors';
import { parseInput } from '../validation';
import { orchestrationRouter } from './router';
import { taskCreateBody, taskUpdateBody } from './tasks-input';

/** Saved task templates (contract rows 17-20, 3.4; docs/tasks-schedules.md); use cases in services/tasks.ts. */
export function tasksRoutes(resources: ApiResources): Router {
  const deps = { db: resources.database.db };
  const router = orchestrationRouter('/tasks');
  router.use(useCaseErrors());

  router.get('/', async (ctx) => {
    ctx.body = await listTasks(deps);
  });

  router.post('/', async (ctx) => {
    const task = await createTask(deps, parseInput(taskCreateBody, ctx.request.body, 'body'));
    ctx.status = 201;
    ctx.set('Location', `/api/tasks/${task.id}`);
    ctx.body = task;
  });

  router.put('/:id', async (ctx) => {
    ctx.body = await updateTask(deps, ctx.params.id ?? '', parseInput(taskUpdateBody, ctx.request.body, 'body'));
  });

  router.delete('/:id', async (ctx) => {
    await deleteTask(deps, ctx.params.id ?? '');
    ctx.status = 204;
  });

  return router;
}
