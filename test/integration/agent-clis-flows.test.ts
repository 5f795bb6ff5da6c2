import { createHmac, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SHIPPED_PRICES } from '../../activities/agents/run-cost';
import { costOf, priceOf } from '../../domain/model-prices';
import { config as baseConfig, type Config } from '../../lib/config';
import { FINAL_EXECUTION_MESSAGE_TYPES } from '../../lib/live-output';
import { withTimeout } from '../../lib/timeout';
import { agentScheduleId } from '../../temporal/agent-schedules';
import { bareRepository, gitIn } from '../support/git-repos';
import { endedExecution, jsonCall, notificationOf } from '../support/json-api';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import { promptsOf, STAND_IN_TEXT, type RecordedRequest } from '../support/stand-in-model';
import { startTestServer, type TestServer } from '../support/server';
import { until } from '../support/waiting';
import { connectClient, untilPipelineMessage, type SocketProbe } from '../support/websocket';

/**
 * Issue 42 §3, "everything that works for Claude works for each": the flows across coding-agent CLIs
 * with the real pinned CLIs (Claude Code, Codex CLI, Gemini CLI) against the stand-in model, as the
 * Claude suites run them (pipelines-runs, schedules-runs, webhooks-api, agent-follow-ups, stats-tokens,
 * reports-notifications-settings, repos-runs): a pipeline Claude Code → Codex → Gemini through an
 * approval; a schedule running a Codex agent and a webhook running a Gemini agent; a delegation chain
 * Codex → Gemini → Claude Code; the history, CSV export, statistics, report and notification of Codex
 * and Gemini runs; a repository run per CLI that commits and pushes. Each record names its own CLI
 * (docs/executions.md `cli`), and a Codex or Gemini run's cost is the service's price of its tokens
 * (docs/agent-clis.md, "Cost"). The flows are independent and run at once (`it.concurrent`).
 */

jest.setTimeout(300_000);

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-clis-flows-'));
fs.chmodSync(scratch, 0o755);
const reposDir = path.join(scratch, 'repos');
const suffix = randomUUID().slice(0, 6);
const REPO = { codex: `codex-repo-${suffix}`, gemini: `gemini-repo-${suffix}` } as const;
const repositories: Config['orchestration']['repositories'] = {
  dir: reposDir,
  remotes: [],
  credentials: null,
  mirrorsDir: path.join(scratch, 'mirrors'),
  publishDir: null,
};
const projectsRoot = baseConfig.orchestration.workdirRoots[0]!;
const bareGit = (name: string, ...args: string[]) => gitIn(scratch, '--git-dir', path.join(reposDir, `${name}.git`), ...args);

/** The stand-in's model endpoint of each CLI (docs/agent-clis.md, "The three side by side"). */
const API_PATH = {
  'claude-code': '/v1/messages',
  codex: '/v1/responses',
  gemini: '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
} as const;
/** Each CLI's name in the report (domain/agent-clis.ts `label`). */
const CLI_LABEL = { codex: 'OpenAI Codex CLI', gemini: 'Google Gemini CLI' } as const;
const CSV_HEADER = 'ID,Tipo,Nome,Status,Início,Fim,Duração (ms),Custo (USD),Turnos';

type Agent = { id: string; name: string };

let agents: RealAgents;
let server: TestServer;
const probes: SocketProbe[] = [];
const schedules: string[] = [];
const webhooks: string[] = [];

const call = (method: string, route: string, body?: unknown, clientId?: string) => jsonCall(server.url, method, route, body, clientId);
const ended = (id: string) => endedExecution(server.url, id, 240_000);
const detail = async (id: string) => (await call('GET', `/api/executions/history/${id}`)).body;
const round4 = (value: number) => Math.round(value * 10_000) / 10_000;

/** What the service's price table makes of a record's tokens (activities/agents/run-cost.ts): a Codex or Gemini run's cost. */
function pricedCost(record: any): number {
  const price = priceOf(SHIPPED_PRICES, record.model);
  expect(price).not.toBeNull();
  const tokens = {
    input: record.inputTokens,
    output: record.outputTokens,
    cacheRead: record.cacheReadTokens,
    cacheCreation: record.cacheCreationTokens,
  };
  for (const count of Object.values(tokens)) expect(count).toEqual(expect.any(Number));
  return costOf(tokens, price!);
}

/**
 * A finished Codex or Gemini record: its CLI and model, tokens, and a cost > 0 that is its tokens priced by
 * the service: neither CLI reports a cost, unlike Claude Code (docs/agent-clis.md, "Cost").
 */
function expectPricedRun(record: any, cli: 'codex' | 'gemini'): void {
  expect(record).toMatchObject({ cli, model: cli === 'codex' ? 'gpt-5.5' : 'gemini-2.5-flash' });
  expect(record.inputTokens).toBeGreaterThan(0);
  expect(record.outputTokens).toBeGreaterThan(0);
  expect(record.costUsd).toBeGreaterThan(0);
  expect(record.costUsd).toBe(pricedCost(record));
}

/** A completed run of `cli` on `task`: priced, asked of its CLI's model, and its completion the last message a panel heard. */
function expectCompletedRunHeard(record: any, cli: 'codex' | 'gemini', task: string, heard: any[]): void {
  expectPricedRun(record, cli);
  expect(asked(cli, task).length).toBeGreaterThan(0);
  expect(heard.at(-1)).toMatchObject({
    type: 'execution_complete',
    executionId: record.id,
    agentId: record.agentId,
    status: 'completed',
    data: { result: STAND_IN_TEXT, costUsd: record.costUsd },
  });
}

/** The stand-in's requests at `cli`'s model endpoint whose body holds `text`. */
const asked = (cli: keyof typeof API_PATH, text: string) =>
  agents.model.requests.filter((request: RecordedRequest) => request.path === API_PATH[cli] && JSON.stringify(request.body).includes(text));

beforeAll(async () => {
  fs.mkdirSync(reposDir);
  for (const name of Object.values(REPO)) bareRepository(scratch, reposDir, `${name}.git`, ['main']);
  agents = await startRealAgents({
    name: 'agent-clis-flows',
    maxConcurrent: 5,
    orchestration: { repositories },
    serve: async () => {
      const started = await startTestServer((config) => ({ ...config, orchestration: { ...config.orchestration, repositories } }));
      return { server: started, close: () => started.close() };
    },
  });
  ({ server } = agents);
}, 120_000);

afterAll(async () => {
  for (const probe of probes) probe.socket.terminate();
  if (server) {
    for (const id of schedules) await call('DELETE', `/api/schedules/${id}`).catch(() => undefined);
    for (const id of webhooks) await call('DELETE', `/api/webhooks/${id}`).catch(() => undefined);
  }
  await agents?.close();
  for (const name of Object.values(REPO)) fs.rmSync(path.join(projectsRoot, name), { recursive: true, force: true });
  fs.rmSync(scratch, { recursive: true, force: true });
}, 120_000);

/** The messages of the first run of `agentId` the probe hears, up to its final one (as schedules-runs.test.ts). */
async function heardRunOf(probe: SocketProbe, agentId: string): Promise<any[]> {
  const received: any[] = [];
  for (;;) {
    const message: any = await withTimeout(probe.nextMessage(), 240_000, `messages of agent ${agentId}`);
    if (message.agentId !== agentId || (received.length > 0 && message.executionId !== received[0].executionId)) continue;
    received.push(message);
    if (FINAL_EXECUTION_MESSAGE_TYPES.includes(message.type)) return received;
  }
}

async function connect(): Promise<{ probe: SocketProbe; clientId: string }> {
  const clientId = `painel-${randomUUID()}`;
  const probe = await connectClient(server.url, clientId);
  probes.push(probe);
  return { probe, clientId };
}

describe('the flows across CLIs, with the real pinned CLIs', () => {
  it.concurrent(
    'a pipeline Claude Code → Codex → Gemini through an approval: each step run by its own CLI, priced, its output the next step’s input',
    async () => {
      // Working in the pipeline's directory: the agents have none of their own (as pipelines-runs.test.ts).
      const [claude, codex, gemini] = await Promise.all([
        agents.standInAgent('passo claude', { workingDirectory: '' }),
        agents.standInAgent('passo codex', { cli: 'codex', workingDirectory: '' }),
        agents.standInAgent('passo gemini', { cli: 'gemini', workingDirectory: '' }),
      ]);
      const mark = randomUUID().slice(0, 8);
      const workingDirectory = path.join(agents.workArea, `pipeline-${mark}`);
      const created = await call('POST', '/api/pipelines', {
        name: `três CLIs ${mark}`,
        description: '',
        workingDirectory,
        steps: [
          { agentId: claude.id, inputTemplate: `{{input}} stand-in:write-file path=claude.txt content=claude-${mark}` },
          { agentId: codex.id, inputTemplate: `{{input}}\nstand-in:write-file path=codex.txt content=codex-${mark}` },
          { agentId: gemini.id, inputTemplate: 'Revise: {{input}}\nstand-in:text', requiresApproval: true },
        ].map((step) => ({ description: '', requiresApproval: false, ...step })),
      });
      expect(created.status).toBe(201);
      const pipelineId: string = created.body.id;
      const { probe, clientId } = await connect();
      const started = await call('POST', `/api/pipelines/${pipelineId}/execute`, { input: 'Comece.' }, clientId);
      expect(started).toEqual({ status: 202, body: { pipelineId, executionId: expect.any(String), status: 'started' } });
      const runId: string = started.body.executionId;

      // Claude Code, then Codex; then the run waits before Gemini's step.
      const first = await untilPipelineMessage(probe, pipelineId, 'pipeline_approval_required', 240_000);
      expect(
        first.filter((message) => message.type === 'pipeline_step_start').map((message) => [message.stepIndex, message.agentName]),
      ).toEqual([
        [0, claude.name],
        [1, codex.name],
      ]);
      const completes = first.filter((message) => message.type === 'pipeline_step_complete');
      expect(completes).toEqual([
        expect.objectContaining({ stepIndex: 0, result: `Wrote the file: claude-${mark}`, costUsd: expect.any(Number) }),
        expect.objectContaining({ stepIndex: 1, result: `Wrote the file: codex-${mark}`, costUsd: expect.any(Number) }),
      ]);
      expect(first.at(-1)).toMatchObject({
        type: 'pipeline_approval_required',
        pipelineId,
        executionId: runId,
        stepIndex: 2,
        agentName: codex.name,
        previousOutput: `Wrote the file: codex-${mark}`,
      });
      const waiting = await detail(runId);
      expect(waiting.status).toBe('awaiting_approval');
      expect(waiting.steps.map((step: any) => [step.stepIndex, step.cli, step.status])).toEqual([
        [0, 'claude-code', 'completed'],
        [1, 'codex', 'completed'],
      ]);
      // Nothing reached Gemini before the approval.
      expect(asked('gemini', `codex-${mark}`)).toEqual([]);

      expect(await call('POST', `/api/pipelines/${pipelineId}/approve`)).toEqual({ status: 200, body: { approved: true } });
      const rest = await untilPipelineMessage(probe, pipelineId, 'pipeline_complete', 240_000);
      expect(rest.find((message) => message.type === 'pipeline_step_start')).toMatchObject({
        stepIndex: 2,
        agentName: gemini.name,
        totalSteps: 3,
      });
      expect(rest.at(-1)).toMatchObject({ pipelineId, executionId: runId, lastAgentId: gemini.id, lastAgentName: gemini.name });

      // Each step's closing line in the panel's terminal says what its CLI reported: Claude Code a cost, Codex
      // neither cost nor duration (docs/codex-cli.md), Gemini no cost (docs/gemini-cli.md); their priced
      // cost is on the step's record and its pipeline_step_complete (below).
      const resultLines = [...first, ...rest]
        .filter((message) => message.type === 'pipeline_step_output' && message.data.type === 'system')
        .filter((message) => String(message.data.content).startsWith('Resultado:'))
        .map((message) => [message.stepIndex, message.data.content]);
      expect(resultLines).toEqual([
        [0, expect.stringMatching(/^Resultado: 2 turnos \| custo: \$\d+\.\d{4} \| duração: [^|]+ \| sessão: [0-9a-f]{8}\.\.\.$/)],
        [1, expect.stringMatching(/^Resultado: 2 turnos \| sessão: [0-9a-f]{8}\.\.\.$/)],
        [2, expect.stringMatching(/^Resultado: 1 turnos \| duração: [^|]+ \| sessão: [0-9a-f]{8}\.\.\.$/)],
      ]);

      const record = await detail(runId);
      expect(record).toMatchObject({ type: 'pipeline', pipelineId, status: 'completed', result: STAND_IN_TEXT, cli: null });
      expect(record.steps.map((step: any) => [step.stepIndex, step.agentId, step.cli, step.status])).toEqual([
        [0, claude.id, 'claude-code', 'completed'],
        [1, codex.id, 'codex', 'completed'],
        [2, gemini.id, 'gemini', 'completed'],
      ]);
      // Each step's output is the next step's input, as the next CLI was given it.
      expect(record.steps[0].prompt).toBe(`Comece. stand-in:write-file path=claude.txt content=claude-${mark}`);
      expect(record.steps[1].prompt).toBe(`${record.steps[0].result}\nstand-in:write-file path=codex.txt content=codex-${mark}`);
      expect(record.steps[2].prompt).toBe(`Revise: ${record.steps[1].result}\nstand-in:text`);
      expect(record.steps[2].result).toBe(STAND_IN_TEXT);
      expect(asked('codex', `claude-${mark}`).length).toBeGreaterThan(0);
      expect(asked('gemini', `codex-${mark}`).length).toBeGreaterThan(0);
      // The files the first two CLIs' shell tools wrote, in the pipeline's directory.
      expect(fs.readFileSync(path.join(workingDirectory, 'claude.txt'), 'utf8')).toBe(`claude-${mark}\n`);
      expect(fs.readFileSync(path.join(workingDirectory, 'codex.txt'), 'utf8')).toBe(`codex-${mark}\n`);

      // Each step's record: its own CLI, tokens, and a cost (Claude Code's reported, the others priced by the service).
      const steps = await Promise.all(record.steps.map((step: any) => detail(step.executionId)));
      expect(steps[0]).toMatchObject({ cli: 'claude-code', status: 'completed' });
      expect(steps[0].costUsd).toBeGreaterThan(0);
      expect(steps[0].inputTokens).toBeGreaterThan(0);
      expectPricedRun(steps[1], 'codex');
      expectPricedRun(steps[2], 'gemini');
      expect(record.steps.map((step: any) => step.costUsd)).toEqual(steps.map((step) => step.costUsd));
      // The panel's step messages carry the same costs: the priced ones for Codex and Gemini.
      const stepCompletes = [...completes, rest.find((message) => message.type === 'pipeline_step_complete')];
      expect(stepCompletes.map((message) => message.costUsd)).toEqual(steps.map((step) => step.costUsd));
      expect(record.totalCostUsd).toBeCloseTo(steps[0].costUsd + steps[1].costUsd + steps[2].costUsd, 10);
    },
  );

  it.concurrent('a schedule runs a Codex agent: the record completes with cli codex, source schedule and its scheduleId', async () => {
    const agent = await agents.standInAgent('agendado codex', { cli: 'codex' });
    const task = `stand-in:text agendado ${randomUUID()}`;
    const schedule = await call('POST', '/api/schedules', { agentId: agent.id, taskDescription: task, cronExpression: '0 9 * * *' });
    expect(schedule.status).toBe(201);
    schedules.push(schedule.body.id);
    // A panel that started nothing: a scheduled run is broadcast (contract 4.2).
    const { probe } = await connect();
    const heard = heardRunOf(probe, agent.id);
    heard.catch(() => undefined);
    await server.resources.temporal.client.schedule.getHandle(agentScheduleId(schedule.body.id)).trigger();

    const [fired] = await untilRecords(`?agentId=${agent.id}&source=schedule`, 1);
    const record = await ended(fired.id);
    expect(record).toMatchObject({
      agentId: agent.id,
      agentName: agent.name,
      task,
      status: 'completed',
      source: 'schedule',
      scheduleId: schedule.body.id,
      result: STAND_IN_TEXT,
    });
    expectCompletedRunHeard(record, 'codex', task, await heard);
    const history = (await call('GET', '/api/schedules/history?limit=100')).body as any[];
    expect(history.find((item) => item.id === record.id)).toMatchObject({ source: 'schedule', scheduleId: schedule.body.id, cli: 'codex' });
  });

  it.concurrent('a webhook runs a Gemini agent: the record completes with cli gemini, source webhook and its webhookId', async () => {
    const agent = await agents.standInAgent('webhook gemini', { cli: 'gemini' });
    const secret = `segredo-${randomUUID()}`;
    const webhook = await call('POST', '/api/webhooks', {
      name: `gemini ${randomUUID().slice(0, 8)}`,
      targetType: 'agent',
      targetId: agent.id,
      secret,
    });
    expect(webhook.status).toBe(201);
    webhooks.push(webhook.body.id);
    const task = `stand-in:text webhook ${randomUUID()}`;
    const body = JSON.stringify({ task });
    // A panel that started nothing: a webhook's run is broadcast (docs/webhooks.md, "Live output").
    const { probe } = await connect();
    const heard = heardRunOf(probe, agent.id);
    heard.catch(() => undefined);
    const response = await fetch(`${server.url}/hook/${webhook.body.token}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
      },
      body,
    });
    const answer: any = await response.json();
    expect({ status: response.status, answer }).toEqual({
      status: 202,
      answer: { executionId: expect.any(String), status: 'started', webhook: webhook.body.name },
    });

    const record = await ended(answer.executionId);
    expect(record).toMatchObject({
      agentId: agent.id,
      task,
      status: 'completed',
      source: 'webhook',
      webhookId: webhook.body.id,
      result: STAND_IN_TEXT,
    });
    expectCompletedRunHeard(record, 'gemini', task, await heard);
    expect((await call('GET', '/api/webhooks')).body.find((item: any) => item.id === webhook.body.id)).toMatchObject({ triggerCount: 1 });
  });

  it.concurrent(
    'delegation across CLIs: a Codex agent hands its result to a Gemini agent, which hands its own to a Claude Code agent',
    async () => {
      const claude = await agents.standInAgent('delegado claude');
      const gemini = await agents.standInAgent('delegado gemini', { cli: 'gemini', delegateTo: claude.id });
      const codex = await agents.standInAgent('delega codex', { cli: 'codex', delegateTo: gemini.id });
      const mark = `delegado-${randomUUID().slice(0, 8)}`;
      const started = await call('POST', `/api/agents/${codex.id}/execute`, {
        task: `stand-in:write-file path=delegation.txt content=${mark}`,
      });
      expect(started.status).toBe(202);
      const root = await ended(started.body.executionId);
      expect(root).toMatchObject({ status: 'completed', result: `Wrote the file: ${mark}`, delegatedFrom: null });
      expectPricedRun(root, 'codex');

      // Depth 1: the Gemini agent gets Codex's result as its task, in the same working directory, run by Gemini CLI.
      const [toGemini] = await untilRecords(`?agentId=${gemini.id}&source=delegation`, 1);
      const second = await ended(toGemini.id);
      expect(second).toMatchObject({
        source: 'delegation',
        delegatedFrom: root.id,
        task: root.result,
        workingDirectory: root.workingDirectory,
        status: 'completed',
        result: 'OK',
      });
      expectPricedRun(second, 'gemini');
      expect(asked('gemini', mark).length).toBeGreaterThan(0);
      // Delegations are stored with their depth (not in the view: the row).
      const depthOf = async (id: string) =>
        Number(
          ((await server.resources.database.pool.query('SELECT delegation_depth AS d FROM executions WHERE id = ?', [id])) as any)[0][0].d,
        );
      expect(await depthOf(second.id)).toBe(1);

      // Depth 2: Gemini's result to the Claude Code agent, run by Claude Code, its cost the CLI's own.
      const [toClaude] = await untilRecords(`?agentId=${claude.id}&source=delegation`, 1);
      const third = await ended(toClaude.id);
      expect(third).toMatchObject({
        cli: 'claude-code',
        source: 'delegation',
        delegatedFrom: second.id,
        task: 'OK',
        workingDirectory: root.workingDirectory,
        status: 'completed',
        result: 'OK',
      });
      expect(third.costUsd).toBeGreaterThan(0);
      expect(agents.model.messages().some((request) => promptsOf(request.body).at(-1) === 'OK')).toBe(true);
      expect(await depthOf(third.id)).toBe(2);
      expect(fs.readFileSync(path.join(root.workingDirectory, 'delegation.txt'), 'utf8')).toBe(`${mark}\n`);
    },
  );

  it.concurrent(
    'history, CSV export, statistics, report and notification of a Codex and a Gemini run, as of a Claude Code run',
    async () => {
      const [codex, gemini] = await Promise.all([
        agents.standInAgent('contas codex', { cli: 'codex' }),
        agents.standInAgent('contas gemini', { cli: 'gemini' }),
      ]);
      // Known usage: Codex's stand-in counts 10 input tokens and a token per 4 characters out; Gemini's
      // text scenario reports the counts it is given (test/support/stand-in-model).
      const tasks = {
        codex: `Conte. stand-in:long chars=4000`,
        gemini: `Conte. stand-in:text input=20000 output=4000`,
      };
      const run = async (agent: Agent, task: string) => {
        const answer = await call('POST', `/api/agents/${agent.id}/execute`, { task });
        expect(answer.status).toBe(202);
        return ended(answer.body.executionId);
      };
      const [codexRun, geminiRun] = await Promise.all([run(codex, tasks.codex), run(gemini, tasks.gemini)]);
      expect(codexRun).toMatchObject({
        status: 'completed',
        inputTokens: 10,
        outputTokens: 1000,
        cacheReadTokens: 0,
        cacheCreationTokens: 0,
      });
      expect(codexRun.result).toHaveLength(4000);
      expect(geminiRun).toMatchObject({
        status: 'completed',
        result: STAND_IN_TEXT,
        inputTokens: 20000,
        outputTokens: 4000,
        cacheReadTokens: 0,
        cacheCreationTokens: 0,
      });
      expectPricedRun(codexRun, 'codex');
      expectPricedRun(geminiRun, 'gemini');

      for (const [cli, agent, record] of [
        ['codex', codex, codexRun],
        ['gemini', gemini, geminiRun],
      ] as const) {
        // The history: the record with its CLI and cost, found by the agent and by the source filter.
        const listed = (await call('GET', `/api/executions/history?agentId=${agent.id}`)).body;
        expect(listed.total).toBe(1);
        expect(listed.items[0]).toMatchObject({ id: record.id, type: 'agent', cli, costUsd: record.costUsd, status: 'completed' });
        const bySearch = (await call('GET', `/api/executions/history?type=agent&source=manual&search=${encodeURIComponent(agent.name)}`))
          .body;
        expect(bySearch.items.map((item: any) => [item.id, item.cli, item.costUsd])).toEqual([[record.id, cli, record.costUsd]]);

        // The CSV export: the contract's header (no CLI column), the run's row with its cost.
        const csv = await call('GET', `/api/executions/export?agentId=${agent.id}`);
        expect(csv.status).toBe(200);
        const quoted = (value: unknown) => `"${value === null || value === undefined ? '' : String(value)}"`;
        expect(csv.text.replace(/^\uFEFF/, '').split('\n')).toEqual([
          CSV_HEADER,
          [
            record.id,
            'agent',
            agent.name,
            'completed',
            record.startedAt,
            record.endedAt,
            record.durationMs,
            record.costUsd,
            record.numTurns,
          ]
            .map(quoted)
            .join(','),
          '',
        ]);

        // The report names the CLI and the priced cost.
        const report = await call('GET', `/api/reports/${encodeURIComponent(record.reportFile)}`);
        expect(report.status).toBe(200);
        const lines: string[] = report.body.content.split('\n');
        expect(lines).toEqual(
          expect.arrayContaining([
            `# Execução de agente: ${agent.name}`,
            `| CLI | ${CLI_LABEL[cli]} (${cli}) |`,
            `| Modelo | ${record.model} |`,
            `| Custo (USD) | ${record.costUsd.toFixed(4)} |`,
            `| Turnos | ${record.numTurns} |`,
          ]),
        );

        // The notification of a completed run, as for Claude Code (docs/reports-notifications-settings.md).
        expect(await notificationOf(server.url, record.id)).toMatchObject({
          type: 'success',
          kind: 'execution.completed',
          title: 'Execução concluída',
          message: `${agent.name}: ${tasks[cli]}`,
          executionId: record.id,
        });
      }

      // Statistics: each agent's run counted with its tokens and its priced cost.
      const costs = (await call('GET', '/api/stats/costs?days=1')).body;
      const tokensOf = (record: any) => ({
        input: record.inputTokens,
        output: record.outputTokens,
        cacheRead: record.cacheReadTokens,
        cacheCreation: record.cacheCreationTokens,
      });
      for (const [agent, record] of [
        [codex, codexRun],
        [gemini, geminiRun],
      ] as const) {
        expect(costs.byAgent.find((item: any) => item.agentId === agent.id)).toEqual({
          agentId: agent.id,
          name: agent.name,
          cost: round4(record.costUsd),
          count: 1,
          tokens: tokensOf(record),
        });
      }
      expect(costs.totalCost).toBeGreaterThanOrEqual(round4(codexRun.costUsd + geminiRun.costUsd));
      expect(costs.tokens.output).toBeGreaterThanOrEqual(5000);
    },
  );

  it.concurrent.each(['codex', 'gemini'] as const)(
    'a %s agent runs in a repository: the file its CLI wrote is committed and pushed',
    async (cli) => {
      const agent = await agents.standInAgent(`escritor ${cli}`, { cli });
      const repo = REPO[cli];
      const task = `stand-in:write-file path=${cli}.txt content=${cli}-no-repositorio`;
      const answer = await call('POST', `/api/agents/${agent.id}/execute`, { task, instructions: '', repoName: repo });
      expect(answer).toMatchObject({ status: 202, body: { status: 'queued' } });
      const record = await ended(answer.body.executionId);
      const head = bareGit(repo, 'rev-parse', 'refs/heads/main');
      expect(record).toMatchObject({
        status: 'completed',
        cli,
        workingDirectory: path.join(projectsRoot, repo),
        repoName: repo,
        repoBranch: 'main',
        repoCommit: head,
        error: null,
      });
      expectPricedRun(record, cli);
      expect(bareGit(repo, 'show', `main:${cli}.txt`)).toBe(`${cli}-no-repositorio`);
      // One commit over the seed, holding only the file the CLI wrote.
      expect(bareGit(repo, 'rev-list', '--count', 'main')).toBe('2');
      expect(bareGit(repo, 'show', '--name-only', '--format=', 'main')).toBe(`${cli}.txt`);
      const message = bareGit(repo, 'log', '-1', '--format=%B', 'main');
      expect(message.split('\n')[0]).toBe(`${agent.name}: ${task}`.slice(0, 72));
      expect(message).toContain(`Execução: ${record.id}`);
      expect((await detail(record.id)).output).toContain(
        `Git: commit ${head.slice(0, 7)} pushed para ${repo} (1 arquivos) → ${path.join(reposDir, `${repo}.git`)}`,
      );
    },
  );
});

/** The history's records for `query`, once there are `count` of them (a schedule's or a delegation's record is stored by a workflow). */
function untilRecords(query: string, count: number): Promise<any[]> {
  return until(
    `${count} records for ${query}`,
    async () => (await call('GET', `/api/executions/history${query}`)).body.items as any[],
    (items) => items.length >= count,
    240_000,
  );
}
