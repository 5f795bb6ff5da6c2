import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { RowDataPacket } from 'mysql2';
import { budgetExhaustedText, roundUsd, type DailyBudget } from '../../domain/budgets';
import { utcDay } from '../../domain/utc-day';
import { agentScheduleId } from '../../temporal/agent-schedules';
import { promptsOf, type StandInModel } from '../support/stand-in-model';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import type { TestServer } from '../support/server';
import { until } from '../support/waiting';
import { connectClient, expectBudgetPause, untilFinal, untilPipelineMessage, type SocketProbe } from '../support/websocket';
import { jsonCall } from '../support/json-api';

/**
 * Daily cost budgets (docs/budgets.md), with the real Claude Code CLI against the stand-in model, whose
 * runs cost what the CLI computes from the stand-in's token counts (a `stand-in:text` run: US$ 0.00015).
 * A budget of US$ 0.0001 is exhausted by one such run. Every rule: the settings' global budget and an
 * agent's own, 409 with nothing created for execute, continue, retry, /hook and the webhook test, an
 * `error` record for a schedule's firing, a delegation and an automatic retry, a pipeline paused then
 * approved, rejected, or left until its approval timed out, the 80 % warning, and what the statistics
 * and the system status show.
 */

/** Less than one `stand-in:text` run costs. */
const TINY_BUDGET = 0.0001;

describe('daily cost budgets, with the real CLI', () => {
  let agents: RealAgents;
  let server: TestServer;
  let model: StandInModel;
  const probes: SocketProbe[] = [];

  beforeAll(async () => {
    agents = await startRealAgents({
      name: 'budgets',
      maxConcurrent: 4,
      orchestration: { runTimeoutMs: 60_000, followUps: { retryDelayMs: 1_000, delegationDepthMax: 3 } },
      beforeWorker: async (started) => {
        await started.resources.database.pool.query('DELETE FROM schedules');
      },
    });
    ({ server, model } = agents);
    expect((await call('PUT', '/api/settings', { dailyBudgetUsd: null })).status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    for (const probe of probes) probe.socket.terminate();
    if (server) {
      await call('PUT', '/api/settings', { dailyBudgetUsd: null }).catch(() => undefined);
      await server.resources.database.pool.query('DELETE FROM schedules').catch(() => undefined);
    }
    await agents?.close();
  });

  const call = (method: string, route: string, body?: unknown, clientId?: string) => jsonCall(server.url, method, route, body, clientId);
  const detail = async (id: string) => (await call('GET', `/api/executions/history/${id}`)).body;
  const query = async <T extends RowDataPacket>(sql: string, values: unknown[]) =>
    (await server.resources.database.pool.query<T[]>(sql, values))[0];
  const recordsOf = async (agentId: string) =>
    Number((await query<RowDataPacket>('SELECT COUNT(*) AS n FROM executions WHERE agent_id = ?', [agentId]))[0]!.n);
  const spentBy = async (agentId: string) =>
    Number(
      (
        await query<RowDataPacket>(
          "SELECT COALESCE(SUM(cost_usd), 0) AS spent FROM executions WHERE agent_id = ? AND kind = 'agent' AND started_at >= ?",
          [agentId, utcDay(new Date()).start],
        )
      )[0]!.spent,
    );

  async function connect(): Promise<{ probe: SocketProbe; clientId: string }> {
    const clientId = `painel-${randomUUID()}`;
    const probe = await connectClient(server.url, clientId);
    probes.push(probe);
    return { probe, clientId };
  }

  /** Runs `task` on agent `agentId` to its end; the final message. */
  async function runToEnd(agentId: string, task: string): Promise<any> {
    const { probe, clientId } = await connect();
    const answer = await call('POST', `/api/agents/${agentId}/execute`, { task, instructions: '' }, clientId);
    expect(answer.status).toBe(202);
    return (await untilFinal(probe, answer.body.executionId)).at(-1);
  }

  /** The text of an agent's exhausted budget, as the service writes it now. */
  async function agentBudgetText(agent: { id: string; name: string }): Promise<string> {
    const budget: DailyBudget = {
      scope: 'agent',
      agentId: agent.id,
      agentName: agent.name,
      limitUsd: TINY_BUDGET,
      spentUsd: await spentBy(agent.id),
    };
    return budgetExhaustedText(budget, utcDay(new Date()).end);
  }

  /** An agent whose own budget one completed run exhausted. */
  async function spentAgent(name: string, config: Record<string, unknown> = {}): Promise<{ id: string; name: string }> {
    const agent = await agents.standInAgent(name, { dailyBudgetUsd: TINY_BUDGET, ...config });
    expect(await runToEnd(agent.id, `stand-in:text ${randomUUID()}`)).toMatchObject({
      type: 'execution_complete',
      data: { costUsd: expect.any(Number) },
    });
    expect(await spentBy(agent.id)).toBeGreaterThanOrEqual(TINY_BUDGET);
    return agent;
  }

  it('keeps the global budget in the settings: > 0 or null, a PUT without it (the panel form) keeps it', async () => {
    expect((await call('GET', '/api/settings')).body).toMatchObject({ dailyBudgetUsd: null });
    expect(await call('PUT', '/api/settings', { dailyBudgetUsd: 25.5 })).toMatchObject({ status: 200, body: { dailyBudgetUsd: 25.5 } });
    const panelForm = await call('PUT', '/api/settings', { defaultModel: 'claude-sonnet-4-6', maxConcurrent: 4 });
    expect(panelForm).toMatchObject({ status: 200, body: { dailyBudgetUsd: 25.5, maxConcurrent: 4 } });
    for (const refused of [0, -1, '5', 1_000_001]) {
      const answer = await call('PUT', '/api/settings', { dailyBudgetUsd: refused });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatch(/^body\.dailyBudgetUsd: /);
    }
    expect((await call('GET', '/api/settings')).body.dailyBudgetUsd).toBe(25.5);
    expect(await call('PUT', '/api/settings', { dailyBudgetUsd: null })).toMatchObject({ status: 200, body: { dailyBudgetUsd: null } });
  });

  it("keeps an agent's budget in config.dailyBudgetUsd: validated, shown only when set, versioned and exported", async () => {
    const agent = await agents.standInAgent('com-orcamento', { dailyBudgetUsd: 2.5 });
    const view = (await call('GET', `/api/agents/${agent.id}`)).body;
    expect(view.config.dailyBudgetUsd).toBe(2.5);
    expect((await call('GET', `/api/agents/${agent.id}/export`)).body.config.dailyBudgetUsd).toBe(2.5);
    expect((await call('PUT', `/api/agents/${agent.id}`, { config: { dailyBudgetUsd: 0 } })).status).toBe(400);
    const cleared = await call('PUT', `/api/agents/${agent.id}`, { config: { dailyBudgetUsd: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.config).not.toHaveProperty('dailyBudgetUsd');
    const versions = (await call('GET', `/api/agents/${agent.id}/versions`)).body;
    expect(versions[0]).toMatchObject({ changedFields: ['dailyBudgetUsd'] });
  });

  it("refuses execute, continue and retry of an agent past its budget with 409 naming the budget, today's spending and the reset; nothing is created", async () => {
    const agent = await agents.standInAgent('gastador', { dailyBudgetUsd: TINY_BUDGET });
    // A failed run first (it costs nothing): the retry below has something to run again.
    const failed = await runToEnd(agent.id, `stand-in:error status=401 ${randomUUID()}`);
    expect(failed).toMatchObject({ type: 'execution_error' });
    const completed = await runToEnd(agent.id, `stand-in:text ${randomUUID()}`);
    expect(completed).toMatchObject({ type: 'execution_complete' });
    const before = await recordsOf(agent.id);
    const text = await agentBudgetText(agent);
    expect(text).toBe(
      `O orçamento diário do agente ${agent.name} de US$ 0.0001 foi atingido: US$ 0.00015 gastos hoje; renova em ${utcDay(new Date()).end.toISOString()} (00:00 UTC)`,
    );

    const refusal = { status: 409, body: { error: text } };
    expect(await call('POST', `/api/agents/${agent.id}/execute`, { task: 'stand-in:text', instructions: '' })).toEqual(refusal);
    expect(await call('POST', `/api/agents/${agent.id}/continue`, { sessionId: completed.data.sessionId, message: 'E então?' })).toEqual(
      refusal,
    );
    expect(await call('POST', `/api/executions/${failed.executionId}/retry`)).toEqual(refusal);
    expect(await recordsOf(agent.id)).toBe(before);

    // The 80 % warning, once for this budget today.
    const notifications = (await call('GET', '/api/notifications?pageSize=100')).body.notifications as any[];
    const warnings = notifications.filter((item) => item.title === 'Orçamento diário em 80%' && item.message.includes(agent.name));
    expect(warnings).toHaveLength(1);
    expect(warnings[0].message).toMatch(/^O orçamento diário do agente .+ está em \d+%: US\$ [\d.]+ de US\$ 0\.0001 gastos hoje$/);
  }, 180_000);

  it('refuses /hook and the webhook test for an agent past its budget: 409, not counted, the delivery recorded as refused', async () => {
    const agent = await spentAgent('por-webhook');
    const text = await agentBudgetText(agent);
    const webhook = (
      await call('POST', '/api/webhooks', { name: `orçamento ${randomUUID().slice(0, 8)}`, targetType: 'agent', targetId: agent.id })
    ).body;
    const before = await recordsOf(agent.id);

    const hook = (deliveryId: string) =>
      fetch(`${server.url}/hook/${webhook.token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-webhook-delivery': deliveryId },
        body: JSON.stringify({ task: 'stand-in:text' }),
      }).then(async (response) => ({ status: response.status, body: await response.json() }));
    const deliveryId = `entrega-${randomUUID()}`;
    expect(await hook(deliveryId)).toEqual({ status: 409, body: { error: text } });
    // Sent again, the refused delivery is a new call, refused again (not a duplicate of a run).
    expect(await hook(deliveryId)).toEqual({ status: 409, body: { error: text } });
    expect(await call('POST', `/api/webhooks/${webhook.id}/test`)).toEqual({ status: 409, body: { error: text } });

    expect((await call('GET', '/api/webhooks')).body.find((item: any) => item.id === webhook.id)).toMatchObject({
      triggerCount: 0,
      lastTriggeredAt: null,
    });
    const deliveries = await query<RowDataPacket>(
      'SELECT delivery_id, refused, execution_id FROM webhook_deliveries WHERE webhook_id = ?',
      [webhook.id],
    );
    expect(deliveries.map((row) => ({ ...row }))).toEqual([{ delivery_id: deliveryId, refused: 'budget', execution_id: null }]);
    expect(await recordsOf(agent.id)).toBe(before);
  }, 120_000);

  it("stores a schedule's firing and a delegation past the budget as error records with the budget's text, a notification, and no process", async () => {
    const agent = await spentAgent('agendado');
    const text = await agentBudgetText(agent);
    const marker = randomUUID();
    const schedule = (
      await call('POST', '/api/schedules', {
        agentId: agent.id,
        taskDescription: `stand-in:text agendado ${marker}`,
        cronExpression: '0 9 * * *',
      })
    ).body;
    await server.resources.temporal.client.schedule.getHandle(agentScheduleId(schedule.id)).trigger();
    const scheduled = await until(
      'the firing stored',
      async () => (await query<RowDataPacket>("SELECT id FROM executions WHERE schedule_id = ? AND source = 'schedule'", [schedule.id]))[0],
      (row) => row !== undefined,
    );
    const record = await until(
      'its report',
      () => detail(scheduled!.id),
      (found) => found.reportFile !== null,
    );
    expect(record).toMatchObject({ status: 'error', error: text, source: 'schedule', sessionId: null, costUsd: null });

    // A run of another agent, delegating its result to the agent past its budget.
    const delegating = await agents.standInAgent('delega', { delegateTo: agent.id });
    const first = await runToEnd(delegating.id, `stand-in:text ${marker}`);
    expect(first).toMatchObject({ type: 'execution_complete' });
    const delegated = await until(
      'the delegated record',
      async () => (await query<RowDataPacket>('SELECT id FROM executions WHERE delegated_from = ?', [first.executionId]))[0],
      (row) => row !== undefined,
    );
    expect(
      await until(
        'its report',
        () => detail(delegated!.id),
        (found) => found.reportFile !== null,
      ),
    ).toMatchObject({
      status: 'error',
      error: await agentBudgetText(agent),
      source: 'delegation',
      sessionId: null,
      costUsd: null,
    });

    const notifications = (await call('GET', '/api/notifications?pageSize=100')).body.notifications as any[];
    for (const id of [scheduled!.id, delegated!.id]) {
      expect(notifications.find((item) => item.executionId === id)).toMatchObject({
        title: 'Execução falhou',
        message: expect.stringContaining('foi atingido'),
      });
    }
    // Neither reached the model.
    expect(model.messages().filter((request) => (promptsOf(request.body).at(-1) ?? '').includes(`agendado ${marker}`))).toHaveLength(0);
  }, 180_000);

  it('refuses an automatic retry once the global budget is exhausted: the record ends error with the budget and the failure', async () => {
    const agent = await agents.standInAgent('tenta', { retryOnFailure: true, maxRetries: 2, timeout: 4_000 });
    const { probe, clientId } = await connect();
    const task = `stand-in:slow deltas=600 every=100 ${randomUUID()}`;
    const answer = await call('POST', `/api/agents/${agent.id}/execute`, { task, instructions: '' }, clientId);
    expect(answer.status).toBe(202);
    // While the first attempt runs (it times out after 4 s), the global budget is set below today's spending.
    await until(
      'the attempt asked the model',
      async () => model.messages().some((request) => promptsOf(request.body).at(-1) === task),
      (asked) => asked,
    );
    try {
      expect((await call('PUT', '/api/settings', { dailyBudgetUsd: TINY_BUDGET })).status).toBe(200);
      const received = await untilFinal(probe, answer.body.executionId);
      expect(received.filter((message) => message.type === 'execution_retry')).toHaveLength(0);
      const final = received.at(-1);
      expect(final).toMatchObject({ type: 'execution_error' });
      expect(final.data.error).toMatch(
        /^O orçamento diário global de US\$ 0\.0001 foi atingido: .+\. Nova tentativa não feita; a tentativa 1 falhou: a execução excedeu o tempo limite de 4 s e foi encerrada$/,
      );
      expect(await detail(answer.body.executionId)).toMatchObject({ status: 'error', attempt: 1, error: final.data.error });

      // The global budget refuses any agent's start, and the status and statistics show it beside today's spending.
      const other = await agents.standInAgent('sem-orcamento');
      const refused = await call('POST', `/api/agents/${other.id}/execute`, { task: 'stand-in:text', instructions: '' });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatch(/^O orçamento diário global de US\$ 0\.0001 foi atingido/);
      const status = (await call('GET', '/api/system/status')).body;
      expect(status.costs.budgets).toMatchObject({
        global: { limitUsd: TINY_BUDGET, exhausted: true, remainingUsd: 0 },
        resetsAt: utcDay(new Date()).end.toISOString(),
      });
      // Spent as counted when each cost was stored (deleting history, as other suites do, gives nothing back).
      const [counted] = await query<RowDataPacket>('SELECT SUM(cost_usd) AS spent FROM agent_daily_costs WHERE day = ?', [
        utcDay(new Date()).start.toISOString().slice(0, 10),
      ]);
      expect(status.costs.budgets.global.spentUsd).toBe(roundUsd(Number(counted!.spent)));
      const costs = (await call('GET', '/api/stats/costs?days=1')).body;
      expect(costs.budgets.global).toEqual(status.costs.budgets.global);
    } finally {
      expect((await call('PUT', '/api/settings', { dailyBudgetUsd: null })).status).toBe(200);
    }
  }, 120_000);

  it("shows each agent's budget beside its spending in the statistics", async () => {
    const agent = await spentAgent('nas-estatisticas');
    const costs = (await call('GET', '/api/stats/costs')).body;
    const shown = costs.budgets.agents.find((item: any) => item.agentId === agent.id);
    expect(shown).toEqual({
      agentId: agent.id,
      name: agent.name,
      limitUsd: TINY_BUDGET,
      spentUsd: roundUsd(await spentBy(agent.id)),
      remainingUsd: 0,
      exhausted: true,
    });
    expect(costs.budgets.global).toBeNull();
  }, 120_000);

  describe('a pipeline whose step agent is past its budget', () => {
    let stepAgent: { id: string; name: string };
    beforeAll(async () => {
      stepAgent = await spentAgent('etapa', { workingDirectory: '' });
    }, 120_000);

    async function pipeline(name: string, steps: number, approvalTimeoutSeconds?: number): Promise<string> {
      const created = await call('POST', '/api/pipelines', {
        name: `${name} ${randomUUID().slice(0, 8)}`,
        description: '',
        workingDirectory: path.join(agents.workArea, name),
        steps: Array.from({ length: steps }, () => ({
          agentId: stepAgent.id,
          inputTemplate: 'stand-in:text\n{{input}}',
          description: '',
          requiresApproval: false,
          ...(approvalTimeoutSeconds !== undefined ? { approvalTimeoutSeconds } : {}),
        })),
      });
      expect(created.status).toBe(201);
      return created.body.id;
    }

    async function pausedRun(name: string, steps: number, approvalTimeoutSeconds?: number) {
      const pipelineId = await pipeline(name, steps, approvalTimeoutSeconds);
      const { probe, clientId } = await connect();
      const started = await call('POST', `/api/pipelines/${pipelineId}/execute`, { input: 'entrada' }, clientId);
      expect(started).toMatchObject({ status: 202, body: { status: 'started' } });
      const runId = started.body.executionId;
      const paused = await untilPipelineMessage(probe, pipelineId, 'pipeline_approval_required');
      const text = await agentBudgetText(stepAgent);
      expectBudgetPause(paused, { pipelineId, executionId: runId, previousOutput: text, agentId: stepAgent.id, limitUsd: TINY_BUDGET });
      expect(await detail(runId)).toMatchObject({ status: 'awaiting_approval' });
      return { pipelineId, runId, probe };
    }

    it('pauses before the step; approved, it runs past the budget to the end without pausing again', async () => {
      const { pipelineId, runId, probe } = await pausedRun('aprovado', 2);
      expect(await call('POST', `/api/pipelines/${pipelineId}/approve`)).toEqual({ status: 200, body: { approved: true } });
      const rest = await untilPipelineMessage(probe, pipelineId, 'pipeline_complete');
      expect(rest.filter((message) => message.type === 'pipeline_step_complete').map((message) => message.stepIndex)).toEqual([0, 1]);
      expect(rest.some((message) => message.type === 'pipeline_approval_required')).toBe(false);
      expect(await detail(runId)).toMatchObject({ status: 'completed' });
    }, 180_000);

    it('pauses before the step; rejected, the run ends rejected', async () => {
      const { pipelineId, runId, probe } = await pausedRun('rejeitado', 1);
      expect(await call('POST', `/api/pipelines/${runId}/reject`)).toEqual({ status: 200, body: { rejected: true } });
      await untilPipelineMessage(probe, pipelineId, 'pipeline_rejected');
      expect(await detail(runId)).toMatchObject({ status: 'rejected', error: 'rejeitado no passo 1' });
    }, 120_000);

    it('pauses before the step until its approval timeout, then ends rejected', async () => {
      const { pipelineId, runId, probe } = await pausedRun('expirado', 1, 2);
      expect((await untilPipelineMessage(probe, pipelineId, 'pipeline_rejected')).at(-1)).toMatchObject({ reason: 'timeout' });
      expect(await detail(runId)).toMatchObject({ status: 'rejected', error: 'a aprovação do passo 1 expirou' });
    }, 120_000);
  });
});
