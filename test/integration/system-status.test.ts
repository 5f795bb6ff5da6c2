import { randomUUID } from 'node:crypto';
import { createDatabase, type DatabaseHandle } from '../../db';
import { createExecution } from '../../db/executions-store';
import { config } from '../../lib/config';
import { utcDay } from '../../domain/utc-day';
import { startTestServer, type TestServer } from '../support/server';

/** GET /api/system/status: the dashboard's counters (contract 3.11) beside the dependency checks (docs/system-status.md). */

let server: TestServer;
let database: DatabaseHandle;
const ids = ['dddddddd-0000-4000-8000-000000000001', 'dddddddd-0000-4000-8000-000000000002', 'dddddddd-0000-4000-8000-000000000003'];

beforeAll(async () => {
  database = createDatabase(config.mysql);
  server = await startTestServer();
});

afterAll(async () => {
  await database?.pool.query('DELETE FROM executions WHERE id IN (?)', [ids]);
  await server?.close();
  await database?.pool.end();
});

async function status() {
  const response = await fetch(`${server.url}/api/system/status`);
  expect(response.status).toBe(200);
  return (await response.json()) as any;
}

const execution = (id: string) => ({
  id,
  kind: 'agent' as const,
  agentId: null,
  agentName: 'Status probe',
  source: 'manual' as const,
  task: 't',
  instructions: '',
  workingDirectory: '/home/projetos',
  model: 'sonnet',
});

describe('GET /api/system/status', () => {
  it("answers the panel's counters with values, numbers only, beside the dependency checks", async () => {
    const before = await status();
    expect(before).toEqual({
      status: 'ok',
      checkedAt: expect.any(String),
      dependencies: expect.objectContaining({ mysql: { status: 'up', latencyMs: expect.any(Number) } }),
      agents: { total: expect.any(Number), active: expect.any(Number), inactive: expect.any(Number) },
      executions: { active: expect.any(Number), today: expect.any(Number) },
      schedules: { total: expect.any(Number), active: expect.any(Number) },
      pipelines: { total: expect.any(Number), active: expect.any(Number), running: expect.any(Number) },
      webhooks: { total: expect.any(Number), active: expect.any(Number) },
      // Each daily budget beside today's spending (docs/budgets.md); agents of other suites keep theirs.
      costs: {
        today: expect.any(Number),
        budgets: { day: new Date().toISOString().slice(0, 10), resetsAt: expect.any(String), global: null, agents: expect.any(Array) },
      },
    });

    // Other suites leave agents of both kinds: the counters are compared with their own earlier values.
    expect(before.agents.active + before.agents.inactive).toBe(before.agents.total);
    const agentIds: string[] = [];
    for (const agentStatus of ['active', 'inactive', 'inactive']) {
      const agent = await fetch(`${server.url}/api/agents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ agent_name: `Status agent ${agentStatus} ${Date.now()} ${agentIds.length}`, status: agentStatus }),
      });
      expect(agent.status).toBe(201);
      agentIds.push(((await agent.json()) as { id: string }).id);
    }

    // Pipelines: one active, one inactive (the counters by their status; runs: none started here).
    const pipelineIds: string[] = [];
    for (const pipelineStatus of ['active', 'inactive']) {
      const pipeline = await fetch(`${server.url}/api/pipelines`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Status pipeline ${pipelineStatus}`, status: pipelineStatus, steps: [{ agentId: agentIds[0] }] }),
      });
      expect(pipeline.status).toBe(201);
      pipelineIds.push(((await pipeline.json()) as { id: string }).id);
    }

    // Webhooks: two of the first agent, one of them paused (counted by their `active` flag).
    const webhookIds: string[] = [];
    for (const active of [true, false]) {
      const webhook = await fetch(`${server.url}/api/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Status webhook ${active}`, targetType: 'agent', targetId: agentIds[0] }),
      });
      expect(webhook.status).toBe(201);
      const { id } = (await webhook.json()) as { id: string };
      webhookIds.push(id);
      if (!active) {
        const paused = await fetch(`${server.url}/api/webhooks/${id}`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ active: false }),
        });
        expect(paused.status).toBe(200);
      }
    }

    // Two today (one still queued, one finished at a cost), one started and created yesterday (UTC).
    for (const id of ids) await createExecution(database.db, execution(id));
    const today = utcDay(new Date());
    const yesterday = new Date(today.start.getTime() - 60 * 60 * 1000);
    await database.pool.query("UPDATE executions SET status = 'completed', cost_usd = 0.12345, started_at = ? WHERE id = ?", [
      new Date(),
      ids[1],
    ]);
    await database.pool.query("UPDATE executions SET status = 'completed', cost_usd = 5, started_at = ?, created_at = ? WHERE id = ?", [
      yesterday,
      yesterday,
      ids[2],
    ]);
    // A pipeline run today whose one step cost 0.2: the run's cost is its step's, counted once (docs/statistics.md).
    const run = randomUUID();
    await createExecution(database.db, { ...execution(run), kind: 'pipeline', pipelineId: pipelineIds[0]! });
    await createExecution(database.db, { ...execution(randomUUID()), pipelineId: pipelineIds[0]!, pipelineExecutionId: run, stepIndex: 0 });
    await database.pool.query(
      "UPDATE executions SET status = 'completed', cost_usd = 0.2, started_at = ? WHERE id = ? OR pipeline_execution_id = ?",
      [new Date(), run, run],
    );

    const after = await status();
    expect(after.agents).toEqual({
      total: before.agents.total + 3,
      active: before.agents.active + 1,
      inactive: before.agents.inactive + 2,
    });
    // Runs as the panel counts them: the two agent runs of today and the pipeline run once, its step not again.
    expect(after.executions).toEqual({ active: before.executions.active + 1, today: before.executions.today + 3 });
    // Both answers are rounded to 4 decimals: other runs' costs today make `before` a rounded value, so the sum is compared within that rounding.
    expect(after.costs.today).toBeCloseTo(before.costs.today + 0.12345 + 0.2, 3);
    expect(Math.round(after.costs.today * 10_000) / 10_000).toBe(after.costs.today);

    expect(after.pipelines).toEqual({
      total: before.pipelines.total + 2,
      active: before.pipelines.active + 1,
      running: before.pipelines.running,
    });
    expect(after.webhooks).toEqual({ total: before.webhooks.total + 2, active: before.webhooks.active + 1 });
    for (const webhookId of webhookIds) await fetch(`${server.url}/api/webhooks/${webhookId}`, { method: 'DELETE' });
    for (const pipelineId of pipelineIds) await fetch(`${server.url}/api/pipelines/${pipelineId}`, { method: 'DELETE' });
    for (const agentId of agentIds) await fetch(`${server.url}/api/agents/${agentId}`, { method: 'DELETE' });
  });
});
