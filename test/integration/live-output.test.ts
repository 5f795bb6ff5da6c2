import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type Redis from 'ioredis';
import { WebSocketServer } from 'ws';
import { CLOSE_TRY_AGAIN_LATER, LiveRelay, SLOW_CLIENT_REASON } from '../../api/live-relay';
import { claudeCode } from '../../activities/agents/claude-code';
import { config as baseConfig, type Config } from '../../lib/config';
import {
  ExecutionLiveStream,
  FINAL_EXECUTION_MESSAGE_TYPES,
  liveChannel,
  liveChannelPattern,
  liveTargetOf,
  publishLiveMessage,
  type ExecutionOutputMessage,
  type LiveMessage,
} from '../../lib/live-output';
import { logger } from '../../lib/logger';
import { CANCELLED_ERROR } from '../../domain/execution-errors';
import type { StandInModel } from '../support/stand-in-model';
import { jsonCall } from '../support/json-api';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import { closeRedis, createRedis } from '../../lib/redis';
import { withTimeout } from '../../lib/timeout';
import { unusedPort } from '../support/ports';
import { startTestServer, type TestServer } from '../support/server';
import { until } from '../support/waiting';
import { openSocket, type SocketProbe } from '../support/websocket';

/** Bound of every wait: a message that should arrive does well within it; a failure does not hang the suite. */
const BOUND_MS = 5_000;

const servers: TestServer[] = [];
const probes: SocketProbe[] = [];
const connections: Redis[] = [];

afterAll(async () => {
  for (const probe of probes) probe.socket.terminate();
  await Promise.all(servers.map((server) => server.close()));
  await Promise.all(connections.map((connection) => closeRedis(connection)));
});

/** A config whose Redis prefix (keys and live channels) belongs to one test, under the run's own prefix. */
function ownPrefix(config: Config): Config {
  return { ...config, redis: { ...config.redis, keyPrefix: `${config.redis.keyPrefix}live-${randomUUID()}:` } };
}

async function start(override?: (config: Config) => Config): Promise<TestServer> {
  const server = await startTestServer(override);
  servers.push(server);
  return server;
}

/** A Redis connection like the one of the worker that runs an execution (it knows no API process). */
function workerRedis(redisConfig: Config['redis']): Redis {
  const connection = createRedis(redisConfig, 'test-live-publisher');
  connections.push(connection);
  return connection;
}

async function connect(server: TestServer, clientId: string): Promise<SocketProbe> {
  const probe = await openSocket(`${server.url.replace(/^http/, 'ws')}/?clientId=${encodeURIComponent(clientId)}`);
  probes.push(probe);
  expect(await next(probe)).toEqual({ type: 'connected', clientId });
  return probe;
}

function next(probe: SocketProbe): Promise<unknown> {
  return withTimeout(probe.nextMessage(), BOUND_MS, 'websocket message');
}

async function nextMessages(probe: SocketProbe, count: number): Promise<unknown[]> {
  const received: unknown[] = [];
  for (let i = 0; i < count; i++) received.push(await next(probe));
  return received;
}

async function eventually(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + BOUND_MS;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not reached within ${BOUND_MS} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const uniqueClient = (name: string) => `${name}-${randomUUID()}`;

function output(executionId: string, seq: number, content: string): ExecutionOutputMessage {
  return {
    type: 'execution_output',
    executionId,
    agentId: 'agente-1',
    agentName: 'revisor',
    seq,
    at: new Date().toISOString(),
    data: { type: 'chunk', content },
  };
}

/**
 * Proves a socket received nothing before: a fence published after everything else must be the very
 * next message it gets (one subscriber connection per process delivers in publish order).
 */
async function expectNothingBefore(redis: Redis, probe: SocketProbe, clientId: string): Promise<void> {
  const fence = output(`fence-${randomUUID()}`, 1, 'fence');
  await publishLiveMessage(redis, { clientId }, fence);
  expect(await next(probe)).toEqual(fence);
}

const CREDENTIALS_HINT = claudeCode.failureHint!('Invalid API key');

describe('live output on one server', () => {
  let server: TestServer;
  let redis: Redis;

  beforeAll(async () => {
    server = await start();
    redis = workerRedis(server.resources.config.redis);
  });

  it("delivers a client's messages, in order, in the panel's shapes, to every socket of that client and to no other client", async () => {
    const a = uniqueClient('a');
    const b = uniqueClient('b');
    const [a1, a2, b1] = [await connect(server, a), await connect(server, a), await connect(server, b)];
    const execution = {
      executionId: randomUUID(),
      agentId: randomUUID(),
      agentName: 'revisor',
      pipelineExecutionId: null,
      source: 'manual',
    };
    const { executionId, agentId, agentName } = execution;
    const live = new ExecutionLiveStream(redis, { clientId: a }, execution);

    await live.started();
    await live.output({ type: 'chunk', content: 'Vou ler o README.' });
    await live.output({ type: 'tool', toolName: 'Read', content: 'Read: README.md' });
    await live.output({ type: 'turn', content: 'Turno 1', turn: 1 });
    await live.report('2026-11-21_150311_revisor_0d1c5a4e.md');
    await live.finished({
      status: 'completed',
      costUsd: 0.0123,
      durationMs: 1500,
      sessionId: 'sessao-1',
      error: null,
      result: 'Pronto.',
      exitCode: 0,
      stderr: '',
      turns: 1,
    });

    for (const probe of [a1, a2]) {
      expect(await nextMessages(probe, 6)).toEqual([
        { type: 'execution_started', ...execution, at: expect.any(String) },
        {
          type: 'execution_output',
          executionId,
          agentId,
          agentName,
          seq: 1,
          at: expect.any(String),
          data: { type: 'chunk', content: 'Vou ler o README.' },
        },
        {
          type: 'execution_output',
          executionId,
          agentId,
          agentName,
          seq: 2,
          at: expect.any(String),
          data: { type: 'tool', toolName: 'Read', content: 'Read: README.md' },
        },
        {
          type: 'execution_output',
          executionId,
          agentId,
          agentName,
          seq: 3,
          at: expect.any(String),
          data: { type: 'turn', content: 'Turno 1', turn: 1 },
        },
        {
          type: 'report_generated',
          executionId,
          agentId,
          agentName,
          reportFile: '2026-11-21_150311_revisor_0d1c5a4e.md',
          at: expect.any(String),
        },
        {
          type: 'execution_complete',
          ...execution,
          status: 'completed',
          lastSeq: 3,
          at: expect.any(String),
          data: {
            executionId,
            exitCode: 0,
            result: 'Pronto.',
            stderr: '',
            canceled: false,
            costUsd: 0.0123,
            totalCostUsd: 0.0123,
            durationMs: 1500,
            numTurns: 1,
            sessionId: 'sessao-1',
          },
        },
      ]);
    }
    await expectNothingBefore(redis, b1, b);
    expect(b1.messages).toEqual([]);
  });

  it('ends a failed run with execution_error, a canceled one with execution_canceled (no error for the panel), costs always numbers', async () => {
    const a = uniqueClient('a');
    const a1 = await connect(server, a);
    const execution = {
      executionId: randomUUID(),
      agentId: randomUUID(),
      agentName: 'revisor',
      pipelineExecutionId: null,
      source: 'manual',
    };
    const live = new ExecutionLiveStream(redis, { clientId: a }, execution, 8);

    await live.finished({
      status: 'error',
      costUsd: null,
      durationMs: null,
      sessionId: null,
      error: 'claude-code terminou com o código 1: Invalid API key',
    });
    await live.finished({ status: 'canceled', costUsd: null, durationMs: null, sessionId: 's-2', error: 'cancelada a pedido do usuário' });

    const common = {
      executionId: execution.executionId,
      exitCode: null,
      result: '',
      stderr: '',
      costUsd: 0,
      totalCostUsd: 0,
      durationMs: null,
      numTurns: null,
    };
    expect(await nextMessages(a1, 2)).toEqual([
      {
        type: 'execution_error',
        ...execution,
        status: 'error',
        lastSeq: 7,
        at: expect.any(String),
        data: { ...common, sessionId: null, canceled: false, error: 'claude-code terminou com o código 1: Invalid API key' },
      },
      {
        type: 'execution_canceled',
        ...execution,
        status: 'canceled',
        lastSeq: 7,
        at: expect.any(String),
        data: { ...common, sessionId: 's-2', canceled: true, error: 'cancelada a pedido do usuário' },
      },
    ]);
  });

  it('sends a retry with its fields at the top level, where the panel reads them (contract 7.1), and under data', async () => {
    const a = uniqueClient('a');
    const a1 = await connect(server, a);
    const execution = {
      executionId: randomUUID(),
      agentId: randomUUID(),
      agentName: 'revisor',
      pipelineExecutionId: null,
      source: 'manual',
    };
    const retry = { attempt: 1, maxRetries: 3, nextRetryIn: 5, reason: 'exit code 1' };
    await new ExecutionLiveStream(redis, { clientId: a }, execution).retry(retry);
    expect(await next(a1)).toEqual({ type: 'execution_retry', ...execution, ...retry, data: retry, at: expect.any(String) });
  });

  it('broadcasts to every client the messages of executions started by a schedule', async () => {
    const a = uniqueClient('a');
    const b = uniqueClient('b');
    const [a1, b1] = [await connect(server, a), await connect(server, b)];
    const target = liveTargetOf({ source: 'schedule', clientId: a });
    expect(target).toBe('all');
    const live = new ExecutionLiveStream(redis, target!, {
      executionId: randomUUID(),
      agentId: randomUUID(),
      agentName: 'noturno',
      pipelineExecutionId: null,
      source: 'schedule',
    });

    await live.queued();
    await live.output({ type: 'chunk', content: 'agendada' });

    for (const probe of [a1, b1]) {
      const [queued, chunk] = await nextMessages(probe, 2);
      expect(queued).toMatchObject({ type: 'execution_queued', agentName: 'noturno', source: 'schedule' });
      expect(chunk).toMatchObject({ type: 'execution_output', seq: 1, agentName: 'noturno', data: { type: 'chunk', content: 'agendada' } });
    }
  });

  it('routes other sources to the requesting client, and nowhere without a client id', () => {
    expect(liveTargetOf({ source: 'manual', clientId: 'c-1' })).toEqual({ clientId: 'c-1' });
    expect(liveTargetOf({ source: 'manual', clientId: null })).toBeNull();
    // A delegated run goes where its chain began (contract 4.2): a person's client, or everyone after a schedule or a webhook.
    expect(liveTargetOf({ source: 'delegation', clientId: 'c-1', scheduleId: null, webhookId: null })).toEqual({ clientId: 'c-1' });
    expect(liveTargetOf({ source: 'delegation', clientId: null, scheduleId: 's-1', webhookId: null })).toBe('all');
    expect(liveTargetOf({ source: 'delegation', clientId: null, scheduleId: null, webhookId: 'w-1' })).toBe('all');
    expect(liveChannel('p:', { clientId: 'c-1' })).toBe('p:live:client:c-1');
    expect(liveChannel('p:', 'all')).toBe('p:live:all');
    expect(liveChannelPattern('p*[x]:')).toBe('p\\*\\[x\\]:live:*');
  });

  it('drops a closed socket from the registry and keeps serving the others', async () => {
    const a = uniqueClient('a');
    const [a1, a2] = [await connect(server, a), await connect(server, a)];
    const relay = server.resources.liveRelay;
    expect(relay.socketsOf(a)).toHaveLength(2);

    a1.socket.close();
    await a1.closed;
    await eventually(() => relay.socketsOf(a).length === 1, 'one socket left');

    const message = output(randomUUID(), 1, 'ainda aqui');
    await publishLiveMessage(redis, { clientId: a }, message);
    expect(await next(a2)).toEqual(message);

    a2.socket.close();
    await a2.closed;
    await eventually(() => relay.socketsOf(a).length === 0, 'no socket left');
  });

  it('drops messages for a client it does not hold, without error', async () => {
    const a = uniqueClient('a');
    const a1 = await connect(server, a);

    // The server's subscriber hears it (1 listener at least) and has nobody to give it to.
    const listeners = await publishLiveMessage(redis, { clientId: uniqueClient('ninguem') }, output(randomUUID(), 1, 'x'));
    expect(listeners).toBeGreaterThanOrEqual(1);

    await expectNothingBefore(redis, a1, a);
    expect(server.resources.liveRelay.state.closed).toBe(false);
  });

  it('drops malformed messages and relays the next good one', async () => {
    const a = uniqueClient('a');
    const a1 = await connect(server, a);
    const prefix = server.resources.config.redis.keyPrefix;

    for (const bad of ['not json', '{"sem":"tipo"}', '[1,2,3]', 'null', '{"type":42}', '{"type":"execution_output"']) {
      await redis.publish(liveChannel(prefix, { clientId: a }), bad);
    }
    await redis.publish(`${prefix}live:desconhecido`, JSON.stringify(output(randomUUID(), 1, 'canal errado')));
    await redis.publish(liveChannel(prefix, 'all'), '{broken');
    const good = output(randomUUID(), 1, 'boa');
    await publishLiveMessage(redis, { clientId: a }, good);

    expect(await next(a1)).toEqual(good);
    expect(a1.messages).toEqual([]);
  });
});

describe('live output across API processes', () => {
  it('reaches a client whichever server holds its socket; the publisher knows no server', async () => {
    const override = ownPrefix(baseConfig);
    const [one, two] = [await start(() => override), await start(() => override)];
    const publisher = workerRedis(override.redis);
    const onOne = uniqueClient('no-servidor-1');
    const onTwo = uniqueClient('no-servidor-2');
    const [p1, p2] = [await connect(one, onOne), await connect(two, onTwo)];

    const forOne = output(randomUUID(), 1, 'para o cliente do servidor 1');
    const forTwo = output(randomUUID(), 1, 'para o cliente do servidor 2');
    // Both API processes hear every message under the prefix: each PUBLISH has two listeners.
    expect(await publishLiveMessage(publisher, { clientId: onOne }, forOne)).toBe(2);
    expect(await publishLiveMessage(publisher, { clientId: onTwo }, forTwo)).toBe(2);
    const broadcast: LiveMessage = output(randomUUID(), 1, 'para todos');
    expect(await publishLiveMessage(publisher, 'all', broadcast)).toBe(2);

    expect(await nextMessages(p1, 2)).toEqual([forOne, broadcast]);
    expect(await nextMessages(p2, 2)).toEqual([forTwo, broadcast]);
    expect(one.resources.liveRelay.socketsOf(onTwo)).toEqual([]);
    expect(two.resources.liveRelay.socketsOf(onOne)).toEqual([]);
  });
});

describe('the subscriber connection', () => {
  async function redisClientNames(redis: Redis): Promise<string[]> {
    const list = (await redis.client('LIST')) as string;
    return list.split('\n').map((line) => /\bname=(\S*)/.exec(line)?.[1] ?? '');
  }

  it('is opened by the first socket only, once per process, and released when the server closes', async () => {
    const override = ownPrefix(baseConfig);
    const connectionName = `live-relay:${override.redis.keyPrefix}`;
    const server = await startTestServer(() => override);
    const observer = workerRedis(baseConfig.redis);
    const relay = server.resources.liveRelay;
    try {
      expect(relay.state.subscriber).toBe('none');
      expect(await redisClientNames(observer)).not.toContain(connectionName);

      await connect(server, uniqueClient('a'));
      await connect(server, uniqueClient('b'));
      expect(relay.state).toEqual({ clients: 2, sockets: 2, subscriber: 'ready', closed: false });
      expect((await redisClientNames(observer)).filter((name) => name === connectionName)).toHaveLength(1);
    } finally {
      await server.close();
    }

    expect(relay.state).toEqual({ clients: 0, sockets: 0, subscriber: 'none', closed: true });
    await eventually(async () => !(await redisClientNames(observer)).includes(connectionName), 'subscriber gone from Redis');
  });

  it('leaves a server that never serves a socket without a subscriber', async () => {
    const server = await startTestServer(ownPrefix);
    const relay = server.resources.liveRelay;
    await fetch(`${server.url}/api/v1/health`);
    expect(relay.state.subscriber).toBe('none');
    await server.close();
    expect(relay.state).toEqual({ clients: 0, sockets: 0, subscriber: 'none', closed: true });
  });
});

describe('with Redis down', () => {
  it('still greets a client, and keeps its socket registered for when Redis is back', async () => {
    const closedPort = await unusedPort();
    const server = await start((config) => ({
      ...ownPrefix(config),
      redis: { ...config.redis, port: closedPort },
      dependencyTimeoutMs: 200,
    }));
    const clientId = uniqueClient('sem-redis');

    await connect(server, clientId);

    expect(server.resources.liveRelay.socketsOf(clientId)).toHaveLength(1);
    expect(['connecting', 'reconnecting']).toContain(server.resources.liveRelay.state.subscriber);
  });
});

describe('a slow client', () => {
  it('is closed with 1013 once its unsent backlog passes the bound, instead of buffering without end', async () => {
    const config = ownPrefix(baseConfig);
    const relay = new LiveRelay({ redis: config.redis, logger, maxBufferedBytes: 256 * 1024 });
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((resolve) => wss.once('listening', resolve));
    const clientId = uniqueClient('lento');
    const registered = new Promise<void>((resolve, reject) => {
      wss.on('connection', (socket) => relay.register(clientId, socket).then(resolve, reject));
    });
    const publisher = workerRedis(config.redis);
    try {
      const probe = await openSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}/`);
      await registered;
      probe.socket.pause();

      const chunk = 'x'.repeat(1024 * 1024);
      let published = 0;
      while (relay.socketsOf(clientId).length > 0) {
        if (published === 200) throw new Error('the slow socket was never closed');
        await publishLiveMessage(publisher, { clientId }, output('lenta', ++published, chunk));
        // Let the relay take the message before looking at the registry again.
        await new Promise((resolve) => setTimeout(resolve, 5));
      }

      probe.socket.resume();
      expect(await withTimeout(probe.closed, 40_000, 'close of the slow socket')).toEqual({
        code: CLOSE_TRY_AGAIN_LATER,
        reason: SLOW_CLIENT_REASON,
      });
      const seqs = probe.messages.map((message) => (message as ExecutionOutputMessage).seq);
      // What it got is a gapless beginning; the rest it fetches from the execution record.
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
      expect(seqs.length).toBeLessThan(published);
    } finally {
      await relay.close();
      await new Promise((resolve) => wss.close(resolve));
    }
  });
});

/**
 * An agent run as the admin panel's terminal sees it: the REAL Claude Code CLI (pinned, as the pool's
 * users) against the stand-in model, an agents worker, the API, and a WebSocket client at `/`
 * (contract 4.1, 4.3-4.5; docs/websocket.md).
 */
describe('an agent run over the socket, with the real Claude Code CLI against the stand-in model', () => {
  let agents: RealAgents;
  let server: TestServer;
  let model: StandInModel;

  beforeAll(async () => {
    agents = await startRealAgents({ name: 'live-output', maxConcurrent: 4 });
    ({ server, model } = agents);
  }, 60_000);

  afterAll(() => agents?.close());

  const call = (method: string, urlPath: string, body?: unknown, clientId?: string) =>
    jsonCall(server.url, method, urlPath, body, clientId);

  /** An agent whose runs reach the stand-in (its address and key are the agent's secrets), on the settings' default model. */
  const standInAgent = (name: string) => agents.standInAgent(name, { model: '', permissionMode: 'bypassPermissions' });

  async function execute(agentId: string, task: string, clientId: string): Promise<string> {
    const answer = await call('POST', `/api/agents/${agentId}/execute`, { task }, clientId);
    expect(answer.status).toBe(202);
    return answer.body.executionId as string;
  }

  /**
   * Every message of one execution, up to its final one (FINAL_EXECUTION_MESSAGE_TYPES). Another run's
   * messages are skipped: a webhook's or a schedule's run is broadcast to every client, and one left
   * finishing by the suite before (same jest worker, same relay) reached this client once. The routing
   * to one client only is the first test's.
   */
  async function untilFinal(probe: SocketProbe, executionId: string): Promise<any[]> {
    const received: any[] = [];
    for (;;) {
      const message: any = await withTimeout(probe.nextMessage(), 60_000, `messages of ${executionId}`);
      if (message.executionId !== executionId) continue;
      received.push(message);
      if (FINAL_EXECUTION_MESSAGE_TYPES.includes(message.type)) return received;
    }
  }

  it('streams a tool call as the panel renders it: tool line, text, turns, summary, then report_generated and execution_complete', async () => {
    const agent = await standInAgent('ferramenta');
    const clientId = uniqueClient('painel');
    const other = uniqueClient('outro-painel');
    const [probe, otherProbe] = [await connect(server, clientId), await connect(server, other)];

    const executionId = await execute(agent.id, 'Write the file. stand-in:write-file path=out/hello.txt content=hello-panel', clientId);
    const received = await untilFinal(probe, executionId);
    const record = (await call('GET', `/api/executions/history/${executionId}`)).body;

    const identity = { executionId, agentId: agent.id, agentName: agent.name };
    expect(received.map((message) => message.type)).toEqual([
      'execution_queued',
      'execution_started',
      ...Array(6).fill('execution_output'),
      'report_generated',
      'execution_complete',
    ]);
    const outputs = received.filter((message) => message.type === 'execution_output');
    expect(outputs.map((message) => message.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(outputs.every((message) => message.agentId === agent.id && message.agentName === agent.name)).toBe(true);
    const cost = record.costUsd as number;
    expect(cost).toBeGreaterThan(0);
    expect(outputs.map((message) => message.data)).toEqual([
      { type: 'chunk', content: 'Writing out/hello.txt.' },
      {
        type: 'tool',
        toolName: 'Bash',
        content: "Bash: mkdir -p 'out' && printf '%s\\n' 'hello-panel' > 'out/hello.txt' && cat 'out/hello.txt'",
      },
      { type: 'turn', content: 'Turno 1', turn: 1 },
      { type: 'chunk', content: 'Wrote the file: hello-panel' },
      { type: 'turn', content: 'Turno 2', turn: 2 },
      {
        type: 'system',
        content: `Resultado: 2 turnos | custo: $${cost.toFixed(4)} | duração: ${(record.durationMs / 1000).toFixed(1)}s | sessão: ${String(record.sessionId).slice(0, 8)}...`,
      },
    ]);
    expect(received[8]).toEqual({ type: 'report_generated', ...identity, reportFile: record.reportFile, at: expect.any(String) });
    expect(received[9]).toEqual({
      type: 'execution_complete',
      ...identity,
      pipelineExecutionId: null,
      source: 'manual',
      status: 'completed',
      lastSeq: 6,
      at: expect.any(String),
      data: {
        executionId,
        exitCode: 0,
        result: 'Wrote the file: hello-panel',
        stderr: '',
        canceled: false,
        costUsd: cost,
        totalCostUsd: cost,
        durationMs: record.durationMs,
        numTurns: 2,
        sessionId: record.sessionId,
      },
    });
    expect(record.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
    // What a client catching up reads: the same lines, as the terminal marks them.
    expect(record.outputSeq).toBe(6);
    expect(record.output).toBe(
      "Writing out/hello.txt.\n▸ Bash: mkdir -p 'out' && printf '%s\\n' 'hello-panel' > 'out/hello.txt' && cat 'out/hello.txt'\n── Turno 1 ──\n" +
        `Wrote the file: hello-panel\n── Turno 2 ──\n${outputs[5].data.content}\n`,
    );
    // The report the panel opens on report_generated.
    const report = await call('GET', `/api/reports/${encodeURIComponent(record.reportFile)}`);
    expect(report.status).toBe(200);
    expect(report.body.content).toContain('Wrote the file: hello-panel');

    // The other client heard nothing of it.
    await expectNothingBefore(workerRedis(server.resources.config.redis), otherProbe, other);
    expect(otherProbe.messages).toEqual([]);
  });

  it("ends a run the model refuses with execution_error carrying the CLI's message", async () => {
    const agent = await standInAgent('chave-recusada');
    const clientId = uniqueClient('painel');
    const probe = await connect(server, clientId);

    const executionId = await execute(agent.id, 'stand-in:error status=401', clientId);
    const received = await untilFinal(probe, executionId);

    expect(received.map((message) => message.type)).toEqual([
      'execution_queued',
      'execution_started',
      'execution_output',
      'execution_error',
    ]);
    expect(received[2].data).toEqual({ type: 'system', content: expect.stringMatching(/^Resultado: 1 turnos \| custo: \$0\.0000 \| /) });
    expect(received[3]).toMatchObject({
      type: 'execution_error',
      executionId,
      agentId: agent.id,
      agentName: agent.name,
      status: 'error',
      lastSeq: 1,
      data: {
        executionId,
        canceled: false,
        exitCode: 1,
        costUsd: 0,
        error: `claude-code terminou com o código 1: Invalid API key · Fix external API key (${CREDENTIALS_HINT})`,
      },
    });
  });

  it('ends a canceled run with the line "Execução cancelada" and execution_canceled (no error), the record canceled', async () => {
    const agent = await standInAgent('cancelada');
    const clientId = uniqueClient('painel');
    const probe = await connect(server, clientId);

    const executionId = await execute(agent.id, 'stand-in:slow deltas=600 every=100', clientId);
    // Cancel while the model streams (the slow scenario's deltas end no line: the text is held, nothing is printed yet).
    await until(
      'the stand-in streams',
      async () => model.messages().filter((request) => request.answer === 'scenario:slow' && request.streamCompleted === false).length,
      (n) => n > 0,
      30_000,
    );
    expect((await call('POST', `/api/agents/${agent.id}/cancel/${executionId}`)).status).toBe(200);
    const received = await untilFinal(probe, executionId);

    expect(received.slice(0, 2).map((message) => message.type)).toEqual(['execution_queued', 'execution_started']);
    const final = received.at(-1);
    expect(final).toMatchObject({
      type: 'execution_canceled',
      executionId,
      status: 'canceled',
      data: { executionId, canceled: true, error: CANCELLED_ERROR },
    });
    // No execution_error: the panel would pop "Erro na execução" for a stop the user asked for.
    expect(received.filter((message) => message.type === 'execution_error')).toEqual([]);
    // The terminal's last line says what happened, in the system style (not an error line), and the record keeps it.
    const lastLine = received.at(-2);
    expect(lastLine).toMatchObject({ type: 'execution_output', executionId, data: { type: 'system', content: 'Execução cancelada' } });
    const record = (await call('GET', `/api/executions/history/${executionId}`)).body;
    expect(record.status).toBe('canceled');
    expect(record.output.endsWith('Execução cancelada\n')).toBe(true);
    expect(final.lastSeq).toBe(record.outputSeq);
    expect(lastLine.seq).toBe(final.lastSeq);
  });
});
