import type Router from '@koa/router';
import type { ApiResources } from '../resources';
import {
  cancelAllExecutions,
  cancelExecution,
  continueSession,
  executeAgent,
  listActiveExecutions,
  retryExecution,
} from '../../services/executions';
import { useCaseErrors } from '../use-case-errors';
import { parseInput } from '../validation';
import { clientIdOf } from '../websocket';
import { continueBody, executeBody } from './execution-control-input';
import { orchestrationRouter } from './router';
import { executionDepsOf } from '../use-case-deps';

/** The client whose live output an execution goes to: the `X-Client-Id` header (trimmed, at most 128 characters). */
function requestClientId(header: string): string | null {
  return clientIdOf({}, header || undefined);
}

/**
 * Starting, cancelling, continuing and retrying agent executions, and the active list, in the admin
 * panel's shapes (contract 3.1, 3.8; docs/agent-executions.md). The use cases are in
 * services/executions/; each route parses, calls one, and answers.
 */
export function executionControlRoutes(resources: ApiResources): Router {
  const deps = executionDepsOf(resources);
  const router = orchestrationRouter();
  router.use(useCaseErrors());

  router.post('/agents/:id/execute', async (ctx) => {
    const body = parseInput(executeBody, ctx.request.body, 'body');
    const launched = await executeAgent(deps, ctx.params.id ?? '', requestClientId(ctx.get('x-client-id')), body);
    ctx.status = 202;
    ctx.body = launched;
  });

  router.post('/agents/:id/cancel/:executionId', async (ctx) => {
    ctx.body = await cancelExecution(deps, ctx.params.id ?? '', ctx.params.executionId ?? '');
  });

  router.post('/agents/:id/continue', async (ctx) => {
    const body = parseInput(continueBody, ctx.request.body, 'body');
    const launched = await continueSession(deps, ctx.params.id ?? '', requestClientId(ctx.get('x-client-id')), body);
    ctx.status = 202;
    ctx.body = launched;
  });

  router.get('/executions/active', async (ctx) => {
    ctx.body = await listActiveExecutions(deps);
  });

  router.post('/executions/cancel-all', async (ctx) => {
    ctx.body = await cancelAllExecutions(deps);
  });

  router.post('/executions/:id/retry', async (ctx) => {
    ctx.body = await retryExecution(deps, ctx.params.id ?? '', requestClientId(ctx.get('x-client-id')));
  });

  return router;
}
