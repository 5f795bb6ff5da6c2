import { createHmac, randomUUID } from 'node:crypto';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { executions, webhookDeliveries } from '../../db/schema';
import type { Config } from '../../lib/config';
import { withTimeout } from '../../lib/timeout';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import { startTestServer, type TestServer } from '../support/server';
import { connectClient, untilFinal, type SocketProbe } from '../support/websocket';
import { jsonCall } from '../support/json-api';

/**
 * Webhooks (contract 3.7 and "External trigger"; docs/webhooks.md) on the real stack, with the real
 * Claude Code CLI against the stand-in model: the panel's CRUD and test, and the public
 * POST /hook/:token with its payload forms, signatures, replay protection, status codes, its own
 * rate limit, and the run's messages broadcast to every client.
 */

const FINAL = new Set(['completed', 'error', 'canceled']);
const GLOBAL_SECRET = 'the-global-webhook-secret';

function withHooks(webhooks: Partial<Config['orchestration']['webhooks']>, redisPrefix?: string): (config: Config) => Config {
  return (config) => ({
    ...config,
    ...(redisPrefix === undefined ? {} : { redis: { ...config.redis, keyPrefix: redisPrefix } }),
    orchestration: { ...config.orchestration, webhooks: { ...config.orchestration.webhooks, ...webhooks } },
  });
}

function sign(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(Buffer.from(body, 'utf8')).digest('hex')}`;
}

describe('webhooks, with the real CLI', () => {
  // A budget no suite reaches: the limit itself is tested on a server of its own.
  const unlimited = { rateLimit: { requests: 1_000_000, windowSeconds: 60 } };
  let agents: RealAgents;
  let server: TestServer;
  let workArea: string;
  const probes: SocketProbe[] = [];
  const started: string[] = [];

  beforeAll(async () => {
    agents = await startRealAgents({
      name: 'webhooks',
      maxConcurrent: 4,
      serve: async () => {
        const hooked = await startTestServer(withHooks({ ...unlimited, secret: null }));
        return { server: hooked, close: () => hooked.close() };
      },
    });
    ({ server, workArea } = agents);
  }, 60_000);

  afterAll(async () => {
    // Every run this suite started ends before the worker stops.
    for (const id of started) await untilFinished(id).catch(() => undefined);
    for (const probe of probes) probe.socket.terminate();
    await agents?.close();
  }, 180_000);

  const call = (method: string, route: string, body?: unknown, on: TestServer = server) => jsonCall(on.url, method, route, body);

  /** POST /hook/:token with a body sent as these exact bytes. */
  async function hook(
    token: string,
    body: string,
    headers: Record<string, string> = {},
    on: TestServer = server,
  ): Promise<{ status: number; body: any }> {
    const response = await fetch(`${on.url}/hook/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    const answer = { status: response.status, body: JSON.parse(await response.text()) };
    if (answer.body?.executionId) started.push(answer.body.executionId);
    return answer;
  }

  const standInAgent = (name: string, status = 'active') => agents.standInAgent(name, {}, { status });

  async function newWebhook(body: Record<string, unknown>): Promise<any> {
    const created = await call('POST', '/api/webhooks', body);
    expect(created.status).toBe(201);
    return created.body;
  }

  async function record(executionId: string) {
    const [row] = await server.resources.database.db.select().from(executions).where(eq(executions.id, executionId));
    return row!;
  }

  async function untilFinished(executionId: string) {
    return withTimeout(
      (async () => {
        for (;;) {
          const row = await record(executionId);
          if (FINAL.has(row.status)) return row;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      })(),
      120_000,
      `the end of ${executionId}`,
    );
  }

  async function connect(clientId: string): Promise<SocketProbe> {
    const probe = await connectClient(server.url, clientId);
    probes.push(probe);
    return probe;
  }

  describe('CRUD (contract 3.7, 5.5)', () => {
    it('creates a webhook in the contract shape, lists, updates, deletes it; the dashboard counts it', async () => {
      const agent = await standInAgent('crud');
      const before = (await call('GET', '/api/system/status')).body.webhooks;

      const created = await newWebhook({ name: 'Do GitHub', targetType: 'agent', targetId: agent.id });
      expect(created).toEqual({
        id: expect.any(String),
        name: 'Do GitHub',
        targetType: 'agent',
        targetId: agent.id,
        token: expect.stringMatching(/^[0-9a-f]{48}$/),
        active: true,
        hasSecret: false,
        lastTriggeredAt: null,
        triggerCount: 0,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        updated_at: expect.any(String),
      });
      const listed = (await call('GET', '/api/webhooks')).body;
      expect(Array.isArray(listed)).toBe(true);
      expect(listed.find((webhook: any) => webhook.id === created.id)).toEqual(created);
      expect((await call('GET', '/api/system/status')).body.webhooks).toEqual({ total: before.total + 1, active: before.active + 1 });

      // The panel's edit body, then its toggle body; the token never changes.
      const renamed = await call('PUT', `/api/webhooks/${created.id}`, { name: 'Do GitLab', targetType: 'agent', targetId: agent.id });
      expect(renamed).toMatchObject({ status: 200, body: { id: created.id, name: 'Do GitLab', token: created.token, active: true } });
      const paused = await call('PUT', `/api/webhooks/${created.id}`, { active: false });
      expect(paused).toMatchObject({ status: 200, body: { name: 'Do GitLab', active: false } });
      expect((await call('GET', '/api/system/status')).body.webhooks).toEqual({ total: before.total + 1, active: before.active });

      expect((await call('DELETE', `/api/webhooks/${created.id}`)).status).toBe(204);
      expect(await call('DELETE', `/api/webhooks/${created.id}`)).toEqual({ status: 404, body: { error: 'Webhook não encontrado' } });
      expect(await call('PUT', `/api/webhooks/${created.id}`, { active: true })).toEqual({
        status: 404,
        body: { error: 'Webhook não encontrado' },
      });
      expect((await call('GET', '/api/system/status')).body.webhooks).toEqual(before);
    });

    it('refuses a body without its fields, a bad targetType, a target that does not exist, bad bounds', async () => {
      const agent = await standInAgent('refusals');
      const required = { status: 400, body: { error: 'name, targetType e targetId são obrigatórios' } };
      expect(await call('POST', '/api/webhooks', {})).toEqual(required);
      expect(await call('POST', '/api/webhooks', { name: 'x', targetType: 'agent' })).toEqual(required);
      expect(await call('POST', '/api/webhooks', { name: '  ', targetType: 'agent', targetId: agent.id })).toEqual(required);
      const targetType = { status: 400, body: { error: 'targetType deve ser "agent" ou "pipeline"' } };
      expect(await call('POST', '/api/webhooks', { name: 'x', targetType: 'task', targetId: agent.id })).toEqual(targetType);
      const missing = randomUUID();
      expect(await call('POST', '/api/webhooks', { name: 'x', targetType: 'agent', targetId: missing })).toEqual({
        status: 400,
        body: { error: `targetId: Agente ${missing} não encontrado` },
      });
      expect(await call('POST', '/api/webhooks', { name: 'x', targetType: 'pipeline', targetId: agent.id })).toEqual({
        status: 400,
        body: { error: `targetId: Pipeline ${agent.id} não encontrado` },
      });
      expect((await call('POST', '/api/webhooks', { name: 'x'.repeat(201), targetType: 'agent', targetId: agent.id })).status).toBe(400);
      expect((await call('POST', '/api/webhooks', { name: 'x', targetType: 'agent', targetId: agent.id, secret: 'short' })).status).toBe(
        400,
      );

      const webhook = await newWebhook({ name: 'limites', targetType: 'agent', targetId: agent.id });
      expect(await call('PUT', `/api/webhooks/${webhook.id}`, { targetType: 'pipeline' })).toEqual({
        status: 400,
        body: { error: `targetId: Pipeline ${agent.id} não encontrado` },
      });
      expect((await call('PUT', `/api/webhooks/${webhook.id}`, { active: 'yes' })).status).toBe(400);
    });

    it('keeps a per-webhook secret write-only: hasSecret says it is set, no answer carries it', async () => {
      const agent = await standInAgent('segredo');
      const webhook = await newWebhook({ name: 'assinado', targetType: 'agent', targetId: agent.id, secret: 'per-webhook-secret' });
      expect(webhook.hasSecret).toBe(true);
      const answers = JSON.stringify([webhook, (await call('GET', '/api/webhooks')).body]);
      expect(answers).not.toContain('per-webhook-secret');
      expect((await call('PUT', `/api/webhooks/${webhook.id}`, { secret: null })).body.hasSecret).toBe(false);
      expect((await call('PUT', `/api/webhooks/${webhook.id}`, { secret: 'another-secret' })).body.hasSecret).toBe(true);
    });
  });

  describe('POST /api/webhooks/:id/test (contract 3.7)', () => {
    it('runs the agent for real with "Teste de webhook", source webhook-test, broadcast to every client', async () => {
      const agent = await standInAgent('teste');
      const webhook = await newWebhook({ name: 'teste', targetType: 'agent', targetId: agent.id });
      const [first, second] = [await connect(`painel-${randomUUID()}`), await connect(`painel-${randomUUID()}`)];

      const answer = await call('POST', `/api/webhooks/${webhook.id}/test`);
      expect(answer).toEqual({
        status: 202,
        body: { success: true, message: 'Webhook disparado com sucesso', executionId: expect.any(String) },
      });
      const { executionId } = answer.body;
      started.push(executionId);

      for (const probe of [first, second]) {
        const received = await untilFinal(probe, executionId);
        expect(received.map((message) => message.type)).toContain('execution_started');
        expect(received.at(-1)).toMatchObject({
          type: 'execution_complete',
          executionId,
          agentId: agent.id,
          status: 'completed',
          data: { result: 'OK' },
        });
      }
      expect(await record(executionId)).toMatchObject({
        source: 'webhook-test',
        webhookId: webhook.id,
        task: 'Teste de webhook',
        instructions: '',
        clientId: null,
        status: 'completed',
      });
      // A test is not a trigger.
      const listed = (await call('GET', '/api/webhooks')).body.find((item: any) => item.id === webhook.id);
      expect(listed).toMatchObject({ triggerCount: 0, lastTriggeredAt: null });
    }, 150_000);

    it('answers 404 for an unknown webhook, 400 at once for an inactive agent', async () => {
      expect(await call('POST', `/api/webhooks/${randomUUID()}/test`)).toEqual({ status: 404, body: { error: 'Webhook não encontrado' } });

      const inactive = await standInAgent('inativo', 'inactive');
      const toInactive = await newWebhook({ name: 'inativo', targetType: 'agent', targetId: inactive.id });
      expect(await call('POST', `/api/webhooks/${toInactive.id}/test`)).toEqual({
        status: 400,
        body: { error: `O agente ${inactive.id} está inativo` },
      });
    });
  });

  describe('POST /hook/:token (contract "External trigger")', () => {
    let agent: { id: string; name: string };
    let webhook: any;

    beforeAll(async () => {
      agent = await standInAgent('gancho');
      webhook = await newWebhook({ name: 'gancho externo', targetType: 'agent', targetId: agent.id });
    });

    it('maps each payload form to the run: task, message, input, none; instructions; counts every trigger', async () => {
      const marker = randomUUID();
      const forms: Array<[unknown, { task: string; instructions: string }]> = [
        [
          { task: `pela task ${marker}`, instructions: 'seja breve', message: 'ignorada' },
          { task: `pela task ${marker}`, instructions: 'seja breve' },
        ],
        [
          { message: `pela message ${marker}`, input: 'ignorado' },
          { task: `pela message ${marker}`, instructions: '' },
        ],
        [
          { input: `pelo input ${marker}`, task: '' },
          { task: `pelo input ${marker}`, instructions: '' },
        ],
        [
          { action: 'opened', input: { not: 'a string' } },
          { task: 'Webhook trigger', instructions: '' },
        ],
      ];
      for (const [payload, expected] of forms) {
        const answer = await hook(webhook.token, JSON.stringify(payload));
        expect(answer).toEqual({ status: 202, body: { executionId: expect.any(String), status: 'started', webhook: 'gancho externo' } });
        expect(await record(answer.body.executionId)).toMatchObject({
          ...expected,
          agentId: agent.id,
          source: 'webhook',
          webhookId: webhook.id,
          clientId: null,
        });
      }
      // An empty body is an empty payload.
      const empty = await hook(webhook.token, '');
      expect(empty.status).toBe(202);
      expect(await record(empty.body.executionId)).toMatchObject({ task: 'Webhook trigger' });

      const listed = (await call('GET', '/api/webhooks')).body.find((item: any) => item.id === webhook.id);
      expect(listed.triggerCount).toBe(5);
      expect(Date.parse(listed.lastTriggeredAt)).toBeGreaterThan(Date.parse(webhook.created_at) - 1);
      // Each call recorded with its caller and its run.
      const deliveries = await server.resources.database.db
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.webhookId, webhook.id));
      expect(deliveries).toHaveLength(5);
      for (const delivery of deliveries)
        expect(delivery).toMatchObject({ deliveryId: null, caller: expect.stringContaining('127.0.0.1'), executionId: expect.any(String) });
      const finished = await untilFinished(empty.body.executionId);
      expect(finished).toMatchObject({ status: 'completed', result: 'OK' });
    }, 150_000);

    it('broadcasts the run to every connected client', async () => {
      const [first, second] = [await connect(`painel-${randomUUID()}`), await connect(`painel-${randomUUID()}`)];
      const answer = await hook(webhook.token, JSON.stringify({ task: `difusão ${randomUUID()}` }));
      expect(answer.status).toBe(202);
      for (const probe of [first, second]) {
        const received = await untilFinal(probe, answer.body.executionId);
        expect(received.at(-1)).toMatchObject({
          type: 'execution_complete',
          agentId: agent.id,
          status: 'completed',
          data: { result: 'OK' },
        });
      }
    }, 150_000);

    it('accepts a delivery id once: a repeat answers the first run and starts nothing', async () => {
      const delivery = randomUUID();
      const before = (await call('GET', '/api/webhooks')).body.find((item: any) => item.id === webhook.id).triggerCount;
      const first = await hook(webhook.token, JSON.stringify({ task: `entrega ${delivery}` }), { 'X-GitHub-Delivery': delivery });
      expect(first).toMatchObject({ status: 202, body: { status: 'started' } });
      const repeat = await hook(webhook.token, JSON.stringify({ task: `entrega ${delivery}` }), { 'X-GitHub-Delivery': delivery });
      expect(repeat).toEqual({
        status: 202,
        body: { executionId: first.body.executionId, status: 'duplicate', webhook: 'gancho externo' },
      });
      // The other header names the same delivery the same way.
      const other = await hook(webhook.token, '{}', { 'X-Webhook-Delivery': delivery });
      expect(other.body).toMatchObject({ executionId: first.body.executionId, status: 'duplicate' });

      const runs = await server.resources.database.db
        .select({ id: executions.id })
        .from(executions)
        .where(eq(executions.task, `entrega ${delivery}`));
      expect(runs).toEqual([{ id: first.body.executionId }]);
      const after = (await call('GET', '/api/webhooks')).body.find((item: any) => item.id === webhook.id).triggerCount;
      expect(after).toBe(before + 1);
    });

    describe('a delivery whose first call did not finish (docs/webhooks.md "Deliveries")', () => {
      const triggerCount = async () => (await call('GET', '/api/webhooks')).body.find((item: any) => item.id === webhook.id).triggerCount;
      const deliveryRow = async (deliveryId: string) =>
        (await server.resources.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.deliveryId, deliveryId)))[0]!;
      /** The record a call leaves when its process dies after recording the delivery, before storing its run. */
      async function abandonedClaim(deliveryId: string, secondsAgo: number, fields: { counted?: boolean; refused?: string } = {}) {
        const row = {
          id: randomUUID(),
          webhookId: webhook.id,
          deliveryId,
          caller: '127.0.0.1',
          executionId: randomUUID(),
          receivedAt: new Date(Date.now() - secondsAgo * 1000),
          counted: true,
          ...fields,
        };
        await server.resources.database.db.insert(webhookDeliveries).values(row);
        return row;
      }
      const runsOf = async (task: string) =>
        server.resources.database.db.select({ id: executions.id }).from(executions).where(eq(executions.task, task));

      it('answers 503 with Retry-After while the first call may still be storing its run, and starts nothing', async () => {
        const deliveryId = randomUUID();
        const claim = await abandonedClaim(deliveryId, 1);
        const before = await triggerCount();
        const response = await fetch(`${server.url}/hook/${webhook.token}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-webhook-delivery': deliveryId },
          body: JSON.stringify({ task: `em andamento ${deliveryId}` }),
        });
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toBe('10');
        expect(await response.json()).toEqual({ error: 'Esta entrega ainda está sendo iniciada: envie-a de novo em alguns segundos' });
        expect(await runsOf(`em andamento ${deliveryId}`)).toEqual([]);
        expect(await deliveryRow(deliveryId)).toMatchObject({ executionId: claim.executionId, refused: null, counted: true });
        expect(await triggerCount()).toBe(before);
      });

      it('takes over a delivery whose first call died before storing its run: the run it chose starts, counted once', async () => {
        const deliveryId = randomUUID();
        const task = `retomada ${deliveryId}`;
        const claim = await abandonedClaim(deliveryId, 11);
        const before = await triggerCount();
        const taken = await hook(webhook.token, JSON.stringify({ task }), { 'X-GitHub-Delivery': deliveryId });
        expect(taken).toEqual({ status: 202, body: { executionId: claim.executionId, status: 'started', webhook: 'gancho externo' } });
        // The first call had counted it: not counted again.
        expect(await triggerCount()).toBe(before);
        expect(await untilFinished(claim.executionId)).toMatchObject({
          status: 'completed',
          task,
          source: 'webhook',
          webhookId: webhook.id,
        });
        const repeat = await hook(webhook.token, JSON.stringify({ task }), { 'X-GitHub-Delivery': deliveryId });
        expect(repeat).toEqual({ status: 202, body: { executionId: claim.executionId, status: 'duplicate', webhook: 'gancho externo' } });
        expect(await runsOf(task)).toEqual([{ id: claim.executionId }]);

        // A first call that died before counting: the call that takes it over counts it.
        const uncounted = randomUUID();
        const second = await abandonedClaim(uncounted, 11, { counted: false });
        expect(
          await hook(webhook.token, JSON.stringify({ task: `não contada ${uncounted}` }), { 'X-GitHub-Delivery': uncounted }),
        ).toMatchObject({ status: 202, body: { executionId: second.executionId, status: 'started' } });
        expect(await triggerCount()).toBe(before + 1);
        expect(await deliveryRow(uncounted)).toMatchObject({ executionId: second.executionId, refused: null, counted: true });
      }, 150_000);

      it('starts a delivery whose first start failed as a new run, without counting it again', async () => {
        const deliveryId = randomUUID();
        const task = `nova tentativa ${deliveryId}`;
        const failed = await abandonedClaim(deliveryId, 0, { refused: 'not_started' });
        const before = await triggerCount();
        const again = await hook(webhook.token, JSON.stringify({ task }), { 'X-Webhook-Delivery': deliveryId });
        expect(again).toMatchObject({ status: 202, body: { status: 'started' } });
        expect(again.body.executionId).not.toBe(failed.executionId);
        expect(await deliveryRow(deliveryId)).toMatchObject({ executionId: again.body.executionId, refused: null, counted: true });
        expect(await triggerCount()).toBe(before);
        expect(await runsOf(task)).toEqual([{ id: again.body.executionId }]);
      });

      it('records a start that fails as not started: the run refused, the delivery sent again starts it', async () => {
        const inactive = await standInAgent('desligado', 'inactive');
        const target = await newWebhook({ name: 'alvo inativo', targetType: 'agent', targetId: inactive.id });
        const deliveryId = randomUUID();
        const refused = await hook(target.token, '{}', { 'X-Webhook-Delivery': deliveryId });
        expect(refused).toEqual({ status: 400, body: { error: `O agente ${inactive.id} está inativo` } });
        expect(await deliveryRow(deliveryId)).toMatchObject({ refused: 'not_started', counted: true });
        expect((await call('GET', '/api/webhooks')).body.find((item: any) => item.id === target.id).triggerCount).toBe(1);
        expect((await call('PUT', `/api/agents/${inactive.id}`, { status: 'active' })).status).toBe(200);
        const started = await hook(target.token, '{}', { 'X-Webhook-Delivery': deliveryId });
        expect(started).toMatchObject({ status: 202, body: { status: 'started', executionId: expect.any(String) } });
        expect(await deliveryRow(deliveryId)).toMatchObject({ executionId: started.body.executionId, refused: null, counted: true });
        expect((await call('GET', '/api/webhooks')).body.find((item: any) => item.id === target.id).triggerCount).toBe(1);
      });
    });

    it('answers 404 for an unknown token, 403 for an inactive webhook, 400 for a body that is not a JSON object, 413 beyond 1 MB', async () => {
      const notFound = { status: 404, body: { error: 'Webhook não encontrado' } };
      expect(await hook('0'.repeat(48), '{}')).toEqual(notFound);
      expect(await hook('not-a-token', '{}')).toEqual(notFound);

      expect(await hook(webhook.token, '{"task": ')).toMatchObject({
        status: 400,
        body: { error: expect.stringMatching(/^Corpo JSON inválido; o analisador diz: \S/) },
      });
      expect(await hook(webhook.token, '["task"]')).toEqual({ status: 400, body: { error: 'O corpo deve ser um objeto JSON' } });
      expect(await hook(webhook.token, JSON.stringify({ task: 'x'.repeat(100_001) }))).toEqual({
        status: 400,
        body: { error: 'body.task: No máximo 100000 caracteres' },
      });
      expect(await hook(webhook.token, JSON.stringify({ task: 'x'.repeat(1024 * 1024) }))).toEqual({
        status: 413,
        body: { error: 'O corpo é maior que 1048576 bytes' },
      });

      const paused = await newWebhook({ name: 'pausado', targetType: 'agent', targetId: agent.id });
      expect((await call('PUT', `/api/webhooks/${paused.id}`, { active: false })).status).toBe(200);
      expect(await hook(paused.token, '{}')).toEqual({ status: 403, body: { error: 'Webhook desativado' } });
      expect((await call('GET', '/api/webhooks')).body.find((item: any) => item.id === paused.id).triggerCount).toBe(0);

      // GET is not a trigger.
      const get = await fetch(`${server.url}/hook/${webhook.token}`);
      expect(get.status).toBe(405);
      expect(await get.json()).toEqual({ error: expect.any(String) });
    });

    it('checks a per-webhook secret: missing 401, wrong 401, right 202', async () => {
      const signed = await newWebhook({ name: 'assinado', targetType: 'agent', targetId: agent.id, secret: 'per-webhook-secret' });
      const body = JSON.stringify({ task: `assinado ${randomUUID()}` });
      expect(await hook(signed.token, body)).toEqual({ status: 401, body: { error: 'Assinatura ausente' } });
      expect(await hook(signed.token, body, { 'X-Hub-Signature-256': sign('another-secret', body) })).toEqual({
        status: 401,
        body: { error: 'Assinatura inválida' },
      });
      expect(await hook(signed.token, body, { 'X-Hub-Signature-256': 'sha256=short' })).toEqual({
        status: 401,
        body: { error: 'Assinatura inválida' },
      });
      // The signature covers the bytes as sent: the same JSON spelled otherwise does not match.
      expect(await hook(signed.token, ` ${body}`, { 'X-Hub-Signature-256': sign('per-webhook-secret', body) })).toMatchObject({
        status: 401,
      });
      const right = await hook(signed.token, body, { 'X-Hub-Signature-256': sign('per-webhook-secret', body) });
      expect(right).toMatchObject({ status: 202, body: { status: 'started', webhook: 'assinado' } });
      expect((await call('GET', '/api/webhooks')).body.find((item: any) => item.id === signed.id).triggerCount).toBe(1);
      // Unsigned calls learn nothing about the webhook's state.
      expect((await call('PUT', `/api/webhooks/${signed.id}`, { active: false })).status).toBe(200);
      expect(await hook(signed.token, body)).toEqual({ status: 401, body: { error: 'Assinatura ausente' } });
    });

    it('needs no API token: with AUTH_TOKEN set, /api refuses the call and /hook takes it', async () => {
      const guarded = await startTestServer((config) => ({
        ...withHooks(unlimited)(config),
        orchestration: { ...withHooks(unlimited)(config).orchestration, authToken: 'a-token-of-at-least-16-characters' },
      }));
      try {
        expect((await call('GET', '/api/webhooks', undefined, guarded)).status).toBe(401);
        expect(await hook(webhook.token, JSON.stringify({ task: `sem token ${randomUUID()}` }), {}, guarded)).toMatchObject({
          status: 202,
          body: { status: 'started' },
        });
      } finally {
        await guarded.close();
      }
    });

    it('checks WEBHOOK_SECRET when it is set (a webhook with its own secret uses its own)', async () => {
      const guarded = await startTestServer(withHooks({ ...unlimited, secret: GLOBAL_SECRET }));
      try {
        const body = JSON.stringify({ task: `global ${randomUUID()}` });
        expect(await hook(webhook.token, body, {}, guarded)).toEqual({ status: 401, body: { error: 'Assinatura ausente' } });
        expect(await hook(webhook.token, body, { 'X-Hub-Signature-256': sign('wrong', body) }, guarded)).toEqual({
          status: 401,
          body: { error: 'Assinatura inválida' },
        });
        expect(await hook(webhook.token, body, { 'X-Hub-Signature-256': sign(GLOBAL_SECRET, body) }, guarded)).toMatchObject({
          status: 202,
          body: { status: 'started' },
        });

        const own = await newWebhook({ name: 'próprio', targetType: 'agent', targetId: agent.id, secret: 'its-own-secret' });
        expect(await hook(own.token, body, { 'X-Hub-Signature-256': sign(GLOBAL_SECRET, body) }, guarded)).toEqual({
          status: 401,
          body: { error: 'Assinatura inválida' },
        });
        expect(await hook(own.token, body, { 'X-Hub-Signature-256': sign('its-own-secret', body) }, guarded)).toMatchObject({
          status: 202,
        });
      } finally {
        await guarded.close();
      }
    });
  });

  describe('a pipeline target', () => {
    it('tests and triggers a pipeline run: input from input|task|message, workingDirectory honoured, inactive refused at once', async () => {
      const agent = await standInAgent('etapa');
      const created = await call('POST', '/api/pipelines', {
        name: `pipeline ${randomUUID().slice(0, 8)}`,
        description: '',
        workingDirectory: path.join(workArea, 'pipeline'),
        status: 'active',
        steps: [{ agentId: agent.id, inputTemplate: null, description: 'única', requiresApproval: false }],
      });
      expect(created.status).toBe(201);
      const pipelineId = created.body.id as string;
      const webhook = await newWebhook({ name: 'dispara pipeline', targetType: 'pipeline', targetId: pipelineId });

      const tested = await call('POST', `/api/webhooks/${webhook.id}/test`);
      expect(tested).toEqual({
        status: 202,
        body: { success: true, message: 'Pipeline disparada com sucesso', pipelineId, executionId: expect.any(String) },
      });
      started.push(tested.body.executionId);
      expect(await record(tested.body.executionId)).toMatchObject({
        kind: 'pipeline',
        pipelineId,
        source: 'webhook-test',
        webhookId: webhook.id,
        task: 'Teste de webhook',
        clientId: null,
      });

      const elsewhere = path.join(workArea, 'pipeline-do-chamador');
      const called = await hook(
        webhook.token,
        JSON.stringify({ input: 'entrada do chamador', task: 'ignorada', workingDirectory: elsewhere }),
      );
      expect(called).toEqual({
        status: 202,
        body: { pipelineId, executionId: expect.any(String), status: 'started', webhook: 'dispara pipeline' },
      });
      expect(await record(called.body.executionId)).toMatchObject({
        kind: 'pipeline',
        pipelineId,
        source: 'webhook',
        webhookId: webhook.id,
        task: 'entrada do chamador',
        workingDirectory: elsewhere,
      });
      const byTask = await hook(webhook.token, JSON.stringify({ task: 'pela task', message: 'ignorada' }));
      expect(await record(byTask.body.executionId)).toMatchObject({ task: 'pela task', workingDirectory: path.join(workArea, 'pipeline') });
      expect(await hook(webhook.token, JSON.stringify({ input: 'x', workingDirectory: '/etc' }))).toMatchObject({ status: 400 });
      for (const id of [tested.body.executionId, called.body.executionId, byTask.body.executionId]) {
        expect(await untilFinished(id)).toMatchObject({ status: 'completed' });
      }
      // Each step's record carries its run's webhook: its runs, and what they delegate, are heard by
      // everyone as the run's are (contract 4.2), not by a client the run does not have.
      const steps = await server.resources.database.db
        .select()
        .from(executions)
        .where(eq(executions.pipelineExecutionId, called.body.executionId));
      expect(steps.map((step) => [step.source, step.webhookId, step.clientId])).toEqual([['webhook', webhook.id, null]]);

      expect((await call('PUT', `/api/pipelines/${pipelineId}`, { status: 'inactive' })).status).toBe(200);
      expect(await call('POST', `/api/webhooks/${webhook.id}/test`)).toEqual({
        status: 400,
        body: { error: `O pipeline ${pipelineId} está inativo` },
      });
    }, 150_000);
  });

  it('limits /hook per client address with its own budget, apart from /api', async () => {
    // Its own Redis prefix: the other suites' calls are not in this budget.
    const limited = await startTestServer(withHooks({ rateLimit: { requests: 3, windowSeconds: 60 } }, `test-hook-limit-${randomUUID()}:`));
    try {
      const unknown = '1'.repeat(48);
      for (let index = 0; index < 3; index += 1) expect((await hook(unknown, '{}', {}, limited)).status).toBe(404);
      const refused = await fetch(`${limited.url}/hook/${unknown}`, { method: 'POST', body: '{}' });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await refused.json()).toEqual({
        error: expect.stringMatching(/^Muitas requisições: no máximo 3 a cada 60 s por cliente; tente novamente em \d+ s$/),
      });
      // /api keeps its own budget.
      expect((await call('GET', '/api/webhooks', undefined, limited)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
