import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { PanelSessions, RATE_LIMIT_KEY_PREFIX, SESSION_COOKIE, SESSION_LIFETIME_SECONDS } from '../../api/orchestration/security';
import { SIGN_IN_ATTEMPTS } from '../../api/sign-in';
import { PAGE_CONTENT_SECURITY_POLICY, SIGN_IN_MESSAGES } from '../../api/sign-in-page';
import {
  CREDENTIAL_REQUIRED_REASON,
  ORIGIN_REFUSED_REASON,
  SESSION_INVALID_REASON,
  TOKEN_INVALID_REASON,
  TOKEN_REQUIRED_REASON,
} from '../../api/websocket';
import type { Config } from '../../lib/config';
import type { TrustProxy } from '../../lib/trust-proxy';
import { httpCall, type JsonAnswer } from '../support/json-api';
import { unusedPort } from '../support/ports';
import { startTestServer, type TestServer } from '../support/server';
import { until } from '../support/waiting';
import { openSocket, refusedHandshake } from '../support/websocket';

/**
 * The panel's sign-in with AUTH_TOKEN set (docs/orchestration-security.md, "Signing in to the panel"):
 * the page, the session cookie and its attributes, /api and the WebSocket accepting the cookie
 * besides the token, sign-out, and the refusals (wrong token, forged, expired or ended sessions,
 * other sites' pages, too many attempts). Real app, real Redis; a panel directory of the test's own.
 */

const TOKEN = 'painel-token-0123456789abcdef';
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

let scratch: string;
let panelDir: string;
const servers: TestServer[] = [];

/** A server with a token, the panel, and Redis keys under a fresh prefix (budgets and sessions of its own). */
async function start(change: (config: Config) => Config = (config) => config, namespace = randomUUID()): Promise<TestServer> {
  const server = await startTestServer((config) =>
    change({
      ...config,
      redis: { ...config.redis, keyPrefix: `${config.redis.keyPrefix}signin-${namespace}:` },
      panel: { dir: panelDir },
      orchestration: { ...config.orchestration, authToken: TOKEN, rateLimit: { requests: 1_000, windowSeconds: 60 } },
    }),
  );
  servers.push(server);
  return server;
}

/** An answer and its Set-Cookie lines. */
type Answer = JsonAnswer & { cookies: string[] };

/** One request as given, a redirect read as it comes. */
async function call(server: TestServer, requestPath: string, init: RequestInit = {}): Promise<Answer> {
  const answer = await httpCall(server.url + requestPath, { redirect: 'manual', ...init });
  return Object.assign(answer, { cookies: answer.headers.getSetCookie() });
}

/** The server's config with another TRUST_PROXY. */
const trustProxy =
  (setting: TrustProxy) =>
  (config: Config): Config => ({ ...config, orchestration: { ...config.orchestration, trustProxy: setting } });

const json = (answer: Answer) => ({ status: answer.status, body: JSON.parse(answer.text) as unknown });

function signIn(server: TestServer, token: string, headers: Record<string, string> = {}): Promise<Answer> {
  return call(server, '/sign-in', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ token }).toString(),
  });
}

/** Signs in and answers the session id the cookie carries. */
async function sessionOf(server: TestServer): Promise<string> {
  const answer = await signIn(server, TOKEN);
  expect(answer.status).toBe(303);
  const id = /^panel_session=([^;]+);/.exec(answer.cookies[0] ?? '')?.[1];
  if (id === undefined) throw new Error(`no session cookie in ${JSON.stringify(answer.cookies)}`);
  return id;
}

const withCookie = (id: string, extra: Record<string, string> = {}): RequestInit => ({
  headers: { cookie: `${SESSION_COOKIE}=${id}`, ...extra },
});
/** Keys of the server's Redis matching `pattern` (ioredis does not prefix KEYS patterns). */
const keysLike = (server: TestServer, pattern: string) =>
  server.resources.redis.keys(`${server.resources.config.redis.keyPrefix}${pattern}`);
const sessionsOf = (server: TestServer) => new PanelSessions(server.resources.redis, TOKEN, 5_000);
const wsUrl = (server: TestServer, socketPath: string) => `${server.url.replace(/^http/, 'ws')}${socketPath}?clientId=${randomUUID()}`;

beforeAll(() => {
  scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'panel-signin-')));
  panelDir = path.join(scratch, 'public');
  fs.mkdirSync(path.join(panelDir, 'css'), { recursive: true });
  fs.writeFileSync(path.join(panelDir, 'index.html'), '<h1>landing</h1>');
  fs.writeFileSync(path.join(panelDir, 'app.html'), '<h1>painel</h1>');
  fs.writeFileSync(path.join(panelDir, 'css', 'styles.css'), 'body { color: red }');
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('the sign-in page (AUTH_TOKEN and PANEL_DIR set)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await start();
  });

  it.each(['/app.html', '/', '/index.html', '/css/styles.css', '/nao-existe.html'])(
    'sends GET %s without a session to /sign-in (303), serving nothing',
    async (requestPath) => {
      const answer = await call(server, requestPath);
      expect([answer.status, answer.headers.get('location')]).toEqual([303, '/sign-in']);
      expect(answer.text).not.toContain('painel');
      expect(answer.text).not.toContain('color: red');
    },
  );

  it('serves the form at GET /sign-in: no script, its own style only, not framed, not cached', async () => {
    const answer = await call(server, '/sign-in');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(answer.headers.get('content-security-policy')).toBe(PAGE_CONTENT_SECURITY_POLICY);
    expect(PAGE_CONTENT_SECURITY_POLICY).toMatch(
      /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/,
    );
    expect([answer.headers.get('x-frame-options'), answer.headers.get('cache-control')]).toEqual(['DENY', 'no-store']);
    expect(answer.text).toContain('<form method="post" action="/sign-in">');
    expect(answer.text).toContain('<input id="token" name="token" type="password"');
    expect(answer.text).not.toContain('<script');
    expect(answer.cookies).toEqual([]);
  });

  it('answers a wrong token with 401, the form and a message, and sets no cookie', async () => {
    for (const token of ['y'.repeat(TOKEN.length), TOKEN.slice(0, -1), `${TOKEN}x`]) {
      const answer = await signIn(server, token);
      expect([answer.status, answer.cookies]).toEqual([401, []]);
      expect(answer.text).toContain(`<p class="message" role="alert" id="sign-in-message">${SIGN_IN_MESSAGES.invalid}</p>`);
      expect(answer.text).toContain('<form method="post" action="/sign-in">');
    }
    const empty = await signIn(server, '');
    expect([empty.status, empty.cookies]).toEqual([400, []]);
    expect(empty.text).toContain(SIGN_IN_MESSAGES.missing);
  });

  it('refuses a form beyond 8 KiB with 413 before reading it whole, and a body that is no form as a missing token', async () => {
    const huge = await signIn(server, `${TOKEN}${'x'.repeat(9 * 1024)}`);
    expect([json(huge), huge.cookies]).toEqual([{ status: 413, body: { error: 'Corpo da requisição grande demais' } }, []]);
    const asJson = await call(server, '/sign-in', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: TOKEN }),
    });
    expect([asJson.status, asJson.cookies]).toEqual([400, []]);
  });

  it('answers the right token with a 303 to /app.html and an HttpOnly, SameSite=Strict session cookie of 12 h, never the token', async () => {
    const answer = await signIn(server, TOKEN);
    expect([answer.status, answer.headers.get('location')]).toEqual([303, '/app.html']);
    expect(answer.cookies).toHaveLength(1);
    const [pair, ...attributes] = answer.cookies[0]!.split('; ');
    const [name, value] = pair!.split('=');
    expect(name).toBe(SESSION_COOKIE);
    expect(value).toMatch(SESSION_ID);
    expect(value).not.toContain(TOKEN);
    expect(attributes.filter((attribute) => !attribute.startsWith('expires='))).toEqual(['path=/', 'samesite=strict', 'httponly']);
    // Expires is 12 h after the answer's Date (both whole seconds, taken a moment apart).
    const expires = Date.parse(attributes.find((attribute) => attribute.startsWith('expires='))!.slice('expires='.length));
    const lifetime = (expires - Date.parse(answer.headers.get('date')!)) / 1000;
    expect(Math.abs(lifetime - SESSION_LIFETIME_SECONDS)).toBeLessThanOrEqual(1);

    // In Redis: a key derived from the id (never the id itself), expiring with the cookie.
    const key = sessionsOf(server).keyOf(value!);
    expect(key).toMatch(/^panel-session:[0-9a-f]{64}$/);
    expect(key).not.toContain(value);
    const ttl = await server.resources.redis.ttl(key);
    expect(ttl).toBeGreaterThan(SESSION_LIFETIME_SECONDS - 60);
    expect(ttl).toBeLessThanOrEqual(SESSION_LIFETIME_SECONDS);
  });

  it('serves the panel with the session, and sends a signed-in browser on from /sign-in to /app.html', async () => {
    const id = await sessionOf(server);
    const page = await call(server, '/app.html', withCookie(id));
    expect([page.status, page.text]).toEqual([200, '<h1>painel</h1>']);
    expect((await call(server, '/css/styles.css', withCookie(id))).status).toBe(200);
    const again = await call(server, '/sign-in', withCookie(id));
    expect([again.status, again.headers.get('location')]).toEqual([303, '/app.html']);
  });

  it('sets the cookie Secure when the request came over https through a trusted proxy', async () => {
    // The test's connections come from 127.0.0.1: a trusted peer by default (TRUST_PROXY unset).
    const proxied = await start(trustProxy({ mode: 'private' }));
    const https = await signIn(proxied, TOKEN, { 'x-forwarded-proto': 'https' });
    expect(https.cookies[0]!.split('; ').slice(-3)).toEqual(['samesite=strict', 'secure', 'httponly']);
    const plain = await signIn(proxied, TOKEN);
    expect(plain.cookies[0]).not.toContain('secure');
    const listed = await start(trustProxy({ mode: 'list', addresses: ['127.0.0.1'] }));
    expect((await signIn(listed, TOKEN, { 'x-forwarded-proto': 'https' })).cookies[0]).toContain('; secure');
    // From a peer that is not a trusted proxy the header is the client's word: not believed.
    for (const setting of [{ mode: 'off' }, { mode: 'list', addresses: ['10.0.0.0/8'] }] as const) {
      const untrusted = await start(trustProxy(setting));
      const answer = await signIn(untrusted, TOKEN, { 'x-forwarded-proto': 'https' });
      expect([setting.mode, answer.status, answer.cookies[0]!.includes('secure')]).toEqual([setting.mode, 303, false]);
    }
  });
});

describe('/api accepts the session cookie besides the bearer token', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await start();
  });

  it('answers 200 with the cookie, 401 without it, and 200 with the token as before', async () => {
    const id = await sessionOf(server);
    expect((await call(server, '/api/agents', withCookie(id))).status).toBe(200);
    expect((await call(server, '/api/settings', withCookie(id))).status).toBe(200);
    const without = await call(server, '/api/agents');
    expect(json(without)).toEqual({
      status: 401,
      body: { error: 'Autenticação necessária: envie Authorization: Bearer <token> ou entre em /sign-in' },
    });
    expect(without.headers.get('www-authenticate')).toBe('Bearer');
    expect((await call(server, '/api/agents', { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  it('lets the panel write with the cookie (its own origin), and a wrong bearer token decides over a good cookie', async () => {
    const id = await sessionOf(server);
    // The settings as they are, written back: a write that changes nothing other tests read.
    const { maxConcurrent } = JSON.parse((await call(server, '/api/settings', withCookie(id))).text) as { maxConcurrent: number };
    const write = { method: 'PUT', body: JSON.stringify({ maxConcurrent }) };
    const ownOrigin = await call(server, '/api/settings', {
      ...write,
      ...withCookie(id, { 'content-type': 'application/json', origin: server.url }),
    });
    expect(ownOrigin.status).toBe(200);
    const wrongBearer = await call(server, '/api/agents', withCookie(id, { authorization: 'Bearer wrong-token-xxxxxxxx' }));
    expect(json(wrongBearer)).toEqual({ status: 401, body: { error: 'Token inválido' } });
  });

  it('answers 401 to a forged cookie, a malformed one and the token itself as the cookie', async () => {
    for (const forged of [randomBytes(32).toString('base64url'), 'x', TOKEN, `${randomBytes(32).toString('base64url')}x`]) {
      const answer = await call(server, '/api/agents', withCookie(forged));
      expect([forged, json(answer)]).toEqual([
        forged,
        { status: 401, body: { error: 'Sessão expirada ou encerrada: entre novamente em /sign-in' } },
      ]);
    }
  });

  it('answers 401 once the session expired in Redis', async () => {
    const id = await sessionOf(server);
    expect((await call(server, '/api/agents', withCookie(id))).status).toBe(200);
    const key = sessionsOf(server).keyOf(id);
    await server.resources.redis.pexpire(key, 1);
    await until(
      'the session key expired',
      () => server.resources.redis.exists(key),
      (exists) => exists === 0,
      10_000,
    );
    expect(json(await call(server, '/api/agents', withCookie(id)))).toEqual({
      status: 401,
      body: { error: 'Sessão expirada ou encerrada: entre novamente em /sign-in' },
    });
    const page = await call(server, '/app.html', withCookie(id));
    expect([page.status, page.headers.get('location')]).toEqual([303, '/sign-in']);
  });

  it('is judged on every spelling of an /api path, leaves /api/health open and /api/v1 to its own rules', async () => {
    const id = await sessionOf(server);
    for (const spelling of ['/API/agents', '/api//agents', '/api/%61gents']) {
      expect([spelling, (await call(server, spelling)).status]).toEqual([spelling, 401]);
      // With the session it passes the edge and is no route (exact spellings only).
      expect([spelling, (await call(server, spelling, withCookie(id))).status]).toEqual([spelling, 404]);
    }
    expect((await call(server, '/api/health')).status).toBe(200);
    expect((await call(server, '/api/v1/health')).status).toBe(200);
  });

  it('signs out: POST /sign-out ends the session in Redis and clears the cookie; the old cookie is refused', async () => {
    const id = await sessionOf(server);
    const key = sessionsOf(server).keyOf(id);
    expect(await server.resources.redis.exists(key)).toBe(1);
    const page = await call(server, '/sign-out', withCookie(id));
    expect(page.status).toBe(200);
    expect(page.text).toContain('<form method="post" action="/sign-out">');

    const out = await call(server, '/sign-out', { method: 'POST', ...withCookie(id, { origin: server.url }) });
    expect([out.status, out.headers.get('location')]).toEqual([303, '/sign-in']);
    expect(out.cookies).toEqual([`${SESSION_COOKIE}=; path=/; expires=Thu, 01 Jan 1970 00:00:00 GMT; samesite=strict; httponly`]);
    expect(await server.resources.redis.exists(key)).toBe(0);
    expect(json(await call(server, '/api/agents', withCookie(id)))).toEqual({
      status: 401,
      body: { error: 'Sessão expirada ou encerrada: entre novamente em /sign-in' },
    });
    await refusedHandshake(wsUrl(server, '/'), { cookie: `${SESSION_COOKIE}=${id}` });
  });

  it('ends every session when AUTH_TOKEN changes (the Redis key is derived from the token)', async () => {
    const namespace = randomUUID();
    const before = await start(undefined, namespace);
    const id = await sessionOf(before);
    const rotated = await start(
      (config) => ({ ...config, orchestration: { ...config.orchestration, authToken: `${TOKEN}-new` } }),
      namespace,
    );
    expect((await call(before, '/api/agents', withCookie(id))).status).toBe(200);
    expect(json(await call(rotated, '/api/agents', withCookie(id)))).toEqual({
      status: 401,
      body: { error: 'Sessão expirada ou encerrada: entre novamente em /sign-in' },
    });
  });
});

describe('the WebSocket accepts the session cookie', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await start();
  });

  it.each(['/', '/ws'])(
    'at %s: accepted with the cookie and greeted; refused (401) without it or with a forged one',
    async (socketPath) => {
      const id = await sessionOf(server);
      const url = wsUrl(server, socketPath);
      const probe = await openSocket(url, { cookie: `${SESSION_COOKIE}=${id}`, origin: server.url });
      expect(await probe.nextMessage()).toEqual({ type: 'connected', clientId: new URL(url).searchParams.get('clientId') });
      probe.socket.close();

      expect(await refusedHandshake(url)).toEqual({ status: 401, authenticate: 'Bearer', body: { error: CREDENTIAL_REQUIRED_REASON } });
      const forged = await refusedHandshake(url, { cookie: `${SESSION_COOKIE}=${randomBytes(32).toString('base64url')}` });
      expect(forged).toEqual({ status: 401, authenticate: 'Bearer', body: { error: SESSION_INVALID_REASON } });
    },
  );

  it("lets a presented token decide alone, and refuses another site's page even with the cookie", async () => {
    const id = await sessionOf(server);
    const wrongToken = await refusedHandshake(`${wsUrl(server, '/')}&token=wrong-token-xxxxxxxx`, { cookie: `${SESSION_COOKIE}=${id}` });
    expect(wrongToken).toEqual({ status: 401, authenticate: 'Bearer', body: { error: TOKEN_INVALID_REASON } });
    const otherSite = await refusedHandshake(wsUrl(server, '/'), {
      cookie: `${SESSION_COOKIE}=${id}`,
      origin: 'https://outro.example.org',
    });
    expect(otherSite).toEqual({ status: 403, authenticate: null, body: { error: ORIGIN_REFUSED_REASON } });
    const byToken = await openSocket(`${wsUrl(server, '/ws')}&token=${TOKEN}`);
    expect(await byToken.nextMessage()).toMatchObject({ type: 'connected' });
    byToken.socket.close();
  });
});

describe('refusals of the sign-in itself', () => {
  it("refuses a sign-in posted by another site's page with 403, setting no cookie and starting no session", async () => {
    const server = await start();
    const pages: Array<Record<string, string>> = [
      { origin: 'https://outro.example.org' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'null' },
    ];
    for (const headers of pages) {
      const answer = await signIn(server, TOKEN, headers);
      expect([headers, answer.status, answer.cookies]).toEqual([headers, 403, []]);
    }
    expect(await keysLike(server, 'panel-session:*')).toEqual([]);
    // From its own page it is accepted.
    expect((await signIn(server, TOKEN, { origin: server.url, 'sec-fetch-site': 'same-origin' })).status).toBe(303);
    expect(await keysLike(server, 'panel-session:*')).toHaveLength(1);
  });

  it('allows SIGN_IN_ATTEMPTS attempts per address and window, then answers 429 with the form and Retry-After, even for the right token', async () => {
    const server = await start();
    for (let attempt = 1; attempt <= SIGN_IN_ATTEMPTS.requests; attempt += 1) {
      expect([attempt, (await signIn(server, `wrong-${attempt}`)).status]).toEqual([attempt, 401]);
    }
    const over = await signIn(server, TOKEN);
    expect([over.status, over.cookies]).toEqual([429, []]);
    expect(over.text).toContain(SIGN_IN_MESSAGES.tooMany);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // A budget of its own: /api is not spent by sign-in attempts.
    expect((await call(server, '/api/agents', { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect(await keysLike(server, `${RATE_LIMIT_KEY_PREFIX}:sign-in:*`)).toHaveLength(1);
  });

  it('fails closed when Redis is unreachable: no session (503 page), the cookie refused (503), the bearer token still served', async () => {
    const port = await unusedPort();
    const server = await start((config) => ({ ...config, dependencyTimeoutMs: 1_000, redis: { ...config.redis, port } }));
    const answer = await signIn(server, TOKEN);
    expect([answer.status, answer.cookies]).toEqual([503, []]);
    expect(answer.text).toContain(SIGN_IN_MESSAGES.unavailable);
    const cookie = await call(server, '/api/agents', withCookie(randomBytes(32).toString('base64url')));
    expect(json(cookie)).toEqual({
      status: 503,
      body: { error: 'A sessão não pode ser verificada agora (Redis indisponível); Authorization: Bearer <token> continua funcionando' },
    });
    expect((await call(server, '/api/agents', { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });
});

describe('where there is no sign-in', () => {
  it('has no /sign-in without PANEL_DIR, and ignores a cookie there: the token alone opens /api', async () => {
    const server = await start((config) => ({ ...config, panel: { dir: null } }));
    expect(json(await call(server, '/sign-in'))).toEqual({ status: 404, body: { error: 'Não encontrado' } });
    expect(json(await call(server, '/api/agents', withCookie(randomBytes(32).toString('base64url'))))).toEqual({
      status: 401,
      body: { error: 'Autenticação necessária: envie Authorization: Bearer <token>' },
    });
    expect((await refusedHandshake(wsUrl(server, '/'))).body).toEqual({ error: TOKEN_REQUIRED_REASON });
  });

  it('has no /sign-in without AUTH_TOKEN: the panel is served as before', async () => {
    const server = await start((config) => ({ ...config, orchestration: { ...config.orchestration, authToken: null } }));
    expect((await call(server, '/sign-in')).status).toBe(404);
    expect((await call(server, '/app.html')).status).toBe(200);
  });
});
