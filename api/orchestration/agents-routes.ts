import type Router from '@koa/router';
import { orchestrationRouter } from './router';
import type { Middleware } from 'koa';
import { agentDataOf } from '../../db/agent-data';
import { deleteSecret, listSecretNames, putSecret, secretContext } from '../../db/agent-secrets-store';
import {
  AgentLimitReachedError,
  AgentNameTakenError,
  AgentVersionNotFoundError,
  createAgent,
  createAgentWithFreeName,
  deleteAgent,
  findAgent,
  listAgents,
  listAgentVersions,
  restoreAgentVersion,
  updateAgent,
  type Agent,
} from '../../db/agents-store';
import type { Services } from '../../lib/services';
import { sealSecret, secretsKeyFromHex, SecretsKeyMissingError } from '../../lib/secret-box';
import { HttpError } from '../errors';
import { parseInput } from '../validation';
import { agentCreateBody, agentImportBody, agentUpdateBody, EXPORT_FORMAT, EXPORT_VERSION, secretBody, versionParam } from './agent-input';
import { withConfinedWorkingDirectory } from './working-directory-input';

/** For the execution activity: an agent's secrets in clear, for its process environment only. */
export { agentSecretsForRun } from '../../db/agent-secrets-store';

/** The store's refusals as the client's errors: 409 name taken or agents at their bound, 404 no such version, 503 no key. */
const storeErrorsAsHttp: Middleware = async (_ctx, next) => {
  try {
    await next();
  } catch (error) {
    if (error instanceof AgentNameTakenError) throw new HttpError(409, error.message);
    if (error instanceof AgentLimitReachedError) throw new HttpError(409, error.message);
    if (error instanceof AgentVersionNotFoundError) throw new HttpError(404, error.message);
    if (error instanceof SecretsKeyMissingError) throw new HttpError(503, error.message);
    throw error;
  }
};

function agentNotFound(id: string): HttpError {
  return new HttpError(404, `agent ${id} not found`);
}

/** A file name for the export download: the agent's name reduced to safe characters. */
function exportFileName(agent: Agent): string {
  const stem = agent.name.normalize('NFKD').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');
  return `agent-${stem || agent.id}.json`;
}

interface CreatedContext {
  status: number;
  body: unknown;
  set(field: string, value: string): void;
}

function answerCreated(ctx: CreatedContext, agent: Agent): void {
  ctx.status = 201;
  ctx.set('Location', `/api/agents/${agent.id}`);
  ctx.body = agent;
}

/** Agents: CRUD, versions, export/import/duplicate and secrets (docs/agents.md). */
export function agentsRoutes(services: Services): Router {
  const { db } = services.database;
  const { workdirRoots } = services.config.orchestration;
  // The store holds every write to its bounds (AGENTS_MAX, AGENT_VERSIONS_KEPT).
  const { limits } = services.config.orchestration;
  const router = orchestrationRouter('/agents');
  router.use(storeErrorsAsHttp);

  async function existingAgent(id: string): Promise<Agent> {
    const agent = await findAgent(db, id);
    if (!agent) throw agentNotFound(id);
    return agent;
  }

  router.get('/', async (ctx) => {
    ctx.body = await listAgents(db);
  });

  router.post('/', async (ctx) => {
    const input = parseInput(agentCreateBody, ctx.request.body, 'body');
    answerCreated(ctx, await createAgent(db, await withConfinedWorkingDirectory(input, workdirRoots, 'body.workingDirectory'), limits));
  });

  // Declared before the '/:id' routes: "import" is not an id.
  router.post('/import', async (ctx) => {
    const file = parseInput(agentImportBody, ctx.request.body, 'body');
    const agent = await withConfinedWorkingDirectory(file.agent, workdirRoots, 'body.agent.workingDirectory');
    // Keeps the name when free, else "<name> (imported)", "<name> (imported 2)"...
    answerCreated(ctx, await createAgentWithFreeName(db, agent, 'imported', 0, limits));
  });

  router.get('/:id', async (ctx) => {
    ctx.body = await existingAgent(ctx.params.id ?? '');
  });

  router.put('/:id', async (ctx) => {
    const id = ctx.params.id ?? '';
    const input = parseInput(agentUpdateBody, ctx.request.body, 'body');
    const agent = await updateAgent(db, id, await withConfinedWorkingDirectory(input, workdirRoots, 'body.workingDirectory'), limits);
    if (!agent) throw agentNotFound(id);
    ctx.body = agent;
  });

  router.delete('/:id', async (ctx) => {
    const id = ctx.params.id ?? '';
    if (!(await deleteAgent(db, id))) throw agentNotFound(id);
    ctx.status = 204;
  });

  router.get('/:id/export', async (ctx) => {
    const agent = await existingAgent(ctx.params.id ?? '');
    ctx.set('Content-Disposition', `attachment; filename="${exportFileName(agent)}"`);
    ctx.body = { format: EXPORT_FORMAT, version: EXPORT_VERSION, exportedAt: new Date().toISOString(), agent: agentDataOf(agent) };
  });

  router.post('/:id/duplicate', async (ctx) => {
    const source = await existingAgent(ctx.params.id ?? '');
    // Always a new name: "<name> (copy)", "<name> (copy 2)"...; secrets stay with the original.
    answerCreated(ctx, await createAgentWithFreeName(db, agentDataOf(source), 'copy', 1, limits));
  });

  router.get('/:id/versions', async (ctx) => {
    const agent = await existingAgent(ctx.params.id ?? '');
    ctx.body = await listAgentVersions(db, agent.id);
  });

  router.post('/:id/versions/:version/restore', async (ctx) => {
    const id = ctx.params.id ?? '';
    const version = parseInput(versionParam, ctx.params.version, 'path');
    const agent = await restoreAgentVersion(db, id, version, limits);
    if (!agent) throw agentNotFound(id);
    ctx.body = agent;
  });

  router.get('/:id/secrets', async (ctx) => {
    const agent = await existingAgent(ctx.params.id ?? '');
    ctx.body = await listSecretNames(db, agent.id);
  });

  /** Creates or replaces a secret by name: 201 when new, 200 when replaced; the value is never answered. */
  router.post('/:id/secrets', async (ctx) => {
    const { id } = await existingAgent(ctx.params.id ?? '');
    const { name, value } = parseInput(secretBody, ctx.request.body, 'body');
    const key = secretsKeyFromHex(services.config.orchestration.secretsKey);
    const stored = await putSecret(db, id, name, sealSecret(key, value, secretContext(id, name)));
    if (!stored) throw agentNotFound(id);
    ctx.status = stored.outcome === 'created' ? 201 : 200;
    ctx.body = stored.secret;
  });

  // The router hands the name decoded (`MY%20KEY` is "MY KEY").
  router.delete('/:id/secrets/:name', async (ctx) => {
    const { id } = await existingAgent(ctx.params.id ?? '');
    const name = ctx.params.name ?? '';
    if (!(await deleteSecret(db, id, name))) throw new HttpError(404, `agent ${id} has no secret named "${name}"`);
    ctx.status = 204;
  });

  return router;
}
