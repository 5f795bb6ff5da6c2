import path from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import type Redis from 'ioredis';
import { drizzle } from 'drizzle-orm/mysql2';
import { createDatabase, type DatabaseHandle } from '../../db';
import * as schema from '../../db/schema';
import { config } from '../../lib/config';
import { liveChannel } from '../../lib/live-output';
import { logger } from '../../lib/logger';
import { closeRedis, createRedis } from '../../lib/redis';
import { closeTemporalClient, createTemporalClient, type TemporalHandle } from '../../temporal/client';
import { agentExecutionWorkflowId } from '../../temporal/contracts/agent-execution';
import { createAgent, deleteAgent, updateAgent, type AgentDeps } from '../../services/agents';
import { createWebhook, deleteWebhook, triggerWebhook } from '../../services/webhooks';
import { ConflictError, InvalidInputError, NotFoundError, UnavailableError } from '../../services/errors';
import {
  cancelExecution,
  continueSession,
  executeAgent,
  executionDetail,
  retryExecution,
  type ExecutionDeps,
} from '../../services/executions';
import { httpErrorOf } from '../../api/use-case-errors';
import { HttpError, RequestValidationError } from '../../api/errors';
import { until } from '../support/waiting';

/**
 * The execution use cases called as a worker's activity (a schedule, a webhook) will call them: with
 * dependencies built from a pool, a Redis connection and a Temporal client of their own, no HTTP
 * server and no `ApiResources` (docs/application-layer.md). No agents worker polls here, so a launched
 * workflow stays queued until the test cancels it: what is checked is the layer, not the run.
 */

let database: DatabaseHandle;
let redis: Redis;
let subscriber: Redis;
let temporal: TemporalHandle;
let deps: ExecutionDeps;
let agentDeps: AgentDeps;
const started: string[] = [];
const agents: string[] = [];
const broadcast: Array<Record<string, unknown>> = [];
const workArea = path.join(config.orchestration.workdirRoots[0]!, `test-execution-use-cases-${process.pid}-${Date.now()}`);

beforeAll(async () => {
  database = createDatabase(config.mysql);
  redis = createRedis(config.redis, 'use-cases-test');
  subscriber = createRedis(config.redis, 'use-cases-test-subscriber');
  temporal = createTemporalClient(config.temporal);
  deps = { db: database.db, temporal: temporal.client, redis, logger, workdirRoots: config.orchestration.workdirRoots };
  agentDeps = { db: database.db, workdirRoots: config.orchestration.workdirRoots, limits: config.orchestration.limits, secretsKey: null };
  // Executions started by a schedule are broadcast to every client.
  await subscriber.subscribe(liveChannel(config.redis.keyPrefix, 'all'));
  subscriber.on('message', (_channel: string, text: string) => broadcast.push(JSON.parse(text) as Record<string, unknown>));
});

afterAll(async () => {
  for (const executionId of started) {
    await temporal.client.workflow
      .getHandle(agentExecutionWorkflowId(executionId))
      .terminate('test cleanup')
      .catch(() => undefined);
  }
  const schedules = { db: agentDeps.db, temporal: temporal.client, logger, timezone: 'UTC' };
  for (const id of agents) await deleteAgent({ ...agentDeps, schedules }, id).catch(() => undefined);
  await closeTemporalClient(temporal);
  await closeRedis(subscriber);
  await closeRedis(redis);
  await database.pool.end();
});

async function newAgent(name: string, status: 'active' | 'inactive' = 'active'): Promise<string> {
  const agent = await createAgent(agentDeps, {
    status,
    name: `${name} ${process.pid} ${Date.now()}`,
    description: '',
    model: 'haiku',
    instructions: 'Be brief.',
    workingDirectory: path.join(workArea, name),
    permissionMode: 'bypassPermissions',
    maxTurns: 3,
  });
  agents.push(agent.id);
  return agent.id;
}

describe('execution use cases called without the HTTP layer', () => {
  it('executeAgent from a schedule stores the queued record with the agent defaults, broadcasts execution_queued and starts the workflow', async () => {
    const agentId = await newAgent('scheduled');
    const launched = await executeAgent(deps, agentId, null, { task: 'nightly summary', source: 'schedule' });
    started.push(launched.executionId);
    expect(launched).toEqual({ executionId: expect.any(String), status: 'queued' });

    const stored = await executionDetail(deps, launched.executionId);
    expect(stored).toMatchObject({
      id: launched.executionId,
      executionId: launched.executionId,
      type: 'agent',
      agentId,
      source: 'schedule',
      status: 'queued',
      task: 'nightly summary',
      // The run's own additional instructions: none given (the agent's are its system prompt).
      instructions: '',
      workingDirectory: path.join(workArea, 'scheduled'),
      model: 'haiku',
    });
    const description = await temporal.client.workflow.getHandle(agentExecutionWorkflowId(launched.executionId)).describe();
    expect(description.status.name).toBe('RUNNING');
    const queued = await until(
      'execution_queued broadcast',
      async () => broadcast.find((message) => message.executionId === launched.executionId),
      (message) => message !== undefined,
      10_000,
    );
    expect(queued).toMatchObject({ type: 'execution_queued', agentId, source: 'schedule' });

    // Cancelled while queued: ended here at once; a second cancel finds nothing to cancel.
    expect(await cancelExecution(deps, agentId, launched.executionId)).toEqual({ cancelled: true });
    expect((await executionDetail(deps, launched.executionId)).status).toBe('canceled');
    await expect(cancelExecution(deps, agentId, launched.executionId)).rejects.toThrow(
      new NotFoundError(`Execução ${launched.executionId} do agente ${agentId} não encontrada ou já finalizada`),
    );

    // A retry of it is a new queued record of source `retry` pointing at it.
    const retried = await retryExecution(deps, launched.executionId, null);
    started.push(retried.executionId);
    expect(retried).toEqual({ success: true, message: 'Execução reiniciada', executionId: expect.any(String) });
    expect(await executionDetail(deps, retried.executionId)).toMatchObject({
      source: 'retry',
      parentExecutionId: launched.executionId,
      status: 'queued',
      task: 'nightly summary',
    });
    // Only a record that ended with an error or was canceled is retried.
    await expect(retryExecution(deps, retried.executionId, null)).rejects.toThrow(
      new InvalidInputError('Só é possível reexecutar execuções que terminaram com erro ou foram canceladas (status atual: queued)'),
    );
    await cancelExecution(deps, agentId, retried.executionId);
  });

  /** The real database, through a pool that notes each statement it is given. */
  function notedDatabase(): { db: ExecutionDeps['db']; statements: string[] } {
    const statements: string[] = [];
    const noted = new Proxy(database.pool, {
      get(pool, key, receiver) {
        const value = Reflect.get(pool, key, receiver) as unknown;
        if ((key !== 'query' && key !== 'execute') || typeof value !== 'function')
          return typeof value === 'function' ? value.bind(pool) : value;
        return (sql: unknown, ...rest: unknown[]) => {
          statements.push(typeof sql === 'string' ? sql : String((sql as { sql?: unknown }).sql));
          return (value as (...args: unknown[]) => unknown).call(pool, sql, ...rest);
        };
      },
    });
    return { db: drizzle(noted, { schema, mode: 'default' }), statements };
  }

  it('executeAgent reads the settings once: their defaults and their daily budget from one read', async () => {
    const agentId = await newAgent('one-read');
    const { db, statements } = notedDatabase();
    const launched = await executeAgent({ ...deps, db }, agentId, null, { task: 'uma leitura' });
    started.push(launched.executionId);
    expect(statements.filter((sql) => /from `settings`/i.test(sql))).toHaveLength(1);
    await cancelExecution(deps, agentId, launched.executionId);
  });

  it("a webhook's call checks its agent's budget once (before the call is counted), not again at the start", async () => {
    const agentId = await newAgent('hooked');
    await updateAgent(agentDeps, agentId, { dailyBudgetUsd: 50 });
    const webhook = await createWebhook(
      { db: database.db, secretsKey: null },
      { name: `hook ${Date.now()}`, targetType: 'agent', targetId: agentId },
    );
    const { db, statements } = notedDatabase();
    const answer = await triggerWebhook(
      { ...deps, db, secretsKey: null, globalSecret: null },
      {
        token: webhook.token,
        rawBody: Buffer.from('{"task":"do webhook"}'),
        signature: undefined,
        deliveryId: undefined,
        caller: '127.0.0.1',
      },
    );
    started.push(answer.executionId!);
    // The agent's spending of the day, read by a budget check: once.
    expect(statements.filter((sql) => /from `agent_daily_costs`/i.test(sql))).toHaveLength(1);
    await cancelExecution(deps, agentId, answer.executionId!);
    await deleteWebhook({ db: database.db }, webhook.id);
  });

  it('reports typed errors, storing nothing', async () => {
    const agentId = await newAgent('refusals');
    const before = await countExecutions();
    const unknown = '00000000-0000-4000-8000-000000000000';
    await expect(executeAgent(deps, unknown, null, { task: 'x' })).rejects.toThrow(new NotFoundError(`Agente não encontrado: ${unknown}`));
    await expect(executeAgent(deps, agentId, null, { task: 'x', repoName: 'r' })).rejects.toThrow(
      new NotFoundError('Repositório não encontrado: "r"'),
    );
    const outside = executeAgent(deps, agentId, null, { task: 'x', workingDirectory: '/etc/somewhere' });
    await expect(outside).rejects.toBeInstanceOf(InvalidInputError);
    await expect(outside).rejects.toThrow(/^workingDirectory: /);
    await expect(continueSession(deps, agentId, null, { sessionId: 'no-such-session', message: 'go on' })).rejects.toThrow(
      new NotFoundError(`O agente ${agentId} não tem a sessão no-such-session`),
    );
    await expect(cancelExecution(deps, agentId, unknown)).rejects.toThrow(
      new NotFoundError(`Execução ${unknown} do agente ${agentId} não encontrada ou já finalizada`),
    );
    await expect(retryExecution(deps, unknown, null)).rejects.toThrow(new NotFoundError(`Execução não encontrada: ${unknown}`));
    // An inactive agent is not run, nor continued.
    const inactive = await newAgent('inactive', 'inactive');
    await expect(executeAgent(deps, inactive, null, { task: 'x' })).rejects.toThrow(
      new InvalidInputError(`O agente ${inactive} está inativo`),
    );
    await expect(continueSession(deps, inactive, null, { sessionId: 's', message: 'go on' })).rejects.toThrow(
      new InvalidInputError(`O agente ${inactive} está inativo`),
    );
    expect(await countExecutions()).toBe(before);
  });
});

describe('use-case errors as HTTP answers (api/use-case-errors.ts)', () => {
  it.each([
    ['not_found', 404, new NotFoundError('gone')],
    ['conflict', 409, new ConflictError('busy')],
    ['unavailable', 503, new UnavailableError('down')],
  ])('%s answers %i with its message', (_kind, status, error) => {
    const mapped = httpErrorOf(error);
    expect(mapped).toBeInstanceOf(HttpError);
    expect(mapped).toMatchObject({ status, message: error.message });
  });

  it('an invalid input is a request validation error (400 under /api, 422 under /api/v1); other errors pass unchanged', () => {
    const mapped = httpErrorOf(new InvalidInputError('workingDirectory: outside'));
    expect(mapped).toBeInstanceOf(RequestValidationError);
    expect((mapped as Error).message).toBe('workingDirectory: outside');
    const other = new WorkflowNotFoundError('x', 'id', undefined);
    expect(httpErrorOf(other)).toBe(other);
  });
});

async function countExecutions(): Promise<number> {
  const [rows] = await database.pool.query('SELECT COUNT(*) AS n FROM executions');
  return Number((rows as Array<{ n: number }>)[0]!.n);
}
