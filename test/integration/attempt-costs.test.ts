import { randomUUID } from 'node:crypto';
import type { RowDataPacket } from 'mysql2';
import { SHIPPED_PRICES } from '../../activities/agents/run-cost';
import { budgetExhaustedText } from '../../domain/budgets';
import { utcDay } from '../../domain/utc-day';
import { endedExecution, jsonCall } from '../support/json-api';
import { promptsOf, type RecordedRequest, type StandInModel } from '../support/stand-in-model';
import { enqueueGemini, geminiPromptsOf } from '../support/stand-in-model/gemini';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import type { TestServer } from '../support/server';
import { connectClient, untilFinal, type SocketProbe } from '../support/websocket';

/**
 * Every attempt's cost counts (docs/executions.md, "Attempts"; docs/budgets.md): an agent with
 * `retryOnFailure` runs a failed run again on the same record, and what the failed attempt spent counts
 * in the record's `costUsd`, in the detail's `attempts`, in `costs.today`, the statistics and the daily
 * budgets, with the real CLIs against the stand-in model. A Claude Code attempt that makes one tool call
 * and then fails costs what a `stand-in:text` run costs (US$ 0.00015: 10 input tokens, 8 output); a
 * Gemini CLI attempt's tokens are priced by the service (lib/model-prices.json).
 */

/** What a `stand-in:text` run costs (docs/budgets.md), and the one-tool-call attempt below. */
const TEXT_RUN_USD = 0.00015;
const round4 = (amount: number) => Math.round(amount * 10_000) / 10_000;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe("a retried run's attempts, each with its cost", () => {
  let agents: RealAgents;
  let server: TestServer;
  let model: StandInModel;
  const probes: SocketProbe[] = [];

  beforeAll(async () => {
    agents = await startRealAgents({
      name: 'attempt-costs',
      maxConcurrent: 4,
      orchestration: { followUps: { retryDelayMs: 1_000, delegationDepthMax: 2 } },
    });
    ({ server, model } = agents);
    expect((await call('PUT', '/api/settings', { dailyBudgetUsd: null })).status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    for (const probe of probes) probe.socket.terminate();
    await agents?.close();
  });

  const call = (method: string, route: string, body?: unknown, clientId?: string) => jsonCall(server.url, method, route, body, clientId);
  const query = async (sql: string, values: unknown[] = []) =>
    (await server.resources.database.pool.query<RowDataPacket[]>(sql, values))[0];
  /** What the day's counter holds for an agent (the budgets read it). */
  const counted = async (agentId: string) =>
    Number(
      (
        await query('SELECT COALESCE(SUM(cost_usd), 0) AS spent FROM agent_daily_costs WHERE agent_id = ? AND day = ?', [
          agentId,
          utcDay(new Date()).start.toISOString().slice(0, 10),
        ])
      )[0]!.spent,
    );
  /** The sum `costs.today` makes: the agent records started today (services/system.ts). */
  const recordsToday = async () =>
    Number(
      (
        await query(
          "SELECT COALESCE(SUM(cost_usd), 0) AS spent FROM executions WHERE kind = 'agent' AND started_at >= ? AND started_at < ?",
          [utcDay(new Date()).start, utcDay(new Date()).end],
        )
      )[0]!.spent,
    );

  /** Starts `task` on agent `agentId` for a new client; its messages until its final one. */
  async function runToEnd(agentId: string, task: string): Promise<{ executionId: string; received: any[] }> {
    const clientId = `painel-${randomUUID()}`;
    const probe = await connectClient(server.url, clientId);
    probes.push(probe);
    const answer = await call('POST', `/api/agents/${agentId}/execute`, { task, instructions: '' }, clientId);
    expect(answer.status).toBe(202);
    const executionId = answer.body.executionId as string;
    return { executionId, received: await untilFinal(probe, executionId, 120_000) };
  }

  /**
   * The first attempt of the run whose prompt holds `marker`: one tool call (10 input tokens, 30
   * characters out: 8 output tokens, as `stand-in:text`), then a refused request (401, which the CLI
   * does not retry): the CLI fails, reporting what the tool call cost. The next attempt gets the scenario.
   */
  function failAfterACost(marker: string): void {
    const when = (request: RecordedRequest) => (promptsOf(request.body).at(-1) ?? '').includes(marker);
    model.enqueue({ kind: 'tool_use', name: 'Bash', input: { command: 'echo attempt-one' }, when }, { kind: 'error', status: 401, when });
  }

  it("keeps the failed attempt's cost: the record's total, its attempts, costs.today, the statistics and the agent's budget", async () => {
    // Between one attempt's cost and two: only both attempts exhaust it.
    const budget = 0.00025;
    const agent = await agents.standInAgent('custo-por-tentativa', { retryOnFailure: true, maxRetries: 1, dailyBudgetUsd: budget });
    const before = await recordsToday();
    const marker = `custa-e-falha-${randomUUID()}`;
    failAfterACost(marker);

    const { executionId, received } = await runToEnd(agent.id, `stand-in:text ${marker}`);

    const retry = received.find((message) => message.type === 'execution_retry');
    expect(retry).toMatchObject({ attempt: 1, maxRetries: 1, reason: expect.stringContaining('Invalid API key') });
    const total = 2 * TEXT_RUN_USD;
    // The final message carries the record's cost: both attempts'.
    expect(received.at(-1)).toMatchObject({ type: 'execution_complete', status: 'completed' });
    expect(received.at(-1).data.costUsd).toBeCloseTo(total, 12);

    const record = await endedExecution(server.url, executionId, 60_000);
    expect(record).toMatchObject({ status: 'completed', attempt: 2, error: null });
    expect(record.costUsd).toBeCloseTo(total, 12);
    expect(record.totalCostUsd).toBe(record.costUsd);
    expect(record.attempts).toEqual([
      {
        attempt: 1,
        status: 'error',
        error: retry.reason,
        costUsd: expect.closeTo(TEXT_RUN_USD, 12),
        startedAt: expect.stringMatching(ISO),
        endedAt: expect.stringMatching(ISO),
      },
      {
        attempt: 2,
        status: 'completed',
        error: null,
        costUsd: expect.closeTo(TEXT_RUN_USD, 12),
        startedAt: record.startedAt,
        endedAt: record.endedAt,
      },
    ]);
    const [first, second] = record.attempts;
    expect(Date.parse(first.startedAt)).toBeLessThanOrEqual(Date.parse(first.endedAt));
    expect(Date.parse(first.endedAt)).toBeLessThanOrEqual(Date.parse(second.startedAt));
    expect(first.costUsd + second.costUsd).toBe(record.costUsd);

    // The day's counter (the budgets), costs.today and the statistics count both attempts.
    expect(await counted(agent.id)).toBeCloseTo(total, 12);
    const status = (await call('GET', '/api/system/status')).body;
    expect(status.costs.today).toBe(round4(before + total));
    expect(status.costs.budgets.agents.find((item: any) => item.agentId === agent.id)).toEqual({
      agentId: agent.id,
      name: agent.name,
      limitUsd: budget,
      spentUsd: total,
      remainingUsd: 0,
      exhausted: true,
    });
    const costs = (await call('GET', '/api/stats/costs?days=1')).body;
    expect(costs.byAgent.find((item: any) => item.agentId === agent.id)).toMatchObject({ cost: round4(total), count: 1 });
    // The next run is refused: the budget counted both attempts.
    const refused = await call('POST', `/api/agents/${agent.id}/execute`, { task: 'stand-in:text', instructions: '' });
    expect(refused).toEqual({
      status: 409,
      body: {
        error: budgetExhaustedText(
          { scope: 'agent', agentId: agent.id, agentName: agent.name, limitUsd: budget, spentUsd: total },
          utcDay(new Date()).end,
        ),
      },
    });
  }, 180_000);

  it("refuses the retry when the failed attempt's own cost exhausted the budget, counting that cost once", async () => {
    const budget = 0.0001;
    const agent = await agents.standInAgent('esgota-na-falha', { retryOnFailure: true, maxRetries: 2, dailyBudgetUsd: budget });
    const marker = `esgota-${randomUUID()}`;
    failAfterACost(marker);

    const { executionId, received } = await runToEnd(agent.id, `stand-in:text ${marker}`);

    expect(received.filter((message) => message.type === 'execution_started')).toHaveLength(1);
    expect(received.filter((message) => message.type === 'execution_retry')).toHaveLength(0);
    const final = received.at(-1);
    expect(final).toMatchObject({ type: 'execution_error', status: 'error' });
    const budgetText = budgetExhaustedText(
      { scope: 'agent', agentId: agent.id, agentName: agent.name, limitUsd: budget, spentUsd: TEXT_RUN_USD },
      utcDay(new Date()).end,
    );
    expect(final.data.error).toMatch(
      new RegExp(
        `^${budgetText.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\. Nova tentativa não feita; a tentativa 1 falhou: .*Invalid API key`,
      ),
    );
    const record = await endedExecution(server.url, executionId, 60_000);
    expect(record).toMatchObject({ status: 'error', attempt: 1, error: final.data.error });
    expect(record.costUsd).toBeCloseTo(TEXT_RUN_USD, 12);
    expect(record.attempts).toEqual([
      {
        attempt: 1,
        status: 'error',
        error: final.data.error,
        costUsd: record.costUsd,
        startedAt: record.startedAt,
        endedAt: record.endedAt,
      },
    ]);
    // Counted when the retry was considered, and not again when the record ended.
    expect(await counted(agent.id)).toBeCloseTo(TEXT_RUN_USD, 12);
  }, 180_000);

  it("counts a Gemini CLI attempt's priced cost: the failed attempt's tokens and the completed one's", async () => {
    const agent = await agents.standInAgent('gemini tentativas', { cli: 'gemini', retryOnFailure: true, maxRetries: 1 });
    const marker = `gemini-falha-${randomUUID()}`;
    const when = (request: RecordedRequest) => (geminiPromptsOf(request.body).at(-1) ?? '').includes(marker);
    // A tool call answered (its tokens priced), then a 500 on the call that brings the tool's output back; the next attempt gets the default answer.
    enqueueGemini(
      { kind: 'tool_use', name: 'Bash', input: { command: 'echo done', description: 'Say done' }, when },
      { kind: 'error', status: 500, when },
    );
    const answer = await call('POST', `/api/agents/${agent.id}/execute`, { task: `Do it. ${marker}` });
    expect(answer.status).toBe(202);

    const record = await endedExecution(server.url, answer.body.executionId, 150_000);
    expect(record).toMatchObject({ status: 'completed', cli: 'gemini', attempt: 2, inputTokens: 10 });
    const [first, second] = record.attempts;
    expect(record.attempts).toHaveLength(2);
    expect(first).toMatchObject({ attempt: 1, status: 'error', error: expect.stringContaining('gemini') });
    // The failed attempt's tokens were priced (docs/agent-clis.md, "Cost"): it counts.
    expect(first.costUsd).toBeGreaterThan(0);
    // The completed attempt's: gemini-2.5-flash's prices over its tokens.
    const price = SHIPPED_PRICES['gemini-2.5-flash']!;
    expect(second).toMatchObject({ attempt: 2, status: 'completed', error: null });
    expect(second.costUsd).toBeCloseTo(10 * price.input + record.outputTokens * price.output, 12);
    expect(record.costUsd).toBe(first.costUsd + second.costUsd);
    expect(await counted(agent.id)).toBeCloseTo(record.costUsd, 12);
  }, 180_000);
});
