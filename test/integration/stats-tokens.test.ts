import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { getExecution } from '../../db/executions-store';
import { promptsOf, type StandInModel } from '../support/stand-in-model';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import type { TestServer } from '../support/server';
import { until } from '../support/waiting';
import { jsonCall } from '../support/json-api';

/**
 * Tokens end to end (docs/statistics.md, "Tokens"): an agent run by the real Claude Code CLI against
 * the stand-in model, whose message reports known usage; the record stores what the CLI's result
 * reported, the execution view answers it, and GET /api/stats/costs sums it.
 */

jest.setTimeout(120_000);

let agents: RealAgents;
let server: TestServer;
let model: StandInModel;
let workArea: string;

const call = (method: string, route: string, body?: unknown) => jsonCall(server.url, method, route, body);
const standInAgent = (name: string) => agents.standInAgent(name);

beforeAll(async () => {
  agents = await startRealAgents({
    name: 'stats-tokens',
    // Today's costs are this suite's alone (suites run one at a time).
    beforeWorker: async (started) => void (await started.resources.database.pool.query('DELETE FROM executions')),
  });
  ({ server, model, workArea } = agents);
}, 60_000);

afterAll(() => agents?.close());

/** The stand-in's message requests whose prompt holds `mark`. */
const holding = (mark: string) => (request: { body: unknown }) => promptsOf(request.body).some((prompt) => prompt.includes(mark));
const finished = (id: string) =>
  until(
    `${id} finished`,
    async () => (await call('GET', `/api/executions/history/${id}`)).body,
    (body) => ['completed', 'error', 'canceled', 'rejected'].includes(body?.status),
    90_000,
  );
const round4 = (value: number) => Math.round(value * 10_000) / 10_000;

const USAGE = { input_tokens: 2345, output_tokens: 67, cache_read_input_tokens: 89_012, cache_creation_input_tokens: 3_456 };
const STEP_USAGES = [
  { input_tokens: 1000, output_tokens: 20, cache_read_input_tokens: 5_000, cache_creation_input_tokens: 300 },
  { input_tokens: 2000, output_tokens: 40, cache_read_input_tokens: 7_000, cache_creation_input_tokens: 0 },
];
const asTokens = (usage: typeof USAGE) => ({
  input: usage.input_tokens,
  output: usage.output_tokens,
  cacheRead: usage.cache_read_input_tokens,
  cacheCreation: usage.cache_creation_input_tokens,
});
const asView = (usage: typeof USAGE) => ({
  inputTokens: usage.input_tokens,
  outputTokens: usage.output_tokens,
  cacheReadTokens: usage.cache_read_input_tokens,
  cacheCreationTokens: usage.cache_creation_input_tokens,
});

let agentRun: any;

it('stores the tokens the CLI reported for the stand-in’s usage and answers them in the view', async () => {
  const agent = await standInAgent('contador');
  const mark = `count-tokens-${randomUUID().slice(0, 8)}`;
  model.enqueue({ kind: 'text', text: 'Contado.', usage: USAGE, when: holding(mark) });

  const started = await call('POST', `/api/agents/${agent.id}/execute`, { task: `Conte os tokens. ${mark}`, instructions: '' });
  expect(started.status).toBe(202);
  agentRun = await finished(started.body.executionId);

  // One message of the model: the CLI's result usage is that message's, as the stand-in reported it.
  expect(model.messages().filter(holding(mark))).toHaveLength(1);
  expect(agentRun).toMatchObject({ status: 'completed', result: 'Contado.', ...asView(USAGE) });
  expect(await getExecution(server.resources.database.db, agentRun.id)).toMatchObject({
    inputTokens: 2345,
    outputTokens: 67,
    cacheReadTokens: 89_012,
    cacheCreationTokens: 3_456,
  });
  expect(agentRun.costUsd).toBeGreaterThan(0);
});

it('a pipeline of two steps: each step keeps its tokens; the stats count the run once and its cost once, from its steps', async () => {
  const [first, second] = [await standInAgent('primeiro'), await standInAgent('segundo')];
  const created = await call('POST', '/api/pipelines', {
    name: `Tokens ${randomUUID().slice(0, 8)}`,
    description: '',
    workingDirectory: path.join(workArea, 'pipeline'),
    steps: [first, second].map((agent) => ({ agentId: agent.id, description: '', requiresApproval: false })),
  });
  expect(created.status).toBe(201);
  const [markOne, markTwo] = [`step-one-${randomUUID().slice(0, 8)}`, `step-two-${randomUUID().slice(0, 8)}`];
  // The first step's answer is the second step's prompt (no template): it carries the second mark.
  model.enqueue(
    { kind: 'text', text: `Siga. ${markTwo}`, usage: STEP_USAGES[0], when: holding(markOne) },
    { kind: 'text', text: 'Fim.', usage: STEP_USAGES[1], when: holding(markTwo) },
  );
  const started = await call('POST', `/api/pipelines/${created.body.id}/execute`, { input: `Comece. ${markOne}` });
  expect(started.status).toBe(202);
  const run = await finished(started.body.executionId);

  expect(run).toMatchObject({ status: 'completed', result: 'Fim.', inputTokens: null });
  expect(run.steps).toHaveLength(2);
  expect(run.steps[0]).toMatchObject({ status: 'completed', ...asView(STEP_USAGES[0]!) });
  expect(run.steps[1]).toMatchObject({ status: 'completed', ...asView(STEP_USAGES[1]!) });
  const stepCost = run.steps[0].costUsd + run.steps[1].costUsd;
  expect(run.costUsd).toBeCloseTo(stepCost, 10);

  // Today holds this suite's runs alone: the agent run, the pipeline run and its two steps.
  const costs = (await call('GET', '/api/stats/costs?days=1')).body;
  const sum = (key: keyof ReturnType<typeof asTokens>) => [USAGE, ...STEP_USAGES].reduce((total, usage) => total + asTokens(usage)[key], 0);
  expect(costs).toMatchObject({
    totalExecutions: 3,
    totalCost: round4(agentRun.costUsd + stepCost),
    tokens: { input: sum('input'), output: sum('output'), cacheRead: sum('cacheRead'), cacheCreation: sum('cacheCreation') },
    byPipeline: [
      {
        pipelineId: created.body.id,
        name: created.body.name,
        cost: round4(stepCost),
        runs: 1,
        steps: 2,
        tokens: { input: 3000, output: 60, cacheRead: 12_000, cacheCreation: 300 },
      },
    ],
  });
  expect(costs.byAgent).toEqual(
    expect.arrayContaining([
      { agentId: first.id, name: first.name, cost: round4(run.steps[0].costUsd), count: 1, tokens: asTokens(STEP_USAGES[0]!) },
      { agentId: second.id, name: second.name, cost: round4(run.steps[1].costUsd), count: 1, tokens: asTokens(STEP_USAGES[1]!) },
    ]),
  );
  const charts = (await call('GET', '/api/stats/charts?days=1')).body;
  // Two runs (the agent's and the pipeline's), not four records; the day's cost is the costs' total.
  expect(charts).toMatchObject({
    successCounts: [2],
    errorCounts: [0],
    executionCounts: [2],
    costData: [costs.totalCost],
    statusDistribution: { completed: 2 },
  });
});
