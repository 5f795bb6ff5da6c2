import { randomUUID } from 'node:crypto';
import { CLOSE_POLICY_VIOLATION, ORIGIN_REFUSED_REASON, TOKEN_INVALID_REASON, TOKEN_REQUIRED_REASON } from '../../api/websocket';
import type { Config } from '../../lib/config';
import { httpCall } from '../support/json-api';
import { unusedPort } from '../support/ports';
import { startTestServer, type TestServer } from '../support/server';
import { openSocket, refusedHandshake } from '../support/websocket';

const TOKEN = 'x'.repeat(32);
const ALLOWED_ORIGIN = 'https://painel.example.org';
const REFUSED_ORIGIN = 'https://outro.example.org';

type Security = Partial<Config['orchestration']>;

/**
 * A server with its own security settings and its own rate-limit budgets: every Redis key of the
 * test lives under a fresh prefix (still under the test run's REDIS_KEY_PREFIX), so budgets spent by
 * other tests or files never count here. Servers given the same `namespace` share budgets.
 */
function secured(security: Security, namespace = randomUUID()) {
  return (config: Config): Config => ({
    ...config,
    redis: { ...config.redis, keyPrefix: `${config.redis.keyPrefix}security-${namespace}:` },
    orchestration: { ...config.orchestration, ...security },
  });
}

const generousLimit = { rateLimit: { requests: 1_000, windowSeconds: 60 } };

const call = (base: TestServer, path: string, init: RequestInit = {}) => httpCall(base.url + path, init);

function bearer(token: string): RequestInit {
  return { headers: { authorization: `Bearer ${token}` } };
}

const servers: TestServer[] = [];

async function start(override: (config: Config) => Config): Promise<TestServer> {
  const server = await startTestServer(override);
  servers.push(server);
  return server;
}

afterAll(() => Promise.all(servers.map((server) => server.close())));

describe('token on /api (AUTH_TOKEN set)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await start(secured({ ...generousLimit, authToken: TOKEN }));
  });

  it('answers 401 with a Bearer challenge when the token is missing', async () => {
    const answer = await call(server, '/api/system/status');
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    expect(answer.body).toEqual({ error: 'Autenticação necessária: envie Authorization: Bearer <token>' });
  });

  it('answers 401 to a wrong token, of any length, and to another scheme', async () => {
    for (const token of ['y'.repeat(32), 'x'.repeat(31), `${TOKEN}x`]) {
      const answer = await call(server, '/api/system/status', bearer(token));
      expect([answer.status, answer.headers.get('www-authenticate'), answer.body]).toEqual([401, 'Bearer', { error: 'Token inválido' }]);
    }
    const basic = await call(server, '/api/system/status', { headers: { authorization: `Basic ${TOKEN}` } });
    expect(basic.status).toBe(401);
    expect(basic.body).toEqual({ error: 'Autenticação necessária: envie Authorization: Bearer <token>' });
  });

  it('stops the request before the body parser and the routes', async () => {
    // With the token each of these reaches a later layer: 400 (body parser), 405 (router), 404 (no route).
    const malformed = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a": tru' };
    const withToken = { headers: { ...malformed.headers, authorization: `Bearer ${TOKEN}` } };
    expect((await call(server, '/api/system/status', { ...malformed, ...withToken })).status).toBe(400);
    expect((await call(server, '/api/system/status', { method: 'POST', ...bearer(TOKEN) })).status).toBe(405);
    expect((await call(server, '/api/nao-existe', bearer(TOKEN))).status).toBe(404);

    for (const [path, init] of [
      ['/api/system/status', malformed],
      ['/api/system/status', { method: 'POST' }],
      ['/api/nao-existe', {}],
    ] as const) {
      const answer = await call(server, path, init);
      expect([answer.status, answer.body]).toEqual([401, { error: 'Autenticação necessária: envie Authorization: Bearer <token>' }]);
    }
  });

  it('changes nothing when it refuses: an agent is not created, the settings stay', async () => {
    const json = (body: unknown, authorization?: string) => ({
      headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
      body: JSON.stringify(body),
    });
    const agentsBefore = await call(server, '/api/agents', bearer(TOKEN));
    const settingsBefore = await call(server, '/api/settings', bearer(TOKEN));
    expect([agentsBefore.status, settingsBefore.status]).toEqual([200, 200]);

    const create = await call(server, '/api/agents', { method: 'POST', ...json({ agent_name: 'Refused agent' }) });
    const update = await call(server, '/api/settings', { method: 'PUT', ...json({ maxConcurrent: 7 }, 'Bearer wrong-token') });
    expect([create.status, update.status]).toEqual([401, 401]);

    expect((await call(server, '/api/agents', bearer(TOKEN))).body).toEqual(agentsBefore.body);
    expect((await call(server, '/api/settings', bearer(TOKEN))).body).toEqual(settingsBefore.body);
    // With the token the same requests do change things: the refusal was the token's doing.
    const accepted = await call(server, '/api/agents', { method: 'POST', ...json({ agent_name: 'Accepted agent' }, `Bearer ${TOKEN}`) });
    expect(accepted.status).toBe(201);
    await call(server, `/api/agents/${accepted.body.id}`, { method: 'DELETE', ...bearer(TOKEN) });
  });

  it('lets the right token through, whatever the case of the scheme', async () => {
    for (const scheme of ['Bearer', 'bearer']) {
      const answer = await call(server, '/api/system/status', { headers: { authorization: `${scheme} ${TOKEN}` } });
      expect(answer.status).toBe(200);
      expect(answer.body.status).toBe('ok');
    }
  });

  it('leaves the ranking service open, health check included', async () => {
    expect(await call(server, '/api/v1/health')).toMatchObject({
      status: 200,
      body: { status: 'ok', message: 'API de ranking de consultores em funcionamento' },
    });
  });
});

describe('without AUTH_TOKEN', () => {
  it('answers /api without any Authorization header', async () => {
    const server = await start(secured({ ...generousLimit, authToken: null }));
    expect((await call(server, '/api/system/status')).status).toBe(200);
  });
});

describe('token on the WebSocket', () => {
  let wsBase: string;

  beforeAll(async () => {
    const server = await start(secured({ ...generousLimit, authToken: TOKEN }));
    wsBase = server.url.replace(/^http/, 'ws');
  });

  it('refuses a handshake without a token with 401 before the upgrade', async () => {
    expect(await refusedHandshake(`${wsBase}/ws?clientId=sem-token`)).toEqual({
      status: 401,
      authenticate: 'Bearer',
      body: { error: TOKEN_REQUIRED_REASON },
    });
  });

  it('refuses a handshake with a wrong token, in the query or the header, with 401', async () => {
    const inQuery = await refusedHandshake(`${wsBase}/ws?clientId=errado&token=${'y'.repeat(32)}`);
    const inHeader = await refusedHandshake(`${wsBase}/ws?clientId=errado`, { Authorization: `Bearer ${'y'.repeat(32)}` });
    for (const refusal of [inQuery, inHeader]) {
      expect(refusal).toEqual({ status: 401, authenticate: 'Bearer', body: { error: TOKEN_INVALID_REASON } });
    }
  });

  it('greets a client with the token in the query parameter', async () => {
    const probe = await openSocket(`${wsBase}/ws?clientId=navegador&token=${TOKEN}`);
    expect(await probe.nextMessage()).toEqual({ type: 'connected', clientId: 'navegador' });
    probe.socket.close();
  });

  it('greets a client with the token in the Authorization header', async () => {
    const probe = await openSocket(`${wsBase}/ws`, { Authorization: `Bearer ${TOKEN}`, 'X-Client-Id': 'cli' });
    expect(await probe.nextMessage()).toEqual({ type: 'connected', clientId: 'cli' });
    probe.socket.close();
  });

  it('still requires a client id from a client with the token', async () => {
    const probe = await openSocket(`${wsBase}/ws?token=${TOKEN}`);
    expect(await probe.closed).toEqual({
      code: CLOSE_POLICY_VIOLATION,
      reason: 'clientId query parameter or X-Client-Id header required',
    });
  });
});

describe('origin of a WebSocket (CORS does not apply to it; CORS_ORIGINS does)', () => {
  const greeted = async (url: string, origin?: string) => {
    const probe = await openSocket(url, origin ? { Origin: origin } : {});
    const first = await probe.nextMessage();
    probe.socket.close();
    return first;
  };
  const refused = { status: 403, authenticate: null, body: { error: ORIGIN_REFUSED_REASON } };

  it("with a list: opens for a listed origin, the service's own pages and non-browsers; refuses others with 403", async () => {
    const server = await start(secured({ ...generousLimit, corsOrigins: [ALLOWED_ORIGIN] }));
    const url = `${server.url.replace(/^http/, 'ws')}/ws?clientId=painel`;
    const connected = { type: 'connected', clientId: 'painel' };
    expect(await greeted(url, ALLOWED_ORIGIN)).toEqual(connected);
    expect(await greeted(url, server.url)).toEqual(connected);
    expect(await greeted(url)).toEqual(connected);
    expect(await refusedHandshake(url, { Origin: REFUSED_ORIGIN })).toEqual(refused);
    expect(await refusedHandshake(url, { Origin: 'null' })).toEqual(refused);
  });

  it('by default (same origin only): refuses a socket any other page opens', async () => {
    const server = await start(secured(generousLimit));
    const url = `${server.url.replace(/^http/, 'ws')}/ws?clientId=painel`;
    expect(await refusedHandshake(url, { Origin: ALLOWED_ORIGIN })).toEqual(refused);
    expect(await greeted(url, server.url)).toEqual({ type: 'connected', clientId: 'painel' });
  });

  it('with *: opens for any origin', async () => {
    const server = await start(secured({ ...generousLimit, corsOrigins: ['*'] }));
    const url = `${server.url.replace(/^http/, 'ws')}/ws?clientId=painel`;
    expect(await greeted(url, REFUSED_ORIGIN)).toEqual({ type: 'connected', clientId: 'painel' });
  });
});

describe('CORS', () => {
  const preflight = (origin: string): RequestInit => ({
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'PUT',
      'access-control-request-headers': 'authorization,content-type,x-client-id',
    },
  });

  describe('with a list of origins and a token', () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await start(secured({ ...generousLimit, authToken: TOKEN, corsOrigins: [ALLOWED_ORIGIN] }));
    });

    it('answers the preflight of an allowed origin without a token', async () => {
      const answer = await call(server, '/api/settings', preflight(ALLOWED_ORIGIN));
      expect(answer.status).toBe(204);
      expect(answer.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
      expect(answer.headers.get('access-control-allow-headers')).toBe('Authorization,Content-Type,X-Client-Id');
      expect(answer.headers.get('access-control-allow-methods')).toBe('GET,HEAD,PUT,POST,DELETE,PATCH');
      expect(answer.headers.get('access-control-max-age')).toBe('600');
      expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
    });

    it('gives a refused origin no CORS headers, so the browser blocks it', async () => {
      const answer = await call(server, '/api/settings', preflight(REFUSED_ORIGIN));
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
      expect(answer.headers.get('access-control-allow-headers')).toBeNull();
      expect(answer.status).toBe(401);
    });

    it('lets an allowed origin read answers and errors, budget headers included', async () => {
      const ok = await call(server, '/api/system/status', { headers: { origin: ALLOWED_ORIGIN, ...bearer(TOKEN).headers } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
      expect(ok.headers.get('access-control-expose-headers')).toBe('Retry-After,X-RateLimit-Limit,X-RateLimit-Remaining,WWW-Authenticate');
      expect(ok.headers.get('vary')).toMatch(/Origin/);

      const refused = await call(server, '/api/system/status', { headers: { origin: ALLOWED_ORIGIN } });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
    });

    it('adds nothing to the ranking service', async () => {
      const answer = await call(server, '/api/v1/health', { headers: { origin: ALLOWED_ORIGIN } });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    });
  });

  it('allows any origin with *', async () => {
    const server = await start(secured({ ...generousLimit, corsOrigins: ['*'] }));
    const answer = await call(server, '/api/system/status', preflight(REFUSED_ORIGIN));
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('adds no CORS headers when no origin is configured', async () => {
    const server = await start(secured({ ...generousLimit, corsOrigins: [] }));
    const answer = await call(server, '/api/system/status', { headers: { origin: ALLOWED_ORIGIN } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('rate limit', () => {
  const fivePerMinute = { rateLimit: { requests: 5, windowSeconds: 60 } };

  async function statuses(server: TestServer, count: number, init: RequestInit = {}): Promise<number[]> {
    const seen: number[] = [];
    for (let i = 0; i < count; i += 1) seen.push((await call(server, '/api/system/status', init)).status);
    return seen;
  }

  it('answers the 6th request of a window with 429, Retry-After and the budget headers', async () => {
    const server = await start(secured(fivePerMinute));
    const remaining: Array<string | null> = [];
    for (let i = 0; i < 5; i += 1) {
      const answer = await call(server, '/api/system/status');
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-ratelimit-limit')).toBe('5');
      remaining.push(answer.headers.get('x-ratelimit-remaining'));
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);

    const sixth = await call(server, '/api/system/status');
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get('x-ratelimit-limit')).toBe('5');
    expect(sixth.headers.get('x-ratelimit-remaining')).toBe('0');
    const retryAfter = Number(sixth.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(sixth.body).toEqual({
      error: `Muitas requisições: no máximo 5 a cada 60 s por cliente; tente novamente em ${retryAfter} s`,
    });
    // The health check is outside the budget (contract 1.3): it still answers, and spends nothing.
    const health = await call(server, '/api/health');
    expect([health.status, health.headers.get('x-ratelimit-limit')]).toEqual([200, null]);
  });

  it('counts requests refused for their token, so guessing tokens spends the budget', async () => {
    const server = await start(secured({ authToken: TOKEN, rateLimit: { requests: 2, windowSeconds: 60 } }));
    expect(await statuses(server, 2)).toEqual([401, 401]);
    expect(await statuses(server, 1, bearer(TOKEN))).toEqual([429]);
  });

  it('shares one budget between two API processes on the same Redis', async () => {
    const namespace = randomUUID();
    const first = await start(secured(fivePerMinute, namespace));
    const second = await start(secured(fivePerMinute, namespace));
    expect(await statuses(first, 3)).toEqual([200, 200, 200]);
    expect(await statuses(second, 2)).toEqual([200, 200]);
    expect(await statuses(first, 1)).toEqual([429]);
    expect(await statuses(second, 1)).toEqual([429]);
  });

  it('leaves the ranking service unlimited', async () => {
    const server = await start(secured({ rateLimit: { requests: 1, windowSeconds: 60 } }));
    for (let i = 0; i < 3; i += 1) {
      const answer = await call(server, '/api/v1/health');
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });

  it('lets requests through unlimited while Redis is down, with one warning for the outage', async () => {
    const closedPort = await unusedPort();
    const server = await start((config) =>
      secured({ rateLimit: { requests: 1, windowSeconds: 60 } })({ ...config, redis: { ...config.redis, port: closedPort } }),
    );
    const warn = jest.spyOn(server.resources.logger, 'warn');
    try {
      for (let i = 0; i < 4; i += 1) {
        const answer = await call(server, '/api/nao-existe');
        expect([answer.status, answer.body]).toEqual([404, { error: 'Não encontrado' }]);
        expect(answer.headers.get('x-ratelimit-limit')).toBeNull();
      }
      const outageWarnings = warn.mock.calls.filter(([, message]) => String(message).startsWith('rate limiter cannot reach Redis'));
      expect(outageWarnings).toHaveLength(1);
    } finally {
      warn.mockRestore();
    }
  });
});
