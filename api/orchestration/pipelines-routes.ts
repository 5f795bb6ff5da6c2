import type Router from '@koa/router';
import { orchestrationRouter } from './router';
import type { ApiResources } from '../resources';
import {
  cancelPipelineRuns,
  createPipeline,
  decideApproval,
  deletePipeline,
  executePipeline,
  getPipeline,
  listPipelines,
  resumePipelineRun,
  updatePipeline,
} from '../../services/pipelines';
import { clientIdOf } from '../websocket';
import { useCaseErrors } from '../use-case-errors';
import { parseInput } from '../validation';
import { pipelineCreateBody, pipelineExecuteBody, pipelineUpdateBody } from './pipelines-input';
import { executionDepsOf } from '../use-case-deps';

/** The client whose live output a run goes to: the `X-Client-Id` header. */
function requestClientId(header: string): string | null {
  return clientIdOf({}, header || undefined);
}

/**
 * Pipelines in the admin panel's shapes (contract 3.6; docs/pipelines.md): CRUD, and their runs
 * (execute, approve, reject, cancel, resume). The use cases are in services/pipelines/.
 */
export function pipelinesRoutes(resources: ApiResources): Router {
  const deps = executionDepsOf(resources);
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

  // Declared before the '/:id/...' routes: "resume" is not a pipeline id.
  router.post('/resume/:executionId', async (ctx) => {
    ctx.status = 202;
    ctx.body = {
      ...(await resumePipelineRun(deps, ctx.params.executionId ?? '', requestClientId(ctx.get('x-client-id')))),
      status: 'resumed',
    };
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

  router.post('/:id/execute', async (ctx) => {
    const body = parseInput(pipelineExecuteBody, ctx.request.body ?? {}, 'body');
    ctx.status = 202;
    ctx.body = await executePipeline(deps, ctx.params.id ?? '', requestClientId(ctx.get('x-client-id')), body);
  });

  // `:id` is a run's id or a pipeline's (its oldest waiting run): docs/pipelines.md, "Approvals".
  router.post('/:id/approve', async (ctx) => {
    ctx.body = await decideApproval(deps, ctx.params.id ?? '', true);
  });

  router.post('/:id/reject', async (ctx) => {
    ctx.body = await decideApproval(deps, ctx.params.id ?? '', false);
  });

  router.post('/:id/cancel', async (ctx) => {
    ctx.body = await cancelPipelineRuns(deps, ctx.params.id ?? '');
  });

  return router;
}
