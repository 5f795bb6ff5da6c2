import { randomUUID } from 'node:crypto';
import { ScheduleOverlapPolicy } from '@temporalio/client';
import { config as baseConfig } from '../../lib/config';
import { logger } from '../../lib/logger';
import { withTimeout } from '../../lib/timeout';
import { reconcileSchedules } from '../../services/schedules';
import { agentScheduleId } from '../../temporal/agent-schedules';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import type { TestServer } from '../support/server';
import { connectClient, type SocketProbe } from '../support/websocket';
import { jsonCall } from '../support/json-api';
import { FINAL_EXECUTION_MESSAGE_TYPES } from '../../lib/live-output';

/**
 * A schedule's firing end to end (docs/tasks-schedules.md), with the real Claude Code CLI against the
 * stand-in model: the Temporal Schedule is triggered now (handle.trigger(), rather than waiting for
 * the cron), its workflow stores a record with source `schedule` and the schedule's id, runs the agent,
 * and every client hears it (contract 3.5: scheduled runs are broadcast); GET /schedules/history lists
 * it newest first (row 25).
 */

describe('scheduled runs, with the real CLI', () => {
  let agents: RealAgents;
  let server: TestServer;
  const probes: SocketProbe[] = [];

  beforeAll(async () => {
    agents = await startRealAgents({
      name: 'schedules',
      maxConcurrent: 4,
      // Before the worker, whose start reconciles the schedules' rows with Temporal.
      beforeWorker: async (started) => {
        await started.resources.database.pool.query('DELETE FROM schedules');
      },
    });
    ({ server } = agents);
  }, 60_000);

  afterAll(async () => {
    for (const probe of probes) probe.socket.terminate();
    await server?.resources.database.pool.query('DELETE FROM schedules');
    if (server) {
      const deps = {
        db: server.resources.database.db,
        temporal: server.resources.temporal.client,
        logger,
        timezone: baseConfig.orchestration.scheduleTimezone,
      };
      await reconcileSchedules(deps).catch(() => undefined);
    }
    await agents?.close();
  });

  const call = (method: string, route: string, body?: unknown) => jsonCall(server.url, method, route, body, 'painel-agendamentos');

  async function connect(clientId: string): Promise<SocketProbe> {
    const probe = await connectClient(server.url, clientId);
    probes.push(probe);
    return probe;
  }

  /** The messages of the first execution of `agentId` the probe hears, up to its final one. */
  async function firstRunOf(probe: SocketProbe, agentId: string): Promise<any[]> {
    const received: any[] = [];
    for (;;) {
      const message: any = await withTimeout(probe.nextMessage(), 90_000, `messages of agent ${agentId}`);
      if (message.agentId !== agentId || (received.length > 0 && message.executionId !== received[0].executionId)) continue;
      received.push(message);
      if (FINAL_EXECUTION_MESSAGE_TYPES.includes(message.type)) return received;
    }
  }

  it('a triggered Schedule runs the task as a record with source schedule, broadcast to every client, listed in the schedule history', async () => {
    const { id: agentId, name: agentName } = await agents.standInAgent('agendado');
    const task = `stand-in:text agendado ${randomUUID()}`;
    const schedule = await call('POST', '/api/schedules', { agentId, taskDescription: task, cronExpression: '0 9 * * *' });
    expect(schedule.status).toBe(201);

    // Two panels, neither of which started anything.
    const first = await connect(`painel-${randomUUID()}`);
    const second = await connect(`painel-${randomUUID()}`);
    await server.resources.temporal.client.schedule.getHandle(agentScheduleId(schedule.body.id)).trigger();

    const [heardByFirst, heardBySecond] = await Promise.all([firstRunOf(first, agentId), firstRunOf(second, agentId)]);
    const executionId: string = heardByFirst[0].executionId;
    expect(heardBySecond.map((message) => [message.type, message.executionId])).toEqual(
      heardByFirst.map((message) => [message.type, message.executionId]),
    );
    expect(heardByFirst.map((message) => message.type)).toEqual(expect.arrayContaining(['execution_started', 'execution_complete']));
    expect(heardByFirst.at(-1)).toMatchObject({
      type: 'execution_complete',
      executionId,
      agentId,
      agentName,
      status: 'completed',
      data: { result: 'Stand-in answer in four parts.' },
    });

    const history = await call('GET', '/api/schedules/history');
    expect(history.status).toBe(200);
    expect(history.body[0]).toMatchObject({
      id: executionId,
      executionId,
      type: 'agent',
      agentId,
      agentName,
      task,
      instructions: '',
      status: 'completed',
      source: 'schedule',
      scheduleId: schedule.body.id,
      result: 'Stand-in answer in four parts.',
    });
    expect(history.body.every((record: { source: string }) => record.source === 'schedule')).toBe(true);
    expect((await call('GET', `/api/executions/history/${executionId}`)).body).toMatchObject({
      source: 'schedule',
      scheduleId: schedule.body.id,
      status: 'completed',
    });
    expect((await call('GET', '/api/schedules/history?limit=1')).body).toHaveLength(1);
    expect((await call('GET', '/api/schedules/history?limit=0')).status).toBe(400);
    expect((await call('GET', '/api/schedules/history?page=2')).status).toBe(400);
  }, 120_000);

  it("the panel's cancel ends a scheduled run canceled; a firing while it runs is skipped (overlap skip)", async () => {
    const { id: agentId } = await agents.standInAgent('lento');
    const schedule = (
      await call('POST', '/api/schedules', {
        agentId,
        taskDescription: `stand-in:slow deltas=600 every=100 ${randomUUID()}`,
        cronExpression: '0 9 * * *',
      })
    ).body;
    const probe = await connect(`painel-${randomUUID()}`);
    const handle = server.resources.temporal.client.schedule.getHandle(agentScheduleId(schedule.id));
    // Both firings under the Schedule's own policy (skip): trigger() alone would allow all, and Temporal
    // does not track what it starts that way.
    await handle.trigger(ScheduleOverlapPolicy.SKIP);
    // Running: its first output line has arrived.
    let executionId: string;
    for (;;) {
      const message: any = await withTimeout(probe.nextMessage(), 90_000, 'the slow run');
      if (message.agentId === agentId && message.type === 'execution_output') {
        executionId = message.executionId;
        break;
      }
    }
    // A second firing now: the first firing's workflow lasts as long as its run, so Temporal skips it.
    await handle.trigger(ScheduleOverlapPolicy.SKIP);
    for (let pass = 0; (await handle.describe()).info.numActionsSkippedOverlap < 1; pass++) {
      if (pass > 100) throw new Error('the overlapping firing was never skipped');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await handle.describe()).info.numActionsSkippedOverlap).toBe(1);

    expect(await call('POST', `/api/agents/${agentId}/cancel/${executionId}`)).toMatchObject({ status: 200, body: { cancelled: true } });
    const messages = await firstRunOf(probe, agentId);
    expect(messages.at(-1)).toMatchObject({ type: 'execution_canceled', executionId, data: { canceled: true } });
    const records = ((await call('GET', '/api/schedules/history')).body as any[]).filter((record) => record.scheduleId === schedule.id);
    expect(records).toEqual([expect.objectContaining({ id: executionId, status: 'canceled', source: 'schedule' })]);
  }, 120_000);

  it('a run delegated by a scheduled run is broadcast like it (contract 4.2), keeping the schedule it came from', async () => {
    const delegate = await agents.standInAgent('delegado');
    const { id: agentId } = await agents.standInAgent('agenda-delega', { delegateTo: delegate.id });
    const schedule = await call('POST', '/api/schedules', {
      agentId,
      taskDescription: `stand-in:text ${randomUUID()}`,
      cronExpression: '0 9 * * *',
    });
    expect(schedule.status).toBe(201);
    // Two panels, neither of which started anything: both must see the delegated run from start to end.
    const first = await connect(`painel-${randomUUID()}`);
    const second = await connect(`painel-${randomUUID()}`);
    await server.resources.temporal.client.schedule.getHandle(agentScheduleId(schedule.body.id)).trigger();

    const [heardByFirst, heardBySecond] = await Promise.all([firstRunOf(first, delegate.id), firstRunOf(second, delegate.id)]);
    for (const heard of [heardByFirst, heardBySecond]) {
      expect(heard.map((message) => message.type)).toEqual(
        expect.arrayContaining(['execution_started', 'execution_output', 'execution_complete']),
      );
      expect(heard.at(-1)).toMatchObject({ type: 'execution_complete', agentId: delegate.id, source: 'delegation', status: 'completed' });
    }
    const delegated = (await call('GET', `/api/executions/history/${heardByFirst[0].executionId}`)).body;
    expect(delegated).toMatchObject({
      source: 'delegation',
      scheduleId: schedule.body.id,
      status: 'completed',
      task: 'Stand-in answer in four parts.',
    });
  }, 120_000);

  it('a firing whose agent is inactive stores nothing', async () => {
    const created = await call('POST', '/api/agents', {
      agent_name: `inativo ${randomUUID().slice(0, 8)}`,
      description: '',
      tags: [],
      status: 'inactive',
      config: { model: 'claude-sonnet-4-6' },
    });
    const schedule = await call('POST', '/api/schedules', {
      agentId: created.body.id,
      taskDescription: 'nada',
      cronExpression: '0 9 * * *',
    });
    expect(schedule.status).toBe(201);
    const handle = server.resources.temporal.client.schedule.getHandle(agentScheduleId(schedule.body.id));
    await handle.trigger();
    // The firing's workflow ends with no record: wait for it through Temporal, then look.
    let runs: string[] = [];
    for (let pass = 0; runs.length === 0; pass++) {
      if (pass > 100) throw new Error('the triggered firing never started');
      runs = (await handle.describe()).info.recentActions.map((action) => action.action.workflow.workflowId);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const result = await server.resources.temporal.client.workflow.getHandle(runs[0]!).result();
    expect(result).toEqual({ executionId: null });
    const [rows] = await server.resources.database.pool.query<any[]>('SELECT COUNT(*) AS n FROM executions WHERE schedule_id = ?', [
      schedule.body.id,
    ]);
    expect(Number(rows[0].n)).toBe(0);
  }, 60_000);
});
