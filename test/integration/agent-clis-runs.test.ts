import fs from 'node:fs';
import path from 'node:path';
import { SHIPPED_PRICES } from '../../activities/agents/run-cost';
import { endedExecution, jsonCall } from '../support/json-api';
import { enqueueGemini, geminiPromptsOf } from '../support/stand-in-model/gemini';
import type { RecordedRequest } from '../support/stand-in-model';
import { startRealAgents, type RealAgents } from '../support/real-agents';

/**
 * Codex CLI and Gemini CLI agents run by the service as Claude Code agents are (issue 42, docs/agents.md
 * "Which CLI an agent runs"): created with `config.cli`, executed through POST /api/agents/{id}/execute
 * by the agents worker with the real pinned CLIs against the stand-in model, their record completed with
 * the CLI's answer, tokens and a cost priced by the service, then continued in the same session.
 */

jest.setTimeout(180_000);

let agents: RealAgents;
const call = (method: string, route: string, body?: unknown) => jsonCall(agents.server.url, method, route, body);

beforeAll(async () => {
  agents = await startRealAgents({ name: 'agent-clis-runs', maxConcurrent: 5 });
});

afterAll(() => agents?.close());

const CASES = [
  { cli: 'codex', model: 'gpt-5.5', apiPath: '/v1/responses' },
  { cli: 'gemini', model: 'gemini-2.5-flash', apiPath: '/v1beta/models/gemini-2.5-flash:streamGenerateContent' },
] as const;

describe.each(CASES)('a $cli agent', ({ cli, model, apiPath }) => {
  let agentId: string;
  let sessionId: string;

  it('is created with its CLI, model and permission mode', async () => {
    // Its secrets point its own CLI at the stand-in (stand-in-model/cli-secrets.ts standInSecretsFor).
    const created = await agents.standInAgent(`${cli} agent`, { cli, model, permissionMode: '', maxTurns: 0, allowedTools: '' });
    agentId = created.id;
    const stored = (await call('GET', `/api/agents/${agentId}`)).body;
    expect(stored.config).toMatchObject({ cli, model, permissionMode: '' });
  });

  it('executes with its own CLI: the file its tool wrote, the answer, the tokens and a priced cost on the record', async () => {
    const anthropicBefore = agents.model.messages().length;
    const asked = () => agents.model.requests.filter((request) => request.path === apiPath).length;
    const ownBefore = asked();
    const answer = await call('POST', `/api/agents/${agentId}/execute`, {
      task: `Write it. stand-in:write-file path=out-${cli}.txt content=${cli}-wrote-this`,
    });
    expect(answer.status).toBe(202);
    const done = await endedExecution(agents.server.url, answer.body.executionId, 120_000);
    expect(done).toMatchObject({ status: 'completed', cli, model });
    const workdir = path.join(agents.workArea, `${cli} agent`);
    expect(fs.readFileSync(path.join(workdir, `out-${cli}.txt`), 'utf8').trim()).toBe(`${cli}-wrote-this`);
    expect(done.result).toContain(`${cli}-wrote-this`);
    expect(done.inputTokens).toBeGreaterThan(0);
    expect(done.outputTokens).toBeGreaterThan(0);
    // No cost from the CLI: the service priced the tokens with lib/model-prices.json.
    expect(done.costUsd).toBeGreaterThan(0);
    expect(done.sessionId).toEqual(expect.any(String));
    sessionId = done.sessionId;
    // Counted under its CLI (a bounded label of the run metrics, docs/observability.md).
    const metrics = await (await fetch(`${agents.server.url}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`^agent_runs_finished_total\\{[^}]*cli="${cli}"[^}]*status="completed"[^}]*\\} [1-9]`, 'm'));
    // Its requests went to its own API (the tool call and the answer after it), none to Anthropic's.
    expect(asked() - ownBefore).toBeGreaterThanOrEqual(2);
    expect(agents.model.messages().length).toBe(anthropicBefore);
  });

  it('continues the session: a new record of the same CLI, the CLI resuming the session by id, with only its own tokens', async () => {
    const answer = await call('POST', `/api/agents/${agentId}/continue`, { sessionId, message: 'And then? stand-in:text' });
    expect(answer.status).toBe(202);
    const done = await endedExecution(agents.server.url, answer.body.executionId, 120_000);
    expect(done).toMatchObject({ status: 'completed', cli, sessionId });
    expect(done.result).toContain('Stand-in answer in four parts.');
    // One request to the stand-in (10 input tokens each): Codex's thread total (30) less what its
    // rollout file counted before (20) for Codex; Gemini counts per run.
    expect(done.inputTokens).toBe(10);
  });
});

it('prices a failed run from the tokens it reported: a Gemini run whose second model call fails', async () => {
  const { id } = await agents.standInAgent('gemini failing', { cli: 'gemini' });
  const marker = `fail-after-a-tool-${Date.now()}`;
  const when = (request: RecordedRequest) => (geminiPromptsOf(request.body).at(-1) ?? '').includes(marker);
  // A tool call answered (usage 10 in), then a 500 on the call that brings the tool's output back.
  enqueueGemini(
    { kind: 'tool_use', name: 'Bash', input: { command: 'echo done', description: 'Say done' }, when },
    { kind: 'error', status: 500, when },
  );
  const answer = await call('POST', `/api/agents/${id}/execute`, { task: `Do it. ${marker}` });
  expect(answer.status).toBe(202);
  const done = await endedExecution(agents.server.url, answer.body.executionId, 120_000);
  expect(done).toMatchObject({ status: 'error', cli: 'gemini', inputTokens: 10 });
  expect(done.outputTokens).toBeGreaterThan(0);
  // gemini-2.5-flash's prices (lib/model-prices.json) over those tokens: not 0, not the CLI's (none).
  const price = SHIPPED_PRICES['gemini-2.5-flash']!;
  expect(done.costUsd).toBeCloseTo(10 * price.input + done.outputTokens * price.output, 10);
});

it("stops a Gemini agent at its turn limit: the run ends error with the CLI's reason and a hint, its tokens priced", async () => {
  const { id } = await agents.standInAgent('gemini limited', { cli: 'gemini', maxTurns: 1 });
  const answer = await call('POST', `/api/agents/${id}/execute`, { task: 'Write it. stand-in:write-file path=limited.txt content=x' });
  expect(answer.status).toBe(202);
  const done = await endedExecution(agents.server.url, answer.body.executionId, 120_000);
  // One model call (the tool call, 10 input tokens), then FatalTurnLimitedError before the second (docs/gemini-cli.md).
  expect(done).toMatchObject({ status: 'error', cli: 'gemini', inputTokens: 10 });
  expect(done.error).toMatch(
    /^gemini terminou com o código 53: Reached max session turns for this session\. .* \(o limite de turnos do agente \(config\.maxTurns\) foi atingido: aumente-o, ou use 0 para nenhum\)/,
  );
  expect(done.costUsd).toBeGreaterThan(0);
});
