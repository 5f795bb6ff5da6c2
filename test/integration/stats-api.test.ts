import { randomUUID } from 'node:crypto';
import { createDatabase, type DatabaseHandle } from '../../db';
import { createExecution, finishExecution, markExecutionRunning, type ExecutionResult, type NewExecution } from '../../db/executions-store';
import { config } from '../../lib/config';
import { jsonCall } from '../support/json-api';
import { startTestServer, type TestServer } from '../support/server';

/**
 * GET /api/stats/charts and /api/stats/costs (contract 3.9; docs/statistics.md) over records seeded
 * with known dates, statuses, costs and tokens around today's UTC day: exact values per day, per
 * agent and per pipeline, the window's edges, pipeline runs not counted twice, bad `days`.
 */

let server: TestServer;
let database: DatabaseHandle;

const call = (route: string) => jsonCall(server.url, 'GET', route);

const DAY = 86_400_000;
const now = new Date();
/** Today's UTC midnight; D(k) is k days before it. */
const TODAY = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
const D = (k: number, time = '12:00:00.000') => new Date(`${new Date(TODAY - k * DAY).toISOString().slice(0, 10)}T${time}Z`);
const label = (k: number) => new Date(TODAY - k * DAY).toISOString().slice(0, 10);

const GONE_AGENT = randomUUID();
const PIPELINE = randomUUID();
const SOLO = ['Solo A', 'Solo B', 'Solo C', 'Solo D'];
let alpha: { id: string; name: string };

type Outcome = Partial<ExecutionResult> & { status: ExecutionResult['status'] };

/** A record created at `createdAt`, run, and finished with `outcome` (or left queued). */
async function seed(input: Partial<NewExecution> & { createdAt: Date }, outcome: Outcome | 'queued'): Promise<string> {
  const created = await createExecution(database.db, {
    kind: 'agent',
    agentId: alpha.id,
    agentName: 'Alpha (old name)',
    source: 'manual',
    task: 'a task',
    instructions: '',
    workingDirectory: '/tmp',
    model: 'sonnet',
    ...input,
  });
  if (outcome === 'queued') return created.id;
  await markExecutionRunning(database.db, created.id, new Date(input.createdAt.getTime() + 500));
  await finishExecution(database.db, created.id, { finishedAt: new Date(input.createdAt.getTime() + 1000), ...outcome });
  return created.id;
}

const tokens = (input: number, output: number, cacheRead = 0, cacheCreation = 0) => ({ input, output, cacheRead, cacheCreation });
const gone = { agentId: GONE_AGENT, agentName: 'Gone agent' };

beforeAll(async () => {
  database = createDatabase(config.mysql);
  await database.pool.query('DELETE FROM executions');
  server = await startTestServer();
  const created = await fetch(`${server.url}/api/agents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      agent_name: `Alpha ${randomUUID().slice(0, 8)}`,
      description: 'stats',
      tags: [],
      status: 'active',
      config: { systemPrompt: 'Be brief.', model: 'sonnet', maxTurns: 0 },
    }),
  });
  const agent = (await created.json()) as { id: string; agent_name: string };
  expect(created.status).toBe(201);
  alpha = { id: agent.id, name: agent.agent_name };

  // Today (D0): the day's last millisecond is in; the next day's first is not.
  await seed({ createdAt: D(0, '10:00:00.000') }, { status: 'completed', costUsd: 0.5, tokens: tokens(100, 10, 1000, 50) });
  await seed({ createdAt: D(0, '23:59:59.999') }, { status: 'error', costUsd: 0.25, tokens: tokens(200, 20) });
  await seed({ createdAt: D(0, '11:00:00.000') }, 'queued');
  await seed({ createdAt: D(-1, '00:00:00.000') }, { status: 'completed', costUsd: 9 });
  // D1: a canceled run that cost a little, and one whose cost rounds at the 4th decimal with it.
  await seed({ ...gone, createdAt: D(1, '12:00:00.000') }, { status: 'canceled', costUsd: 0.00003 });
  await seed({ ...gone, createdAt: D(1, '13:00:00.000') }, { status: 'completed', costUsd: 0.12344 });
  // D2: a pipeline run of two steps; the run's cost is the sum of its steps'.
  const run = await seed(
    { kind: 'pipeline', agentId: null, agentName: 'Release pipeline', pipelineId: PIPELINE, createdAt: D(2, '09:00:00.000') },
    { status: 'completed', costUsd: 0.3 },
  );
  await seed(
    { pipelineId: PIPELINE, pipelineExecutionId: run, stepIndex: 0, createdAt: D(2, '09:00:01.000') },
    { status: 'completed', costUsd: 0.1, tokens: tokens(10, 1) },
  );
  await seed(
    { ...gone, pipelineId: PIPELINE, pipelineExecutionId: run, stepIndex: 1, createdAt: D(2, '09:05:00.000') },
    { status: 'completed', costUsd: 0.2, tokens: tokens(20, 2) },
  );
  // D3: a run that failed at its second step, and its resume, whose cost includes the first run's step.
  const failed = await seed(
    { kind: 'pipeline', agentId: null, agentName: 'Release pipeline', pipelineId: PIPELINE, createdAt: D(3, '08:00:00.000') },
    { status: 'error', costUsd: 0.05 },
  );
  await seed(
    { pipelineId: PIPELINE, pipelineExecutionId: failed, stepIndex: 0, createdAt: D(3, '08:00:01.000') },
    { status: 'completed', costUsd: 0.05 },
  );
  await seed(
    { ...gone, pipelineId: PIPELINE, pipelineExecutionId: failed, stepIndex: 1, createdAt: D(3, '08:01:00.000') },
    { status: 'error', costUsd: 0 },
  );
  const resumed = await seed(
    {
      kind: 'pipeline',
      agentId: null,
      agentName: 'Release pipeline',
      pipelineId: PIPELINE,
      source: 'resume',
      resumedFrom: failed,
      resumedAtStep: 1,
      createdAt: D(3, '09:00:00.000'),
    },
    { status: 'completed', costUsd: 0.12 },
  );
  await seed(
    { ...gone, pipelineId: PIPELINE, pipelineExecutionId: resumed, stepIndex: 1, createdAt: D(3, '09:00:01.000') },
    { status: 'completed', costUsd: 0.07 },
  );
  // D4: four agents (gone) with one free run each.
  for (const name of SOLO) await seed({ agentId: randomUUID(), agentName: name, createdAt: D(4) }, { status: 'completed', costUsd: 0 });
  // D6 00:00:00.000 is the 7-day window's first instant; D7 23:59:59.999 the last one before it.
  await seed({ createdAt: D(6, '00:00:00.000') }, { status: 'completed', costUsd: 0.125 });
  await seed({ createdAt: D(7, '23:59:59.999') }, { status: 'completed', costUsd: 4 });
});

afterAll(async () => {
  await server?.close();
  await database?.pool.end();
});

describe('GET /api/stats/charts', () => {
  it('answers the last 7 UTC days: runs by outcome (steps not counted), the agent records’ cost per day, statuses and top agents over the window', async () => {
    const answer = await call('/api/stats/charts?days=7');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      labels: [6, 5, 4, 3, 2, 1, 0].map(label),
      successCounts: [1, 0, 4, 1, 1, 1, 1],
      errorCounts: [0, 0, 0, 1, 0, 0, 1],
      executionCounts: [1, 0, 4, 2, 1, 2, 3],
      // D3: 0.05 + 0 + 0.07 from the steps (the runs' 0.05 and 0.12 would count the first step twice); D1: 0.12347.
      costData: [0.125, 0, 0, 0.12, 0.3, 0.1235, 0.75],
      statusDistribution: { completed: 9, error: 2, canceled: 1, queued: 1 },
      // Agent records, steps included: Alpha 4 + 2 steps, Gone agent 2 + 3 steps; then the ties by name, five at most.
      topAgents: [
        { name: alpha.name, count: 6 },
        { name: 'Gone agent', count: 5 },
        { name: 'Solo A', count: 1 },
        { name: 'Solo B', count: 1 },
        { name: 'Solo C', count: 1 },
      ],
    });
  });

  it('days=1 is today only; no days is 7; an empty days is the default', async () => {
    const today = await call('/api/stats/charts?days=1');
    expect(today.body).toEqual({
      labels: [label(0)],
      successCounts: [1],
      errorCounts: [1],
      executionCounts: [3],
      costData: [0.75],
      statusDistribution: { completed: 1, error: 1, queued: 1 },
      topAgents: [{ name: alpha.name, count: 3 }],
    });
    const byDefault = await call('/api/stats/charts');
    expect(byDefault.body.labels).toEqual([6, 5, 4, 3, 2, 1, 0].map(label));
    expect((await call('/api/stats/charts?days=')).body).toEqual(byDefault.body);
    const month = await call('/api/stats/charts?days=30');
    expect(month.body.labels).toHaveLength(30);
    expect(month.body.labels[0]).toBe(label(29));
    // D7 enters the window: its 4.0 on the 8th label from the end.
    expect(month.body.costData.slice(-8)).toEqual([4, 0.125, 0, 0, 0.12, 0.3, 0.1235, 0.75]);
    expect(month.body.statusDistribution).toEqual({ completed: 10, error: 2, canceled: 1, queued: 1 });
  });
});

describe('GET /api/stats/costs', () => {
  it('answers what the agent records with a cost spent: total, per day, per agent, per pipeline, and their tokens', async () => {
    const answer = await call('/api/stats/costs?days=7');
    expect(answer.status).toBe(200);
    const days = [6, 5, 4, 3, 2, 1, 0];
    expect(answer.body).toEqual({
      totalCost: 1.4185,
      totalExecutions: 9,
      period: { days: 7, from: label(6), to: label(0) },
      topAgents: [
        { name: alpha.name, cost: 1.025, count: 5 },
        { name: 'Gone agent', cost: 0.3935, count: 4 },
      ],
      dailyCosts: Object.fromEntries(days.map((k, i) => [label(k), [0.125, 0, 0, 0.12, 0.3, 0.1235, 0.75][i]])),
      // Each daily budget beside today's spending (docs/budgets.md); agents of other suites keep theirs.
      budgets: { day: label(0), resetsAt: expect.any(String), global: null, agents: expect.any(Array) },
      tokens: { input: 330, output: 33, cacheRead: 1000, cacheCreation: 50 },
      byDay: [
        { date: label(6), cost: 0.125, count: 1, tokens: tokens(0, 0) },
        { date: label(3), cost: 0.12, count: 2, tokens: tokens(0, 0) },
        { date: label(2), cost: 0.3, count: 2, tokens: tokens(30, 3) },
        { date: label(1), cost: 0.1235, count: 2, tokens: tokens(0, 0) },
        { date: label(0), cost: 0.75, count: 2, tokens: tokens(300, 30, 1000, 50) },
      ],
      byAgent: [
        { agentId: alpha.id, name: alpha.name, cost: 1.025, count: 5, tokens: tokens(310, 31, 1000, 50) },
        { agentId: GONE_AGENT, name: 'Gone agent', cost: 0.3935, count: 4, tokens: tokens(20, 2) },
      ],
      // The steps of three runs (the failed one's first step once, though the resumed run's cost includes it).
      byPipeline: [{ pipelineId: PIPELINE, name: 'Release pipeline', cost: 0.42, runs: 3, steps: 4, tokens: tokens(30, 3) }],
    });
  });

  it('defaults to 30 days, which reach the record of 7 days ago', async () => {
    const answer = await call('/api/stats/costs');
    expect(answer.body).toMatchObject({ totalCost: 5.4185, totalExecutions: 10, period: { days: 30, from: label(29), to: label(0) } });
    expect(Object.keys(answer.body.dailyCosts)).toHaveLength(30);
    expect(answer.body.dailyCosts[label(7)]).toBe(4);
    expect(answer.body.topAgents[0]).toEqual({ name: alpha.name, cost: 5.025, count: 6 });
  });
});

describe('bad days', () => {
  it.each(['0', '366', '-1', '2.5', 'seven', '7&days=8', '7&other=1'])('days=%s answers 400 {error}', async (days) => {
    for (const route of ['charts', 'costs']) {
      const answer = await call(`/api/stats/${route}?days=${days}`);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ error: expect.stringContaining('query') });
    }
  });
});
