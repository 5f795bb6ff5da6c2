import type Router from '@koa/router';
import { orchestrationRouter } from './router';
import type { Services } from '../../lib/services';
import { executionDepsOf } from '../../services/executions';
import { createPipeline, deletePipeline, getPipeline, listPipelines, updatePipeline } from '../../services/pipelines';
import { useCaseErrors } from '../use-case-errors';
import { parseInput } from '../validation';
import { pipelineCreateBody, pipelineUpdateBody } from './pipelines-input';

/**
 * Pipelines in the admin panel's shapes (contract 3.6; docs/pipelines.md): CRUD, and their runs
 * (execute, approve, reject, cancel, resume). The use cases are in services/pipelines/.
 */
export function pipelinesRoutes(services: Services): Router {
  const deps = executionDepsOf(services);
  const router = orchestrationRouter('/pipelines');
  router.use(useCaseErrors());

  router.get('/', async (ctx) => {
    ctx.body = await listPipelines(deps);
  });

  router.post('/', async (ctx) => {
    const pipeline = await createPipeline(deps, parseInput(pipelineCreateBody, ctx.request.body, 'body'));
    ctx.status = 201;
    ctx.set('Location', `/api/pipelines/${pipeline.id}`);
    ctx.body = pipeline;
  });

  router.get('/:id', async (ctx) => {
    ctx.body = await getPipeline(deps, ctx.params.id ?? '');
  });

  router.put('/:id', async (ctx) => {
    ctx.body = await updatePipeline(deps, ctx.params.id ?? '', parseInput(pipelineUpdateBody, ctx.request.body, 'body'));
  });

  router.delete('/:id', async (ctx) => {
    await deletePipeline(deps, ctx.params.id ?? '');
    ctx.status = 204;
  });

  return router;
}
