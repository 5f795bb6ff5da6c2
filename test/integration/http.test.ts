import { httpCall } from '../support/json-api';
import { startTestServer, type TestServer } from '../support/server';
import { unusedPort } from '../support/ports';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(() => server.close());

/** The answer's status, content type and JSON body. */
async function call(path: string, init?: RequestInit) {
  const answer = await httpCall(server.url + path, init);
  return { status: answer.status, type: answer.headers.get('content-type'), body: answer.body };
}

describe('GET /api/v1/health', () => {
  it('answers status ok with a message', async () => {
    expect(await call('/api/v1/health')).toEqual({
      status: 200,
      type: 'application/json; charset=utf-8',
      body: { status: 'ok', message: 'API de ranking de consultores em funcionamento' },
    });
  });
});

describe('GET /api/system/status', () => {
  it('reports each dependency up with its latency', async () => {
    const { status, body } = await call('/api/system/status');
    expect(status).toBe(200);
    expect(body.status).toBe('ok');
    expect(Object.keys(body.dependencies)).toEqual(['mysql', 'redis', 'elasticsearch', 'temporal']);
    for (const dependency of Object.values<Record<string, unknown>>(body.dependencies)) {
      expect(dependency).toEqual({ status: 'up', latencyMs: expect.any(Number) });
      expect(dependency.latencyMs).toBeGreaterThanOrEqual(0);
    }
    expect(Date.parse(body.checkedAt)).not.toBeNaN();
  });

  it('reports unreachable dependencies as down, with the cause, and the whole as degraded', async () => {
    const closedPort = await unusedPort();
    const broken = await startTestServer((config) => ({
      ...config,
      dependencyTimeoutMs: 1_500,
      mysql: { ...config.mysql, port: closedPort },
      redis: { ...config.redis, port: closedPort },
      elasticsearch: { ...config.elasticsearch, url: `http://127.0.0.1:${closedPort}`, nodes: [`http://127.0.0.1:${closedPort}`] },
      temporal: { ...config.temporal, address: `127.0.0.1:${closedPort}` },
    }));
    try {
      const response = await fetch(`${broken.url}/api/system/status`);
      const report = (await response.json()) as {
        status: string;
        dependencies: Record<string, { status: string; latencyMs: number; error?: string }>;
      };
      expect(response.status).toBe(200);
      expect(report.status).toBe('degraded');
      for (const name of ['mysql', 'redis', 'elasticsearch', 'temporal']) {
        const dependency = report.dependencies[name];
        expect(dependency?.status).toBe('down');
        expect(dependency?.error).toEqual(expect.stringMatching(/\S/));
        expect(dependency?.latencyMs).toBeLessThan(1_500 + 500);
      }
    } finally {
      await broken.close();
    }
  });
});

describe('error envelopes of the running app', () => {
  it('answers unknown routes with 404 in each service’s envelope', async () => {
    expect(await call('/api/v1/nao-existe')).toMatchObject({ status: 404, body: { detail: 'Não encontrado' } });
    expect(await call('/api/nao-existe')).toMatchObject({ status: 404, body: { error: 'Não encontrado' } });
  });

  it('answers a wrong method with 405 in each service’s envelope', async () => {
    expect(await call('/api/v1/health', { method: 'DELETE' })).toMatchObject({
      status: 405,
      body: { detail: 'Método não permitido' },
    });
    expect(await call('/api/system/status', { method: 'POST' })).toMatchObject({
      status: 405,
      body: { error: 'Método não permitido' },
    });
  });

  it('answers a JSON body over 1 MB under /api with 413 and {error} (contract 1.2, 1.3)', async () => {
    const big = JSON.stringify({ agent_name: 'x', description: 'a'.repeat(1_100_000) });
    const answer = await call('/api/agents', { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({ error: 'O corpo JSON é maior que 1mb' });
  });

  it('takes body-less POSTs and DELETEs sent with a JSON content type, as the panel sends them (contract 1.2)', async () => {
    const headers = { 'content-type': 'application/json', 'x-client-id': 'painel-http-test' };
    expect(await call('/api/notifications/read-all', { method: 'POST', headers })).toMatchObject({ status: 200, body: { success: true } });
    expect(await call('/api/executions/cancel-all', { method: 'POST', headers })).toMatchObject({ status: 200, body: { cancelled: true } });
    expect(await call('/api/notifications', { method: 'DELETE', headers })).toMatchObject({ status: 200, body: { success: true } });
    // A DELETE answered 204 has no body; the panel reads none.
    const deleted = await fetch(`${server.url}/api/executions/history`, { method: 'DELETE', headers });
    expect([deleted.status, await deleted.text()]).toEqual([204, '']);
  });

  it('answers a malformed JSON body with 400 in each service’s envelope', async () => {
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"limpar_antes": tru' };
    const v1 = await call('/api/v1/health', init);
    const api = await call('/api/system/status', init);
    expect(v1.status).toBe(400);
    expect(v1.body.detail).toMatch(/^Corpo JSON inválido; o analisador diz: \S/);
    expect(api.status).toBe(400);
    expect(api.body.error).toMatch(/^Corpo JSON inválido; o analisador diz: \S/);
  });

  it("answers a validation failure in Brazilian Portuguese, zod's `ptBR` locale, in both services (docs/errors.md)", async () => {
    expect(await call('/api/executions/recent?limit=101')).toMatchObject({
      status: 400,
      body: { error: 'query.limit: Grande demais: esperava que o número fosse <= 100' },
    });
    expect(await call('/api/v1/ranking?limite=5000')).toMatchObject({
      status: 422,
      body: { detail: 'query.limite: Grande demais: esperava que o número fosse <= 1000' },
    });
    // The ranking schemas' own texts, in the language of the specification's messages.
    expect(await call('/api/v1/ranking/busca?nome=Li')).toMatchObject({
      status: 422,
      body: { detail: 'query.nome: deve ter pelo menos 3 caracteres' },
    });
    expect(await call('/api/v1/consultores/sugerir?tema=x')).toMatchObject({
      status: 422,
      body: { detail: 'query.tema: deve ter pelo menos 2 caracteres' },
    });
  });
});
