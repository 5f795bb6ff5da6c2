import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { executions } from '../../db/schema';
import { claudeCode } from '../../activities/agents/claude-code';
import { withTimeout } from '../../lib/timeout';
import { promptsOf, type StandInModel } from '../support/stand-in-model';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import type { TestServer } from '../support/server';
import { connectClient, untilFinal, type SocketProbe } from '../support/websocket';
import { jsonCall } from '../support/json-api';

/**
 * What follows a run (docs/agent-executions.md, "Retry on failure" and "Delegation"), with the real
 * Claude Code CLI against the stand-in model: a failed run of an agent with `retryOnFailure` is tried
 * again after a durable timer of the workflow, announced with `execution_retry`; a completed run of an
 * agent with `delegateTo` hands its result to that agent, and a chain A → B → A stops at its bound.
 */

const RETRY_DELAY_MS = 1_000;
const DELEGATION_DEPTH_MAX = 2;

const CREDENTIALS_HINT = claudeCode.failureHint!('Invalid API key');

describe('retry on failure and delegation, with the real CLI', () => {
  let agents: RealAgents;
  let server: TestServer;
  let model: StandInModel;
  const probes: SocketProbe[] = [];

  beforeAll(async () => {
    agents = await startRealAgents({
      name: 'follow-ups',
      maxConcurrent: 4,
      orchestration: { followUps: { retryDelayMs: RETRY_DELAY_MS, delegationDepthMax: DELEGATION_DEPTH_MAX } },
    });
    ({ server, model } = agents);
  }, 60_000);

  afterAll(async () => {
    for (const probe of probes) probe.socket.terminate();
    await agents?.close();
  });

  const call = (method: string, route: string, body?: unknown, clientId?: string) => jsonCall(server.url, method, route, body, clientId);

  const standInAgent = (name: string, config: Record<string, unknown>) => agents.standInAgent(name, config);

  async function connect(clientId: string): Promise<SocketProbe> {
    const probe = await connectClient(server.url, clientId);
    probes.push(probe);
    return probe;
  }

  async function execute(agentId: string, task: string, clientId: string): Promise<string> {
    const answer = await call('POST', `/api/agents/${agentId}/execute`, { task, instructions: '' }, clientId);
    expect(answer.status).toBe(202);
    return answer.body.executionId as string;
  }

  it('runs a failed run again after the delay, announcing execution_retry with its fields at the top level', async () => {
    const agent = await standInAgent('tenta-de-novo', { retryOnFailure: true, maxRetries: 2 });
    const clientId = `painel-${randomUUID()}`;
    const probe = await connect(clientId);
    const marker = `falha-uma-vez-${randomUUID()}`;
    // The first request of this run is refused (401: the CLI does not retry it); the next gets the scenario.
    model.enqueue({ kind: 'error', status: 401, when: (request) => (promptsOf(request.body).at(-1) ?? '').includes(marker) });

    const executionId = await execute(agent.id, `stand-in:text ${marker}`, clientId);
    const received = await untilFinal(probe, executionId);

    const retry = received.find((message) => message.type === 'execution_retry');
    const reason = `claude-code terminou com o código 1: Invalid API key · Fix external API key (${CREDENTIALS_HINT})`;
    expect(retry).toMatchObject({
      executionId,
      agentId: agent.id,
      agentName: agent.name,
      attempt: 1,
      maxRetries: 2,
      nextRetryIn: RETRY_DELAY_MS / 1000,
      reason,
      data: { attempt: 1, maxRetries: 2, nextRetryIn: RETRY_DELAY_MS / 1000, reason },
    });
    // Two runs, one retry between them, and one final message: the second run's.
    expect(received.filter((message) => message.type === 'execution_started')).toHaveLength(2);
    expect(received.filter((message) => message.type === 'execution_retry')).toHaveLength(1);
    expect(received.at(-1)).toMatchObject({
      type: 'execution_complete',
      status: 'completed',
      data: { result: 'Stand-in answer in four parts.' },
    });
    const record = (await call('GET', `/api/executions/history/${executionId}`)).body;
    expect(record).toMatchObject({ status: 'completed', attempt: 2, error: null, result: 'Stand-in answer in four parts.' });
    expect(model.messages().filter((request) => request.answer === 'queue')).toHaveLength(1);
  }, 120_000);

  it('gives up after maxRetries more runs: the record ends error with the last failure', async () => {
    const agent = await standInAgent('desiste', { retryOnFailure: true, maxRetries: 1 });
    const clientId = `painel-${randomUUID()}`;
    const probe = await connect(clientId);

    const executionId = await execute(agent.id, `stand-in:error status=401 ${randomUUID()}`, clientId);
    const received = await untilFinal(probe, executionId);

    expect(received.filter((message) => message.type === 'execution_started')).toHaveLength(2);
    expect(
      received.filter((message) => message.type === 'execution_retry').map((message) => [message.attempt, message.maxRetries]),
    ).toEqual([[1, 1]]);
    expect(received.at(-1)).toMatchObject({ type: 'execution_error', status: 'error' });
    const record = (await call('GET', `/api/executions/history/${executionId}`)).body;
    expect(record).toMatchObject({ status: 'error', attempt: 2, error: expect.stringContaining('Invalid API key') });
  }, 120_000);

  it('does not retry an agent without retryOnFailure', async () => {
    const agent = await standInAgent('sem-retry', { retryOnFailure: false });
    const clientId = `painel-${randomUUID()}`;
    const probe = await connect(clientId);

    const executionId = await execute(agent.id, 'stand-in:error status=401', clientId);
    const received = await untilFinal(probe, executionId);

    expect(received.map((message) => message.type).filter((type) => type === 'execution_started' || type === 'execution_retry')).toEqual([
      'execution_started',
    ]);
    expect((await call('GET', `/api/executions/history/${executionId}`)).body).toMatchObject({ status: 'error', attempt: 1 });
  }, 60_000);

  it('hands a completed result to the delegate, for the same client, and stops a chain A → B → A at its bound', async () => {
    const first = await standInAgent('delega-a', {});
    const second = await standInAgent('delega-b', { delegateTo: first.id });
    expect((await call('PUT', `/api/agents/${first.id}`, { config: { delegateTo: second.id } })).status).toBe(200);
    const clientId = `painel-${randomUUID()}`;
    const probe = await connect(clientId);
    const db = server.resources.database.db;
    const delegatedFrom = async (id: string) => db.select().from(executions).where(eq(executions.delegatedFrom, id));

    const rootId = await execute(first.id, 'stand-in:text', clientId);
    // Everything the client hears until the chain's last run says why it does not hand over.
    const heard: any[] = [];
    const boundLine = `Delegação para outro agente não feita: limite de ${DELEGATION_DEPTH_MAX} delegações em cadeia atingido`;
    await withTimeout(
      (async () => {
        for (;;) {
          const message: any = await probe.nextMessage();
          heard.push(message);
          if (message.type === 'execution_output' && message.data?.content === boundLine) return;
        }
      })(),
      150_000,
      'the end of the delegation chain',
    );

    const rootRecord = (await call('GET', `/api/executions/history/${rootId}`)).body;
    expect(rootRecord).toMatchObject({ status: 'completed', result: 'Stand-in answer in four parts.', delegatedFrom: null });
    // Depth 1: agent B gets A's result as its task, in A's working directory, for the same client.
    const [depth1] = await delegatedFrom(rootId);
    expect(depth1).toMatchObject({
      agentId: second.id,
      source: 'delegation',
      task: 'Stand-in answer in four parts.',
      delegationDepth: 1,
      clientId,
      workingDirectory: rootRecord.workingDirectory,
      status: 'completed',
      result: 'OK',
    });
    // Depth 2: back to A, which would delegate again; the bound (2) stops the chain there.
    const [depth2] = await delegatedFrom(depth1!.id);
    expect(depth2).toMatchObject({ agentId: first.id, source: 'delegation', task: 'OK', delegationDepth: 2, status: 'completed' });
    expect(await delegatedFrom(depth2!.id)).toEqual([]);

    // What the terminal showed, in order: each run's completion, then its hand-over line, then the next run.
    const summary = heard
      .filter(
        (message) =>
          message.type === 'execution_complete' ||
          (message.type === 'execution_output' && message.data.type === 'system' && !message.data.content.startsWith('Resultado:')),
      )
      .map((message) => [message.executionId, message.type === 'execution_complete' ? 'complete' : message.data.content]);
    expect(summary).toEqual([
      [rootId, 'complete'],
      [rootId, `Delegando para ${second.name}...`],
      [depth1!.id, 'complete'],
      [depth1!.id, `Delegando para ${first.name}...`],
      [depth2!.id, 'complete'],
      [depth2!.id, boundLine],
    ]);
    expect(heard.find((message) => message.type === 'execution_complete' && message.executionId === depth1!.id)).toMatchObject({
      agentId: second.id,
      agentName: second.name,
      data: { result: 'OK' },
    });
  }, 180_000);
});
