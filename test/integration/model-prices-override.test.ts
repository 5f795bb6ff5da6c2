import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SHIPPED_PRICES } from '../../activities/agents/run-cost';
import { endedExecution, jsonCall } from '../support/json-api';
import { unusedPort } from '../support/ports';
import { startServiceProcess } from '../support/processes';
import { startRealAgents, type RealAgents } from '../support/real-agents';

/**
 * The operator's model prices (MODEL_PRICES_FILE; docs/agent-clis.md, "The operator's prices"; issue 42
 * §1 "Cost"): an agents worker started with a price file prices the tokens of a Codex CLI run and of a
 * Gemini CLI run (real pinned CLIs against the stand-in model) with the file's prices, not the shipped
 * ones; and the service process with the agents worker role refuses to start on a bad file, with one
 * line naming the file and the entry.
 */

jest.setTimeout(300_000);

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'model-prices-override-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** USD per million tokens: input, output, cache read, cache write; unlike the shipped prices of both models. */
const OPERATOR_PRICES = {
  'gpt-5.5': { input: 2, output: 4, cacheRead: 1, cacheCreation: 3 },
  'gemini-2.5-flash': { input: 7, output: 11, cacheRead: 5, cacheCreation: 13 },
} as const;

const pricesFile = path.join(scratch, 'model-prices.json');
fs.writeFileSync(
  pricesFile,
  JSON.stringify({ source: 'a test of the operator prices', unit: 'USD per million tokens', models: OPERATOR_PRICES }),
);

describe('an agents worker with MODEL_PRICES_FILE', () => {
  let agents: RealAgents;
  const call = (method: string, route: string, body?: unknown) => jsonCall(agents.server.url, method, route, body);

  beforeAll(async () => {
    agents = await startRealAgents({ name: 'model-prices-override', orchestration: { modelPricesFile: pricesFile } });
  });

  afterAll(() => agents?.close());

  it.each([
    { cli: 'codex', model: 'gpt-5.5' },
    { cli: 'gemini', model: 'gemini-2.5-flash' },
  ] as const)("prices a $cli run's tokens with the file's price of $model", async ({ cli, model }) => {
    const agent = await agents.standInAgent(`${cli} priced agent`, { cli, model });
    const answer = await call('POST', `/api/agents/${agent.id}/execute`, { task: 'Answer. stand-in:text' });
    expect(answer.status).toBe(202);
    const done = await endedExecution(agents.server.url, answer.body.executionId, 180_000);
    expect(done).toMatchObject({ status: 'completed', cli, model });
    expect(done.inputTokens).toBeGreaterThan(0);
    expect(done.outputTokens).toBeGreaterThan(0);
    const tokens = {
      input: done.inputTokens,
      output: done.outputTokens,
      cacheRead: done.cacheReadTokens,
      cacheCreation: done.cacheCreationTokens,
    };
    // Millionths of a dollar, in whole numbers: the file's prices per million times the record's tokens.
    const price = OPERATOR_PRICES[model];
    const micro =
      tokens.input * price.input +
      tokens.output * price.output +
      tokens.cacheRead * price.cacheRead +
      tokens.cacheCreation * price.cacheCreation;
    expect(done.costUsd).toBe((micro * 1000) / 1e9);
    // Not the shipped price (which the same tokens would give without the file).
    const shipped = SHIPPED_PRICES[model]!;
    const shippedCost =
      tokens.input * shipped.input +
      tokens.output * shipped.output +
      tokens.cacheRead * shipped.cacheRead +
      tokens.cacheCreation * shipped.cacheCreation;
    expect(Math.abs(done.costUsd - shippedCost)).toBeGreaterThan(1e-9);
    // A priced model: no "unknown cost" line in the run's output.
    expect(done.output).toEqual(expect.any(String));
    expect(done.output).not.toContain('custo desconhecido');
  });
});

describe('the service process with the agents worker role', () => {
  it('refuses to start on a bad MODEL_PRICES_FILE, naming the file and the entry in one line', async () => {
    const bad = path.join(scratch, 'bad-prices.json');
    fs.writeFileSync(bad, JSON.stringify({ models: { 'gpt-5.5': { input: -1, output: 0, cacheRead: 0, cacheCreation: 0 } } }));
    const started = startServiceProcess({
      PROCESS_ROLES: 'agents-worker',
      METRICS_PORT: String(await unusedPort()),
      MODEL_PRICES_FILE: bad,
    });
    expect(await started.exited).toBe(1);
    // The start's last words: one log line whose error is the refusal.
    const fatal = started
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; err?: { type: string; message: string } })
      .filter((entry) => entry.level === 60);
    expect(fatal.map((entry) => [entry.msg, entry.err?.type, entry.err?.message])).toEqual([
      [
        'start failed',
        'ModelPricesFileError',
        `invalid environment: MODEL_PRICES_FILE: ${bad}: models."gpt-5.5".input: -1 is not a price (a number ≥ 0, USD per token)`,
      ],
    ]);
    // Nothing of the worker started: the prices are read before the agents host is registered.
    expect(started.output()).not.toContain('agents host registered');
  });
});
