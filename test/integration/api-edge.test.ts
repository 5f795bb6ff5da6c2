import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import WebSocket from 'ws';
import { orchestrationApi } from '../../api/orchestration';
import { HOST_REFUSED_REASON, MAX_INCOMING_FRAME_BYTES, TOO_MANY_SOCKETS_REASON } from '../../api/websocket';
import type { Config } from '../../lib/config';
import { startTestServer, type TestServer } from '../support/server';
import { openSocket, refusedHandshake } from '../support/websocket';

/**
 * The edge of the service as a hostile client or a hostile page meets it (docs/orchestration-security.md,
 * threat table): every spelling of an /api path, every registered route, the Host header, cross-site
 * writes and the WebSocket's bounds. Requests go through node:http so paths reach the server exactly as
 * written (fetch would normalise `..` away).
 */

const TOKEN = 't'.repeat(32);
const FOREIGN_ORIGIN = 'https://evil.example';
const LISTED_ORIGIN = 'https://painel.example.org';

type Orchestration = Partial<Config['orchestration']>;

function configured(orchestration: Orchestration) {
  return (config: Config): Config => ({
    ...config,
    redis: { ...config.redis, keyPrefix: `${config.redis.keyPrefix}edge-${randomUUID()}:` },
    orchestration: { ...config.orchestration, rateLimit: { requests: 100_000, windowSeconds: 60 }, ...orchestration },
  });
}

const servers: TestServer[] = [];
async function start(orchestration: Orchestration): Promise<TestServer> {
  const server = await startTestServer(configured(orchestration));
  servers.push(server);
  return server;
}
afterAll(() => Promise.all(servers.map((server) => server.close())));

interface RawAnswer {
  status: number;
  body: any;
}

/** One request with the path sent byte for byte as given. */
function raw(server: TestServer, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: hostname,
        port,
        method,
        path,
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: response.statusCode ?? 0, body: parsed(text, response.headers['content-type']) });
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** JSON answers parsed; anything else (the CSV export, a report) as its text. */
function parsed(text: string, contentType: string | undefined): unknown {
  if (text === '') return null;
  return contentType?.includes('json') ? JSON.parse(text) : text;
}

const withToken = { authorization: `Bearer ${TOKEN}` };
const REQUIRED = { error: 'Autenticação necessária: envie Authorization: Bearer <token>' };

describe('the token holds for every spelling of an /api path', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await start({ authToken: TOKEN });
  });

  const spellings = [
    '/API/agents',
    '/Api/System/Status',
    '/api//agents',
    '/api/%61gents',
    '/api/%2561gents',
    '/api/agents/',
    '/api/./agents',
    '/api/v1/../agents',
    '/api/v1%2F..%2Fagents',
    '/api\\agents',
    '/API',
  ];

  it.each(spellings)('GET %s without the token answers 401', async (path) => {
    expect(await raw(server, 'GET', path)).toEqual({ status: 401, body: REQUIRED });
  });

  it('POST /API/agents without the token answers 401 and creates nothing', async () => {
    const before = await raw(server, 'GET', '/api/agents', withToken);
    const name = `case-${randomUUID()}`;
    const answer = await raw(server, 'POST', '/API/agents', {}, JSON.stringify({ name }));
    expect(answer).toEqual({ status: 401, body: REQUIRED });
    const after = await raw(server, 'GET', '/api/agents', withToken);
    expect(after.body).toEqual(before.body);
  });

  it.each(spellings.filter((path) => !['/API', '/api/agents/'].includes(path)))('%s with the token is not a route (404)', async (path) => {
    expect(await raw(server, 'GET', path, withToken)).toEqual({ status: 404, body: { error: 'Não encontrado' } });
  });

  it('serves the exact spelling with the token', async () => {
    const answer = await raw(server, 'GET', '/api/agents', withToken);
    expect(answer.status).toBe(200);
  });

  it.each([
    ['GET', '/api/reports/..%2Fv1'],
    ['DELETE', '/api/agents/x/secrets/..%2F..%2F..%2Fv1'],
    ['POST', '/api/agents/x/cancel/..%2F..%2F..%2Fv1'],
    ['GET', '/api/reports/..%2F..%2Fapi%2Fv1%2Fhealth'],
  ])('%s %s (a parameter that decodes to /api/v1) answers 401 without the token', async (method, path) => {
    expect(await raw(server, method, path)).toEqual({ status: 401, body: REQUIRED });
  });

  it('the /api router asks for the token itself, with no edge in front of it', async () => {
    const bare = new Koa();
    bare.use(orchestrationApi(server.resources).routes());
    const listening = bare.listen(0, '127.0.0.1');
    await new Promise((resolve) => listening.once('listening', resolve));
    try {
      const { port } = listening.address() as AddressInfo;
      const answer = await fetch(`http://127.0.0.1:${port}/api/agents`);
      expect(answer.status).toBe(401);
      const authorised = await fetch(`http://127.0.0.1:${port}/api/agents`, { headers: withToken });
      expect(authorised.status).toBe(200);
    } finally {
      await new Promise((resolve) => listening.close(resolve));
    }
  });

  it('answers GET /api/health without the token (contract row 72), and only that spelling', async () => {
    const answer = await raw(server, 'GET', '/api/health');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: 'ok', timestamp: expect.any(String), uptime: expect.any(Number) });
    expect(Date.parse(answer.body.timestamp)).not.toBeNaN();
    expect((await raw(server, 'GET', '/API/health')).status).toBe(404);
    expect((await raw(server, 'POST', '/api/health')).status).toBe(405);
  });

  it('leaves /api/v1 open, however it is spelled', async () => {
    expect((await raw(server, 'GET', '/api/v1/health')).status).toBe(200);
  });
});

describe('every registered /api route requires the token', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await start({ authToken: TOKEN });
  });

  /** Method and concrete path of every route of the orchestration router, parameters filled in. */
  function registeredRoutes(): Array<[string, string]> {
    const router = orchestrationApi(server.resources);
    const routes = new Map<string, [string, string]>();
    for (const layer of router.stack) {
      for (const method of layer.methods) {
        if (method === 'HEAD') continue;
        const path = String(layer.path)
          .replace(/:(\w+)/g, 'x')
          .replace(/[{}]/g, '');
        routes.set(`${method} ${path}`, [method, path]);
      }
    }
    return [...routes.values()];
  }

  it('finds the routes (the table below is not empty)', () => {
    expect(registeredRoutes().length).toBeGreaterThanOrEqual(20);
  });

  it('answers 401 without a token and with a wrong one, and lets the right one through, on each', async () => {
    const seen: string[] = [];
    for (const [method, path] of registeredRoutes()) {
      const body = method === 'GET' || method === 'DELETE' ? undefined : '{}';
      const none = await raw(server, method, path, {}, body);
      const wrong = await raw(server, method, path, { authorization: `Bearer ${'w'.repeat(32)}` }, body);
      const right = await raw(server, method, path, withToken, body);
      seen.push(`${method} ${path}: ${none.status} ${wrong.status} ${right.status === 401 ? 401 : 'passed'}`);
    }
    // The health check is the one open route (contract row 72); every other one refuses both.
    const expected = (line: string) => line.replace(/: .*$/, line.startsWith('GET /api/health:') ? ': 200 200 passed' : ': 401 401 passed');
    expect(seen).toEqual(seen.map(expected));
    expect(seen).toContain('GET /api/health: 200 200 passed');
  });
});

describe('Host header (DNS rebinding)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await start({ allowedHosts: ['localhost', '127.0.0.1', '[::1]', 'consultores.example.org'] });
  });

  it('refuses a host the service does not answer to, on both services, with 403', async () => {
    const orchestration = await raw(server, 'GET', '/api/system/status', { host: 'rebound.evil.example' });
    const ranking = await raw(server, 'GET', '/api/v1/health', { host: 'rebound.evil.example:3000' });
    expect(orchestration.status).toBe(403);
    expect(orchestration.body.error).toBe(
      'Host não permitido: "rebound.evil.example"; o serviço atende a localhost, 127.0.0.1, [::1], consultores.example.org (ALLOWED_HOSTS)',
    );
    expect(ranking.status).toBe(403);
    // The same text in the ranking service's envelope: both speak pt-BR (docs/errors.md).
    expect(ranking.body.detail).toBe(
      'Host não permitido: "rebound.evil.example:3000"; o serviço atende a localhost, 127.0.0.1, [::1], consultores.example.org (ALLOWED_HOSTS)',
    );
  });

  it('answers the loopback names and a listed host, with any port', async () => {
    for (const host of ['localhost:3000', '127.0.0.1', '[::1]:8080', 'Consultores.Example.Org']) {
      expect([host, (await raw(server, 'GET', '/api/system/status', { host })).status]).toEqual([host, 200]);
    }
  });

  it('refuses a WebSocket handshake for another host with 403', async () => {
    const url = `${server.url.replace(/^http/, 'ws')}/ws?clientId=rebound`;
    expect(await refusedHandshake(url, { Host: 'rebound.evil.example' })).toEqual({
      status: 403,
      authenticate: null,
      body: { error: HOST_REFUSED_REASON },
    });
  });
});

describe('cross-site writes', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await start({ corsOrigins: [LISTED_ORIGIN] });
  });

  async function agentNames(): Promise<unknown> {
    return (await raw(server, 'GET', '/api/agents')).body;
  }

  it('refuses a form POST from a page of another site with 403 and creates nothing', async () => {
    const before = await agentNames();
    const form = await raw(
      server,
      'POST',
      '/api/agents',
      { origin: FOREIGN_ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
      'name=x',
    );
    const json = await raw(server, 'POST', '/api/agents', { origin: FOREIGN_ORIGIN }, JSON.stringify({ name: `csrf-${randomUUID()}` }));
    const bodyless = await raw(server, 'DELETE', '/api/executions', { 'sec-fetch-site': 'cross-site' });
    const sandboxed = await raw(server, 'PUT', '/api/settings', { origin: 'null' }, '{}');
    for (const answer of [form, json, bodyless, sandboxed]) expect(answer.status).toBe(403);
    expect(json.body.error).toBe(`Requisição de outro site recusada: a origem "${FOREIGN_ORIGIN}" não é permitida (CORS_ORIGINS)`);
    expect(bodyless.body.error).toBe('Requisição de outro site recusada: uma página cross-site não pode alterar nada aqui');
    expect(await agentNames()).toEqual(before);
  });

  it('refuses a cross-site POST to the ranking service with 403 and {detail}', async () => {
    const answer = await raw(server, 'POST', '/api/v1/ranking/processar', { origin: FOREIGN_ORIGIN });
    expect(answer.status).toBe(403);
    expect(answer.body.detail).toBe(`Requisição de outro site recusada: a origem "${FOREIGN_ORIGIN}" não é permitida (CORS_ORIGINS)`);
  });

  it("lets the service's own pages, a listed origin and non-browser clients write", async () => {
    const own = await raw(server, 'POST', '/api/agents', { origin: server.url, 'sec-fetch-site': 'same-origin' }, '{}');
    const listed = await raw(server, 'POST', '/api/agents', { origin: LISTED_ORIGIN }, '{}');
    const cli = await raw(server, 'POST', '/api/agents', {}, '{}');
    // Past the defence the body is validated: 400 for an empty agent, not 403.
    expect([own.status, listed.status, cli.status]).toEqual([400, 400, 400]);
  });

  it('leaves reads from other sites alone (CORS decides what a page may read)', async () => {
    expect((await raw(server, 'GET', '/api/system/status', { origin: FOREIGN_ORIGIN, 'sec-fetch-site': 'cross-site' })).status).toBe(200);
  });
});

describe('WebSocket bounds', () => {
  it(`closes a socket that sends a frame over ${MAX_INCOMING_FRAME_BYTES} bytes with 1009`, async () => {
    const server = await start({});
    const probe = await openSocket(`${server.url.replace(/^http/, 'ws')}/ws?clientId=grande`);
    await probe.nextMessage();
    probe.socket.send('x'.repeat(2 * 1024 * 1024));
    expect((await probe.closed).code).toBe(1009);
  });

  it('refuses a socket beyond the cap per client address with 429, and opens again once one closes', async () => {
    const server = await start({ websocket: { maxSocketsPerClient: 2, pingIntervalMs: 30_000 } });
    const url = `${server.url.replace(/^http/, 'ws')}/ws?clientId=muitos`;
    const first = await openSocket(url);
    const second = await openSocket(url);
    expect(await refusedHandshake(url)).toEqual({ status: 429, authenticate: null, body: { error: TOO_MANY_SOCKETS_REASON } });
    first.socket.close();
    await first.closed;
    const third = await waitFor(() => openSocket(url));
    expect(await third.nextMessage()).toEqual({ type: 'connected', clientId: 'muitos' });
    second.socket.close();
    third.socket.close();
  });

  it('ends a socket that stops answering pings, which frees its place under the cap', async () => {
    const server = await start({ websocket: { maxSocketsPerClient: 1, pingIntervalMs: 200 } });
    const url = `${server.url.replace(/^http/, 'ws')}/ws?clientId=mudo`;
    const silent = new WebSocket(url, { autoPong: false });
    const closed = new Promise<number>((resolve) => silent.on('close', (code) => resolve(code)));
    await new Promise((resolve) => silent.once('open', resolve));
    expect((await refusedHandshake(url)).status).toBe(429);
    // Terminated by the server without a close frame: the client sees 1006 (abnormal closure).
    expect(await closed).toBe(1006);
    const next = await waitFor(() => openSocket(url));
    expect(await next.nextMessage()).toEqual({ type: 'connected', clientId: 'mudo' });
    next.socket.close();
  });

  it('keeps a socket that answers its pings', async () => {
    const server = await start({ websocket: { maxSocketsPerClient: 4, pingIntervalMs: 100 } });
    const probe = await openSocket(`${server.url.replace(/^http/, 'ws')}/ws?clientId=vivo`);
    let pings = 0;
    probe.socket.on('ping', () => (pings += 1));
    await until(() => pings >= 5);
    expect(probe.socket.readyState).toBe(WebSocket.OPEN);
    probe.socket.close();
  });
});

/** Retries an attempt (e.g. a handshake still counted while its close is processed) for up to 5 s. */
async function waitFor<T>(attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached within 5000 ms');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
