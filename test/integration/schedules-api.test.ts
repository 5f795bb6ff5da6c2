import { randomUUID } from 'node:crypto';
import { ScheduleNotFoundError, ScheduleOverlapPolicy } from '@temporalio/client';
import { CronExpressionParser } from 'cron-parser';
import type { RowDataPacket } from 'mysql2/promise';
import { config as baseConfig } from '../../lib/config';
import { logger } from '../../lib/logger';
import { reconcileSchedules, type ScheduleDeps } from '../../services/schedules';
import { agentScheduleId } from '../../temporal/agent-schedules';
import { TASK_QUEUES } from '../../temporal/task-queues';
import { startAgentsWorker } from '../../workers/agents';
import { startTestServer, type TestServer } from '../support/server';
import { jsonCall } from '../support/json-api';
import { createPanelAgent } from '../support/panel-agents';

/**
 * The schedules routes as the panel calls them (contract rows 21-24, 3.5, 5.3, 7.9) and their
 * Temporal Schedules (docs/tasks-schedules.md): values in and out, cron refused before anything is
 * stored, the minimum interval, pause, delete by the stored id, and the reconciler of the agents
 * worker (a missing Schedule recreated, a differing one updated, an orphan deleted, a foreign one
 * untouched).
 */

let server: TestServer;
let deps: ScheduleDeps;
const TIMEZONE = baseConfig.orchestration.scheduleTimezone;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

beforeAll(async () => {
  server = await startTestServer();
  deps = { db: server.resources.database.db, temporal: server.resources.temporal.client, logger, timezone: TIMEZONE };
  // The suite's own database and namespace: no rows, then no agent-schedule-* Schedules either.
  await server.resources.database.pool.query('DELETE FROM schedules');
  await reconcileSchedules(deps);
});

afterAll(async () => {
  await server?.resources.database.pool.query('DELETE FROM schedules');
  if (deps) await reconcileSchedules(deps).catch(() => undefined);
  await server?.close();
});

const call = (method: string, route: string, body?: unknown) => jsonCall(server.url, method, route, body, 'painel-schedules');

function agent(name: string): Promise<{ id: string; name: string }> {
  return createPanelAgent(server.url, name, { clientId: 'painel-schedules' });
}

async function rows(): Promise<number> {
  const [result] = await server.resources.database.pool.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM schedules');
  return Number(result[0]?.n);
}

const describeSchedule = (id: string) => server.resources.temporal.client.schedule.getHandle(agentScheduleId(id)).describe();

async function scheduleGone(id: string): Promise<boolean> {
  try {
    await describeSchedule(id);
    return false;
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return true;
    throw error;
  }
}

/** The next firing of `cron` in the schedules' time zone, as cron-parser computes it. */
const nextFiring = (cron: string) => CronExpressionParser.parse(cron, { tz: TIMEZONE }).next().toDate().toISOString();

describe('schedules', () => {
  it('creates a schedule with the panel body: the view, its Temporal Schedule and next run', async () => {
    const owner = await agent('agendado');
    const created = await call('POST', '/api/schedules', {
      agentId: owner.id,
      taskDescription: 'Revise os PRs abertos',
      cronExpression: '0 9 * * 1',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      taskId: null,
      agentId: owner.id,
      agentName: owner.name,
      taskDescription: 'Revise os PRs abertos',
      cronExpression: '0 9 * * 1',
      cronExpr: '0 9 * * 1',
      active: true,
      nextRun: nextFiring('0 9 * * 1'),
      createdAt: expect.stringMatching(ISO_TIME),
      updatedAt: expect.stringMatching(ISO_TIME),
      created_at: created.body.createdAt,
      updated_at: created.body.updatedAt,
    });
    const description = await describeSchedule(created.body.id);
    expect(description.state.paused).toBe(false);
    expect(description.policies.overlap).toBe(ScheduleOverlapPolicy.SKIP);
    expect(description.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'scheduledAgentRunWorkflow',
      taskQueue: TASK_QUEUES.agents,
      args: [{ scheduleId: created.body.id, cronExpression: '0 9 * * 1', timezone: TIMEZONE }],
    });

    const list = await call('GET', '/api/schedules');
    expect(list.status).toBe(200);
    expect(list.body).toContainEqual(created.body);
  });

  it('updates (absent fields kept), pauses and resumes, and deletes by the stored id; the dashboard counts them', async () => {
    const owner = await agent('editado');
    const other = await agent('outro');
    const counted = async () => (await call('GET', '/api/system/status')).body.schedules;
    const before = await counted();
    const created = (await call('POST', '/api/schedules', { agentId: owner.id, taskDescription: 'Tarefa', cronExpression: '0 * * * *' }))
      .body;
    expect(await counted()).toEqual({ total: before.total + 1, active: before.active + 1 });

    const updated = await call('PUT', `/api/schedules/${created.id}`, {
      agentId: other.id,
      taskDescription: 'Nova tarefa',
      cronExpression: '30 18 * * 1-5',
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      id: created.id,
      agentId: other.id,
      agentName: other.name,
      taskDescription: 'Nova tarefa',
      cronExpression: '30 18 * * 1-5',
      cronExpr: '30 18 * * 1-5',
      active: true,
      nextRun: nextFiring('30 18 * * 1-5'),
      createdAt: created.createdAt,
    });
    expect((await describeSchedule(created.id)).action).toMatchObject({ args: [{ cronExpression: '30 18 * * 1-5' }] });

    const paused = await call('PUT', `/api/schedules/${created.id}`, { active: false });
    expect(paused.body).toMatchObject({ active: false, nextRun: null, taskDescription: 'Nova tarefa', cronExpression: '30 18 * * 1-5' });
    expect((await describeSchedule(created.id)).state.paused).toBe(true);
    expect(await counted()).toEqual({ total: before.total + 1, active: before.active });
    const resumed = await call('PUT', `/api/schedules/${created.id}`, { active: true });
    expect(resumed.body).toMatchObject({ active: true, nextRun: nextFiring('30 18 * * 1-5') });
    expect((await describeSchedule(created.id)).state.paused).toBe(false);
    // Nothing to change is refused, not a silent 200 (found by schemathesis).
    expect(await call('PUT', `/api/schedules/${created.id}`, {})).toMatchObject({
      status: 400,
      body: { error: 'body: Informe ao menos um de agentId, taskDescription, cronExpression, active, taskId' },
    });

    expect((await call('DELETE', `/api/schedules/${created.id}`)).status).toBe(204);
    expect(await scheduleGone(created.id)).toBe(true);
    expect(await counted()).toEqual(before);
    expect((await call('DELETE', `/api/schedules/${created.id}`)).status).toBe(404);
    expect((await call('PUT', `/api/schedules/${created.id}`, { active: true })).status).toBe(404);
    expect((await call('GET', '/api/schedules')).body.map((schedule: { id: string }) => schedule.id)).not.toContain(created.id);
  });

  it("deletes an agent's schedules with the agent: rows and Temporal Schedules; another agent's stay", async () => {
    const doomed = await agent('removido');
    const kept = await agent('mantido');
    const first = (await call('POST', '/api/schedules', { agentId: doomed.id, taskDescription: 'Um', cronExpression: '0 9 * * *' })).body;
    const second = (await call('POST', '/api/schedules', { agentId: doomed.id, taskDescription: 'Dois', cronExpression: '0 10 * * *' }))
      .body;
    const other = (await call('POST', '/api/schedules', { agentId: kept.id, taskDescription: 'Três', cronExpression: '0 11 * * *' })).body;
    const before = await rows();

    expect((await call('DELETE', `/api/agents/${doomed.id}`)).status).toBe(204);
    expect(await scheduleGone(first.id)).toBe(true);
    expect(await scheduleGone(second.id)).toBe(true);
    expect(await rows()).toBe(before - 2);
    const listed = (await call('GET', '/api/schedules')).body.map((schedule: { id: string }) => schedule.id);
    expect(listed).not.toContain(first.id);
    expect(listed).not.toContain(second.id);
    expect(listed).toContain(other.id);
    expect((await describeSchedule(other.id)).state.paused).toBe(false);
    expect((await call('DELETE', `/api/agents/${doomed.id}`)).status).toBe(404);
    expect((await call('DELETE', `/api/schedules/${other.id}`)).status).toBe(204);
  });

  it('refuses a bad cron, a too frequent one, a bad body and an unknown agent, storing nothing', async () => {
    const owner = await agent('recusado');
    const before = await rows();
    const cases: [unknown, number, RegExp][] = [
      [
        { agentId: owner.id, taskDescription: 't', cronExpression: 'not a cron' },
        400,
        /^Expressão cron inválida: "not a cron" \(cinco campos: minuto hora dia mês dia-da-semana\)$/,
      ],
      [
        { agentId: owner.id, taskDescription: 't', cronExpression: '61 * * * *' },
        400,
        /^Expressão cron inválida: "61 \* \* \* \*"; o analisador diz: \S/,
      ],
      [
        { agentId: owner.id, taskDescription: 't', cronExpression: '0 9 * *' },
        400,
        /^Expressão cron inválida: "0 9 \* \*" \(cinco campos: minuto hora dia mês dia-da-semana\)$/,
      ],
      [
        { agentId: owner.id, taskDescription: 't', cronExpression: '0 9 31 2 *' },
        400,
        /^Expressão cron inválida: "0 9 31 2 \*"; o analisador diz: \S/,
      ],
      [{ agentId: owner.id, taskDescription: 't', cronExpression: '@hourly' }, 400, /^Expressão cron inválida: "@hourly" /],
      // The minimum interval (contract 3.5): nothing more often than every 5 minutes.
      [
        { agentId: owner.id, taskDescription: 't', cronExpression: '* * * * *' },
        400,
        /^A expressão cron \* \* \* \* \* dispara a cada 1 minuto: o intervalo mínimo é de 5 minutos$/,
      ],
      [
        { agentId: owner.id, taskDescription: 't', cronExpression: '*/4 * * * *' },
        400,
        /dispara a cada 4 minutos: o intervalo mínimo é de 5 minutos$/,
      ],
      [{ agentId: owner.id, taskDescription: 't', cronExpression: '* 9 * * *' }, 400, /dispara a cada 1 minuto:/],
      [{ agentId: owner.id, taskDescription: 't', cronExpression: '58,1 * * * *' }, 400, /dispara a cada 3 minutos:/],
      [{ agentId: owner.id, taskDescription: '', cronExpression: '0 9 * * *' }, 400, /body.taskDescription/],
      [{ agentId: owner.id, cronExpression: '0 9 * * *' }, 400, /body.taskDescription/],
      [{ agentId: owner.id, taskDescription: 't', cronExpression: '0 9 * * *', extra: 1 }, 400, /extra/],
      [{ agentId: owner.id, taskDescription: 'x'.repeat(50_001), cronExpression: '0 9 * * *' }, 400, /body.taskDescription/],
      [{ agentId: randomUUID(), taskDescription: 't', cronExpression: '0 9 * * *' }, 404, /^Agente não encontrado: /],
    ];
    for (const [body, status, message] of cases) {
      const answer = await call('POST', '/api/schedules', body);
      expect({ body, status: answer.status }).toEqual({ body, status });
      expect(answer.body.error).toMatch(message);
    }
    expect(await rows()).toBe(before);
    // Every-5-minutes is the limit itself: accepted.
    const limit = await call('POST', '/api/schedules', { agentId: owner.id, taskDescription: 't', cronExpression: '*/5 * * * *' });
    expect(limit.status).toBe(201);
    // An update with a bad cron leaves the row and its Schedule as they were.
    const refused = await call('PUT', `/api/schedules/${limit.body.id}`, { cronExpression: '*/2 * * * *' });
    expect(refused.status).toBe(400);
    expect((await call('GET', '/api/schedules')).body.find((schedule: { id: string }) => schedule.id === limit.body.id)).toMatchObject({
      cronExpression: '*/5 * * * *',
    });
    expect((await describeSchedule(limit.body.id)).action).toMatchObject({ args: [{ cronExpression: '*/5 * * * *' }] });
    expect((await call('DELETE', `/api/schedules/${limit.body.id}`)).status).toBe(204);
  });

  it('reconciles when the agents worker starts: recreates, updates, deletes orphans, leaves foreign Schedules alone', async () => {
    const owner = await agent('reconciliado');
    const client = server.resources.temporal.client;
    const missing = (await call('POST', '/api/schedules', { agentId: owner.id, taskDescription: 'perdido', cronExpression: '0 9 * * *' }))
      .body;
    const differing = (await call('POST', '/api/schedules', { agentId: owner.id, taskDescription: 'mudado', cronExpression: '0 9 * * *' }))
      .body;
    const orphan = (await call('POST', '/api/schedules', { agentId: owner.id, taskDescription: 'órfão', cronExpression: '0 9 * * *' }))
      .body;
    const foreignId = `foreign-schedule-${randomUUID()}`;
    await client.schedule.create({
      scheduleId: foreignId,
      spec: { cronExpressions: ['0 0 1 1 *'] },
      action: { type: 'startWorkflow', workflowType: 'probeWorkflow', taskQueue: TASK_QUEUES.agents, workflowId: foreignId },
      state: { paused: true },
    });
    try {
      await client.schedule.getHandle(agentScheduleId(missing.id)).delete();
      await server.resources.database.pool.query("UPDATE schedules SET cron_expression = '15 10 * * *', active = 0 WHERE id = ?", [
        differing.id,
      ]);
      await server.resources.database.pool.query('DELETE FROM schedules WHERE id = ?', [orphan.id]);

      // Temporal's list is eventually consistent: the orphan may take a moment to be listed.
      const worker = await startAgentsWorker(baseConfig, logger);
      await worker.stop();
      for (let pass = 0; !(await scheduleGone(orphan.id)); pass++) {
        if (pass > 50) throw new Error('the orphan Schedule was never deleted');
        await new Promise((resolve) => setTimeout(resolve, 200));
        await reconcileSchedules(deps);
      }

      expect((await describeSchedule(missing.id)).action).toMatchObject({
        args: [{ scheduleId: missing.id, cronExpression: '0 9 * * *' }],
      });
      const updated = await describeSchedule(differing.id);
      expect(updated.action).toMatchObject({ args: [{ cronExpression: '15 10 * * *' }] });
      expect(updated.state.paused).toBe(true);
      expect((await call('GET', '/api/schedules')).body.find((schedule: { id: string }) => schedule.id === differing.id)).toMatchObject({
        active: false,
        nextRun: null,
      });
      expect((await client.schedule.getHandle(foreignId).describe()).scheduleId).toBe(foreignId);
      // A second pass changes nothing.
      expect(await reconcileSchedules(deps)).toMatchObject({ created: 0, updated: 0 });
    } finally {
      await client.schedule.getHandle(foreignId).delete();
    }
  }, 60_000);
});
