import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { RATE_LIMIT_KEY_PREFIX } from '../../api/orchestration/security';
import { HOST_REFUSED_REASON, TOO_MANY_SOCKETS_REASON } from '../../api/websocket';
import { config, type Config } from '../../lib/config';
import type { TrustProxy } from '../../lib/trust-proxy';
import { sitesDirectory } from '../../services/files';
import { agentWorkspace } from '../support/agent-workspace';
import { startTestServer, type TestServer } from '../support/server';
import { openSocket, refusedHandshake, type SocketProbe } from '../support/websocket';

/**
 * TRUST_PROXY against the real app (docs/orchestration-security.md, "Client address and proxies"):
 * the client address as the rate limit and the WebSocket cap see it, the protocol and host as
 * `publish` and the Host and same-origin checks read them. Every connection of the test comes from
 * 127.0.0.1, a trusted peer by default; an untrusted peer is a list without it, or `false`.
 */

const PROXY_HOST = 'painel.example.org';
let area: string;
const project = `proxy-${randomUUID().slice(0, 8)}`;
const servers: TestServer[] = [];

beforeAll(() => {
  area = agentWorkspace('trust-proxy-');
  fs.mkdirSync(path.join(area, project));
  fs.writeFileSync(path.join(area, project, 'index.html'), '<!doctype html><title>proxy</title>');
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  fs.rmSync(area, { recursive: true, force: true });
  fs.rmSync(path.join(sitesDirectory(config.orchestration.dataDir), project), { recursive: true, force: true });
});

/** A server with this TRUST_PROXY, two /api requests a minute per address, its own Redis keys, and PROXY_HOST allowed. */
async function start(trustProxy: TrustProxy, change: Partial<Config['orchestration']> = {}): Promise<TestServer> {
  const server = await startTestServer((base) => ({
    ...base,
    redis: { ...base.redis, keyPrefix: `${base.redis.keyPrefix}proxy-${randomUUID()}:` },
    orchestration: {
      ...base.orchestration,
      authToken: null,
      trustProxy,
      rateLimit: { requests: 2, windowSeconds: 60 },
      allowedHosts: ['localhost', '127.0.0.1', PROXY_HOST],
      workdirRoots: [area],
      ...change,
    },
  }));
  servers.push(server);
  return server;
}

interface RawAnswer {
  status: number;
  body: any;
}

/** One request with the headers as given, Host included (fetch would not send another Host). */
function raw(server: TestServer, method: string, route: string, headers: Record<string, string> = {}, body?: unknown): Promise<RawAnswer> {
  const { hostname, port } = new URL(server.url);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: hostname,
        port,
        method,
        path: route,
        headers: { ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: response.statusCode ?? 0, body: text === '' ? null : JSON.parse(text) });
        });
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/** The statuses of `count` requests to /api/system/status sent with this X-Forwarded-For. */
async function statusesFrom(server: TestServer, forwardedFor: string, count: number): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i += 1)
    seen.push((await raw(server, 'GET', '/api/system/status', { 'x-forwarded-for': forwardedFor })).status);
  return seen;
}

const budgetOf = (server: TestServer, address: string) => server.resources.redis.get(`${RATE_LIMIT_KEY_PREFIX}:${address}`);

describe('the client address the rate limit sees', () => {
  it('by default (a loopback peer is trusted): two forwarded clients get two budgets; a forged leftmost entry does not escape', async () => {
    const server = await start({ mode: 'private' });
    expect(await statusesFrom(server, '203.0.113.1', 3)).toEqual([200, 200, 429]);
    expect(await statusesFrom(server, '203.0.113.2', 2)).toEqual([200, 200]);
    // The client writes what it likes before the address our proxy appended: the walk stops at the latter.
    expect(await statusesFrom(server, '198.51.100.9, 203.0.113.1', 1)).toEqual([429]);
    // Trusted hops (private addresses) are skipped: the proxy's own address is not the client.
    expect(await statusesFrom(server, '198.51.100.9, 203.0.113.1, 10.0.0.7', 1)).toEqual([429]);
    expect([await budgetOf(server, '203.0.113.1'), await budgetOf(server, '203.0.113.2'), await budgetOf(server, '198.51.100.9')]).toEqual([
      '5',
      '2',
      null,
    ]);
  });

  it('from a peer not trusted (false, or a list without it): X-Forwarded-For is ignored, everyone shares the connection’s budget', async () => {
    for (const setting of [{ mode: 'off' }, { mode: 'list', addresses: ['10.0.0.0/8', 'fd00::/8'] }] as const) {
      const server = await start(setting);
      const seen = [
        ...(await statusesFrom(server, '203.0.113.1', 1)),
        ...(await statusesFrom(server, '203.0.113.2', 1)),
        ...(await statusesFrom(server, '203.0.113.3', 1)),
      ];
      expect([setting.mode, seen, await budgetOf(server, '127.0.0.1'), await budgetOf(server, '203.0.113.1')]).toEqual([
        setting.mode,
        [200, 200, 429],
        '3',
        null,
      ]);
    }
  });

  it('with a list naming the peer: the first address from the right that is not listed', async () => {
    const server = await start({ mode: 'list', addresses: ['127.0.0.1', '10.0.0.0/8'] });
    expect(await statusesFrom(server, '198.51.100.9, 203.0.113.1, 10.1.2.3', 3)).toEqual([200, 200, 429]);
    expect(await statusesFrom(server, '203.0.113.2', 1)).toEqual([200]);
    expect([await budgetOf(server, '203.0.113.1'), await budgetOf(server, '203.0.113.2'), await budgetOf(server, '10.1.2.3')]).toEqual([
      '3',
      '1',
      null,
    ]);
  });

  it('with a hop count (2: a load balancer and an ingress): the address two hops away, whatever the addresses', async () => {
    const server = await start({ mode: 'hops', hops: 2 });
    // Peer (the ingress, hop 0) → 203.0.113.40 (the balancer, hop 1) → 198.51.100.7 (the client).
    expect(await statusesFrom(server, 'forged, 198.51.100.7, 203.0.113.40', 3)).toEqual([200, 200, 429]);
    expect(await statusesFrom(server, '198.51.100.8, 203.0.113.40', 1)).toEqual([200]);
    expect([
      await budgetOf(server, '198.51.100.7'),
      await budgetOf(server, '198.51.100.8'),
      await budgetOf(server, '203.0.113.40'),
    ]).toEqual(['3', '1', null]);
  });

  it('with true (every hop trusted): the leftmost address', async () => {
    const server = await start({ mode: 'all' });
    expect(await statusesFrom(server, '198.51.100.9, 203.0.113.1', 1)).toEqual([200]);
    expect(await statusesFrom(server, '198.51.100.10, 203.0.113.1', 1)).toEqual([200]);
    expect([await budgetOf(server, '198.51.100.9'), await budgetOf(server, '203.0.113.1')]).toEqual(['1', null]);
  });
});

describe('the client address the WebSocket cap sees', () => {
  const socketUrl = (server: TestServer) => `${server.url.replace(/^http/, 'ws')}/ws?clientId=${randomUUID()}`;

  it('by default: one cap per forwarded client; from an untrusted peer one cap for all', async () => {
    const opened: SocketProbe[] = [];
    try {
      const server = await start({ mode: 'private' }, { websocket: { maxSocketsPerClient: 1, pingIntervalMs: 30_000 } });
      opened.push(await openSocket(socketUrl(server), { 'X-Forwarded-For': '203.0.113.1' }));
      expect(await refusedHandshake(socketUrl(server), { 'X-Forwarded-For': '203.0.113.1' })).toEqual({
        status: 429,
        authenticate: null,
        body: { error: TOO_MANY_SOCKETS_REASON },
      });
      opened.push(await openSocket(socketUrl(server), { 'X-Forwarded-For': '203.0.113.2' }));

      const untrusted = await start({ mode: 'off' }, { websocket: { maxSocketsPerClient: 1, pingIntervalMs: 30_000 } });
      opened.push(await openSocket(socketUrl(untrusted), { 'X-Forwarded-For': '203.0.113.1' }));
      expect((await refusedHandshake(socketUrl(untrusted), { 'X-Forwarded-For': '203.0.113.2' })).status).toBe(429);
    } finally {
      for (const probe of opened) probe.socket.close();
      await Promise.all(opened.map((probe) => probe.closed));
    }
  });
});

describe('the protocol and host that publish sees', () => {
  const publish = (server: TestServer, headers: Record<string, string>) =>
    raw(server, 'POST', '/api/files/publish', headers, { path: project });
  const siteOf = async (server: TestServer, headers: Record<string, string>) => {
    const answer = await publish(server, headers);
    expect(answer.status).toBe(200);
    return answer.body.siteUrl as string;
  };
  const ownHost = (server: TestServer) => new URL(server.url).host;

  it('by default: https from X-Forwarded-Proto of a loopback peer; X-Forwarded-Host ignored', async () => {
    const server = await start({ mode: 'private' });
    expect(await siteOf(server, { 'x-forwarded-proto': 'https', 'x-forwarded-host': PROXY_HOST })).toBe(
      `https://${ownHost(server)}/sites/${project}/`,
    );
    expect(await siteOf(server, {})).toBe(`http://${ownHost(server)}/sites/${project}/`);
  });

  it('with true or a hop count: https believed, X-Forwarded-Host still ignored', async () => {
    for (const setting of [{ mode: 'all' }, { mode: 'hops', hops: 2 }] as const) {
      const server = await start(setting);
      expect([setting.mode, await siteOf(server, { 'x-forwarded-proto': 'https', 'x-forwarded-host': PROXY_HOST })]).toEqual([
        setting.mode,
        `https://${ownHost(server)}/sites/${project}/`,
      ]);
    }
  });

  it('with a list naming the peer: X-Forwarded-Host and X-Forwarded-Proto both honoured', async () => {
    const server = await start({ mode: 'list', addresses: ['127.0.0.0/8'] });
    expect(await siteOf(server, { 'x-forwarded-proto': 'https', 'x-forwarded-host': PROXY_HOST })).toBe(
      `https://${PROXY_HOST}/sites/${project}/`,
    );
  });

  it('from a peer not trusted: neither header', async () => {
    for (const setting of [{ mode: 'off' }, { mode: 'list', addresses: ['10.0.0.0/8'] }] as const) {
      const server = await start(setting);
      expect([setting.mode, await siteOf(server, { 'x-forwarded-proto': 'https', 'x-forwarded-host': PROXY_HOST })]).toEqual([
        setting.mode,
        `http://${ownHost(server)}/sites/${project}/`,
      ]);
    }
  });
});

describe('the host the Host check and the same-origin check read (DNS rebinding)', () => {
  const rebound = { host: 'evil.example', 'x-forwarded-host': 'localhost' };

  it('refuses a rebound request from a loopback peer with X-Forwarded-Host: localhost, unless the peer is a listed proxy', async () => {
    for (const setting of [{ mode: 'private' }, { mode: 'all' }, { mode: 'hops', hops: 1 }] as const) {
      const server = await start(setting);
      const answer = await raw(server, 'GET', '/api/system/status', rebound);
      expect([setting.mode, answer.status, answer.body.error]).toEqual([
        setting.mode,
        403,
        'Host não permitido: "evil.example"; o serviço atende a localhost, 127.0.0.1, painel.example.org (ALLOWED_HOSTS)',
      ]);
      const socket = `${server.url.replace(/^http/, 'ws')}/ws?clientId=${randomUUID()}`;
      expect(await refusedHandshake(socket, { Host: 'evil.example', 'X-Forwarded-Host': 'localhost' })).toEqual({
        status: 403,
        authenticate: null,
        body: { error: HOST_REFUSED_REASON },
      });
    }
    const listed = await start({ mode: 'list', addresses: ['127.0.0.1'] });
    expect((await raw(listed, 'GET', '/api/system/status', rebound)).status).toBe(200);
  });

  it('judges a write’s Origin against X-Forwarded-Host only from a listed proxy', async () => {
    const write = { origin: `https://${PROXY_HOST}`, 'x-forwarded-host': PROXY_HOST, 'x-forwarded-proto': 'https' };
    const byDefault = await start({ mode: 'private' });
    const refused = await raw(byDefault, 'POST', '/api/agents', write, {});
    expect([refused.status, refused.body.error]).toEqual([
      403,
      `Requisição de outro site recusada: a origem "https://${PROXY_HOST}" não é permitida (CORS_ORIGINS)`,
    ]);
    // Through a listed proxy the page is the service's own: the write passes the edge and reaches the route (400: empty body).
    const listed = await start({ mode: 'list', addresses: ['127.0.0.1'] });
    expect((await raw(listed, 'POST', '/api/agents', write, {})).status).toBe(400);
  });
});
