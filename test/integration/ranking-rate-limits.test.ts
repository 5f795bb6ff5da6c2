import { randomUUID } from 'node:crypto';
import type { Config } from '../../lib/config';
import { jsonCall } from '../support/json-api';
import { startTestServer, type TestServer } from '../support/server';

/**
 * Budgets of the /api/v1 routes that start work (docs/ranking-api.md, "Rate limits"): the ranking
 * job's start and the PDF sheets, against the real Redis. Each server counts under a fresh key
 * prefix, so budgets spent by another run or file never count here. The requests spending the
 * budget are refused by validation (422) before they start anything: the budget is spent before
 * the route runs, and the request over the budget is a valid one that the limit alone refuses.
 */
function budgets(limits: { job: number; pdf: number }) {
  return (config: Config): Config => ({
    ...config,
    redis: { ...config.redis, keyPrefix: `${config.redis.keyPrefix}v1-budgets-${randomUUID()}:` },
    ranking: { ...config.ranking, jobRateLimit: { requests: limits.job, windowSeconds: 60 } },
    pdf: { ...config.pdf, rateLimit: { requests: limits.pdf, windowSeconds: 60 } },
  });
}

const servers: TestServer[] = [];
async function start(limits: { job: number; pdf: number }): Promise<TestServer> {
  const server = await startTestServer(budgets(limits));
  servers.push(server);
  return server;
}

afterAll(async () => {
  for (const server of servers) await server.close();
});

const call = (server: TestServer, method: string, path: string, body?: unknown) => jsonCall(server.url, method, path, body);

function expectRefusedForBudget(answer: Awaited<ReturnType<typeof call>>, requests: number): void {
  expect(answer.status).toBe(429);
  expect(answer.headers.get('x-ratelimit-limit')).toBe(String(requests));
  expect(answer.headers.get('x-ratelimit-remaining')).toBe('0');
  const retryAfter = Number(answer.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(answer.body).toEqual({
    detail: `Muitas requisições: no máximo ${requests} a cada 60 s por cliente; tente novamente em ${retryAfter} s`,
  });
}

describe('POST /api/v1/ranking/processar', () => {
  it('answers the request beyond RANKING_JOB_RATE_LIMIT_REQUESTS with 429, a detail and Retry-After, starting nothing', async () => {
    const server = await start({ job: 2, pdf: 100 });
    const remaining: Array<string | null> = [];
    for (let i = 0; i < 2; i += 1) {
      const answer = await call(server, 'POST', '/api/v1/ranking/processar', { limpar_antes: 'sim' });
      expect(answer.status).toBe(422);
      remaining.push(answer.headers.get('x-ratelimit-remaining'));
    }
    expect(remaining).toEqual(['1', '0']);
    // A valid start: only the budget stands between it and a new run.
    expectRefusedForBudget(await call(server, 'POST', '/api/v1/ranking/processar', {}), 2);
    expectRefusedForBudget(await call(server, 'POST', '/api/v1/ranking/processar'), 2);
  });
});

describe('the PDF routes', () => {
  it('share one budget of PDF_RATE_LIMIT_REQUESTS: beyond it both sheets answer 429, rendering nothing', async () => {
    const server = await start({ job: 100, pdf: 3 });
    expect((await call(server, 'POST', '/api/v1/equipe/pdf', {})).status).toBe(422);
    expect((await call(server, 'POST', '/api/v1/equipe/pdf', { tema: 'IA' })).status).toBe(422);
    const third = await call(server, 'GET', '/api/v1/consultor/abc/pdf');
    expect(third.status).toBe(422);
    expect(third.headers.get('x-ratelimit-remaining')).toBe('0');

    expectRefusedForBudget(
      await call(server, 'POST', '/api/v1/equipe/pdf', { tema: 'IA', consultores: [{ id_pessoa: 1, nome: 'Ana' }] }),
      3,
    );
    expectRefusedForBudget(await call(server, 'GET', '/api/v1/consultor/1/pdf'), 3);
    expect(await server.resources.pdf.status()).toMatchObject({ launches: 0, documents: 0 });
  });
});

describe('what the budgets leave alone', () => {
  it('keeps the budgets apart: spending the PDF budget leaves the job start and /api their own', async () => {
    const server = await start({ job: 1, pdf: 1 });
    expect((await call(server, 'POST', '/api/v1/equipe/pdf', {})).status).toBe(422);
    expect((await call(server, 'POST', '/api/v1/equipe/pdf', {})).status).toBe(429);
    const job = await call(server, 'POST', '/api/v1/ranking/processar', { limpar_antes: 'sim' });
    expect(job.status).toBe(422);
    expect(job.headers.get('x-ratelimit-limit')).toBe('1');
    const api = await call(server, 'GET', '/api/notifications');
    expect(api.status).toBe(200);
    expect(api.headers.get('x-ratelimit-limit')).toBe(String(server.resources.config.orchestration.rateLimit.requests));
  });

  it('leaves the other /api/v1 routes unlimited: no budget headers, never 429', async () => {
    const server = await start({ job: 1, pdf: 1 });
    for (const path of ['/api/v1/health', '/api/v1/ranking/busca?nome=silva', '/api/v1/ranking/status', '/api/v1/ranking/selos']) {
      for (let i = 0; i < 3; i += 1) {
        const answer = await call(server, 'GET', path);
        expect(answer.status).not.toBe(429);
        expect(answer.headers.get('x-ratelimit-limit')).toBeNull();
      }
    }
    // A wrong method on a limited path is not a request to start work: 405, no budget spent.
    const wrongMethod = await call(server, 'GET', '/api/v1/ranking/processar');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('x-ratelimit-limit')).toBeNull();
  });
});
