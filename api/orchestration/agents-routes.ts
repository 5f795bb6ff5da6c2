import type Router from '@koa/router';
import { orchestrationRouter } from './router';
import type { ApiResources } from '../resources';
import {
  createAgent,
  deleteAgent,
  deleteSecret,
  duplicateAgent,
  exportAgent,
  getAgent,
  importAgent,
  listAgents,
  listSecrets,
  listVersions,
  restoreVersion,
  setSecret,
  updateAgent,
} from '../../services/agents';
import { useCaseErrors } from '../use-case-errors';
import { parseInput } from '../validation';
import { agentCreateBody, agentImportBodyFor, agentUpdateBody, secretBody, versionParam } from './agent-input';
import { agentDepsOf, scheduleDepsOf } from '../use-case-deps';

/** For the execution activity: an agent's secrets in clear, for its process environment only. */
export { agentSecretsForRun } from '../../services/agents';

interface CreatedContext {
  status: number;
  body: unknown;
  set(field: string, value: string): void;
}

function answerCreated(ctx: CreatedContext, agent: { id: string }): void {
  ctx.status = 201;
  ctx.set('Location', `/api/agents/${agent.id}`);
  ctx.body = agent;
}

/**
 * Agents: CRUD, versions, export/import/duplicate and secrets, in the admin panel's shapes (contract
 * 3.1-3.3; docs/agents.md). The use cases are in services/agents/; each route parses, calls one, and answers.
 */
export function agentsRoutes(resources: ApiResources): Router {
  const deps = agentDepsOf(resources);
  const router = orchestrationRouter('/agents');
  router.use(useCaseErrors());

  router.get('/', async (ctx) => {
    ctx.body = await listAgents(deps);
  });

  router.post('/', async (ctx) => {
    const input = parseInput(agentCreateBody, ctx.request.body, 'body');
    answerCreated(ctx, await createAgent(deps, input, 'body.config.workingDirectory'));
  });

  // Declared before the '/:id' routes: "import" is not an id.
  router.post('/import', async (ctx) => {
    // What export answers, or the former export file ({format: 'agent-export', version: 1, agent}).
    const body: unknown = ctx.request.body;
    const { schema, workingDirectoryField } = agentImportBodyFor(body);
    answerCreated(ctx, await importAgent(deps, parseInput(schema, body, 'body'), workingDirectoryField));
  });

  router.get('/:id', async (ctx) => {
    ctx.body = await getAgent(deps, ctx.params.id ?? '');
  });

  router.put('/:id', async (ctx) => {
    const input = parseInput(agentUpdateBody, ctx.request.body, 'body');
    ctx.body = await updateAgent(deps, ctx.params.id ?? '', input, 'body.config.workingDirectory');
  });

  router.delete('/:id', async (ctx) => {
    await deleteAgent({ ...deps, schedules: scheduleDepsOf(resources) }, ctx.params.id ?? '');
    ctx.status = 204;
  });

  router.get('/:id/export', async (ctx) => {
    const { fileName, data } = await exportAgent(deps, ctx.params.id ?? '');
    ctx.set('Content-Disposition', `attachment; filename="${fileName}"`);
    ctx.body = data;
  });

  router.post('/:id/duplicate', async (ctx) => {
    answerCreated(ctx, await duplicateAgent(deps, ctx.params.id ?? ''));
  });

  router.get('/:id/versions', async (ctx) => {
    ctx.body = await listVersions(deps, ctx.params.id ?? '');
  });

  router.post('/:id/versions/:version/restore', async (ctx) => {
    const version = parseInput(versionParam, ctx.params.version, 'path');
    ctx.body = await restoreVersion(deps, ctx.params.id ?? '', version);
  });

  router.get('/:id/secrets', async (ctx) => {
    ctx.body = await listSecrets(deps, ctx.params.id ?? '');
  });

  /** Creates or replaces a secret by name: 201 `{name, created}` when new, 200 `{name, updated}` when replaced. */
  router.post('/:id/secrets', async (ctx) => {
    const { name, value } = parseInput(secretBody, ctx.request.body, 'body');
    const stored = await setSecret(deps, ctx.params.id ?? '', name, value);
    ctx.status = 'created' in stored ? 201 : 200;
    ctx.body = stored;
  });

  // The router hands the name decoded (`MY%20KEY` is "MY KEY").
  router.delete('/:id/secrets/:name', async (ctx) => {
    await deleteSecret(deps, ctx.params.id ?? '', ctx.params.name ?? '');
    ctx.status = 204;
  });

  return router;
}
