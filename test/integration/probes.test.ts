import http from 'node:http';
import Redis from 'ioredis';
import { config } from '../../lib/config';
import { SHUTTING_DOWN_REASON } from '../../lib/readiness';
import { unusedPort } from '../support/ports';
import { startServiceProcess, waitForLog, type ServiceProcess } from '../support/processes';
import { until } from '../support/waiting';
import { openSocket } from '../support/websocket';

/**
 * The probes and the API's drain (docs/probes-and-drains.md), on real processes of main.ts: /livez and
 * /readyz on the API's port and on a worker's METRICS_PORT with METRICS_ENABLED=false, answered
 * whatever the Host and without the token while one is set; /metrics by a pod's address; and on
 * SIGTERM, /readyz at 503 while the API still serves, then the WebSockets told to reconnect (1012).
 */

const TOKEN = 'probes-test-token-0123456789abcdef';
/** What a Kubernetes probe or a Prometheus scrape by pod address sends: no name the service knows. */
const POD_HOST = '10.1.2.3';

interface Answer {
  status: number;
  body: any;
  text: string;
}

/** A request with the Host header and path exactly as given (fetch would normalise the path). */
function call(port: number, method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const json = (response.headers['content-type'] ?? '').includes('json') && text !== '';
        resolve({ status: response.statusCode ?? 0, body: json ? JSON.parse(text) : text, text });
      });
    });
    request.on('error', reject);
    request.end();
  });
}

const fromPod = (port: number) => ({ host: `${POD_HOST}:${port}` });
const withToken = { authorization: `Bearer ${TOKEN}` };

/** Polls /readyz until it answers `status`: a process is ready some time after it listens. */
const readyz = (port: number, status: number, service: ServiceProcess) =>
  until(
    `/readyz on ${port} answers ${status}`,
    async () => {
      if (service.child.exitCode !== null) throw new Error(`the process exited:\n${service.output()}`);
      return call(port, 'GET', '/readyz').catch(() => ({ status: 0, body: null, text: '' }));
    },
    (answer) => answer.status === status,
    90_000,
  );

describe('the probes of an API process (PROCESS_ROLES=api, AUTH_TOKEN set)', () => {
  let api: ServiceProcess;
  let port: number;

  beforeAll(async () => {
    port = await unusedPort();
    // Long enough for the checks made after /readyz turned 503 to land inside the drain, whatever the machine's load.
    api = startServiceProcess({ PROCESS_ROLES: 'api', HTTP_PORT: String(port), AUTH_TOKEN: TOKEN, DRAIN_DELAY_MS: '8000' });
    await readyz(port, 200, api);
  }, 120_000);

  afterAll(() => {
    api?.child.kill('SIGKILL');
  });

  it('answers /livez and /readyz from a pod address without the token, however the path is spelled', async () => {
    const live = await call(port, 'GET', '/livez', fromPod(port));
    expect({ status: live.status, body: live.body }).toEqual({ status: 200, body: { status: 'ok' } });
    const ready = await call(port, 'GET', '/readyz', fromPod(port));
    expect({ status: ready.status, body: ready.body }).toEqual({
      status: 200,
      body: { status: 'ok', checks: { mysql: 'up', redis: 'up', 'live-output': 'up' } },
    });
    for (const spelling of ['/READYZ', '//readyz', '/readyz/', '/%72eadyz']) {
      const answer = await call(port, 'GET', spelling, fromPod(port));
      expect({ spelling, status: answer.status, body: answer.body }).toEqual({ spelling, status: 200, body: ready.body });
    }
    const head = await call(port, 'HEAD', '/readyz', fromPod(port));
    expect({ status: head.status, text: head.text }).toEqual({ status: 200, text: '' });
    const post = await call(port, 'POST', '/readyz', fromPod(port));
    expect({ status: post.status, body: post.body }).toEqual({ status: 405, body: { error: 'Método não permitido' } });
  });

  it('lets no spelling reach anything else past the Host check or the token', async () => {
    for (const path of ['/readyz/../api/agents', '/livez/..%2Fapi%2Fagents', '/api/agents']) {
      expect({ path, status: (await call(port, 'GET', path, { ...fromPod(port), ...withToken })).status }).toEqual({ path, status: 403 });
      expect({ path, status: (await call(port, 'GET', path)).status }).toEqual({ path, status: 401 });
    }
  });

  it('serves /metrics by the pod address with the token (the token protects it), and not without', async () => {
    const refused = await call(port, 'GET', '/metrics', fromPod(port));
    expect(refused.status).toBe(401);
    const scraped = await call(port, 'GET', '/metrics', { ...fromPod(port), ...withToken });
    expect(scraped.status).toBe(200);
    expect(scraped.text).toContain('process_cpu_user_seconds_total');
  });

  it('on SIGTERM answers /readyz 503 at once, serves the other requests through the drain, then tells sockets to reconnect', async () => {
    const socket = await openSocket(`ws://127.0.0.1:${port}/ws?clientId=probes-drain&token=${TOKEN}`);
    expect(await socket.nextMessage()).toEqual({ type: 'connected', clientId: 'probes-drain' });
    api.child.kill('SIGTERM');

    const unready = await readyz(port, 503, api);
    expect(unready.body).toEqual({ status: 'unavailable', checks: {}, reasons: [SHUTTING_DOWN_REASON] });
    // Still served meanwhile: what a load balancer sent before it saw the 503.
    expect((await call(port, 'GET', '/livez', fromPod(port))).status).toBe(200);
    expect((await call(port, 'GET', '/api/v1/health')).status).toBe(200);
    const agents = await call(port, 'GET', '/api/agents', withToken);
    expect(agents.status).toBe(200);
    expect(socket.socket.readyState).toBe(socket.socket.OPEN);

    expect(await socket.closed).toEqual({ code: 1012, reason: 'server restarting: reconnect' });
    expect(await api.exited).toBe(0);
    const order = api
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; step?: string })
      .filter((entry) => ['shutdown started', 'http draining', 'shutdown step done', 'shutdown complete'].includes(entry.msg))
      .map((entry) => (entry.step ? `${entry.msg}: ${entry.step}` : entry.msg));
    expect(order).toEqual([
      'shutdown started',
      'http draining',
      'shutdown step done: workers',
      'shutdown step done: http',
      'shutdown step done: connections',
      'shutdown complete',
    ]);
  }, 60_000);
});

describe("an API whose Redis user may not subscribe to the live output's channels", () => {
  const user = `probes-live-${process.pid}`;
  const password = 'probes-live-password-0123456789';
  let admin: Redis;
  let api: ServiceProcess;

  beforeAll(() => {
    admin = new Redis({ host: config.redis.host, port: config.redis.port, lazyConnect: true });
  });

  afterAll(async () => {
    api?.child.kill('SIGKILL');
    await admin.call('ACL', 'DELUSER', user);
    admin.disconnect();
  });

  it('is not ready while the subscription is refused (it would relay nothing), and ready once allowed', async () => {
    // Every key and command, but channels of another prefix only: PSUBSCRIBE <prefix>live:* is refused (NOPERM).
    await admin.call('ACL', 'SETUSER', user, 'reset', 'on', `>${password}`, '~*', '&elsewhere:*', '+@all');
    const port = await unusedPort();
    api = startServiceProcess({ PROCESS_ROLES: 'api', HTTP_PORT: String(port), REDIS_USERNAME: user, REDIS_PASSWORD: password });
    const refused = await readyz(port, 503, api);
    expect(refused.body).toEqual({
      status: 'unavailable',
      checks: { mysql: 'up', redis: 'up', 'live-output': 'down' },
      reasons: ['live-output: não respondeu'],
    });

    await admin.call('ACL', 'SETUSER', user, 'allchannels');
    expect((await readyz(port, 200, api)).body).toEqual({ status: 'ok', checks: { mysql: 'up', redis: 'up', 'live-output': 'up' } });
  }, 120_000);
});

describe('the probes of a worker alone on METRICS_PORT, with METRICS_ENABLED=false', () => {
  let worker: ServiceProcess;
  let port: number;
  /** Every distinct /readyz answer from the probe server's start until the worker was ready. */
  const seen = new Set<string>();

  beforeAll(async () => {
    port = await unusedPort();
    worker = startServiceProcess({
      PROCESS_ROLES: 'ranking-worker',
      METRICS_ENABLED: 'false',
      METRICS_PORT: String(port),
      AUTH_TOKEN: TOKEN,
    });
    await waitForLog(worker, 'probe server listening');
    await until(
      'the worker is ready',
      async () => {
        const answer = await call(port, 'GET', '/readyz');
        seen.add(JSON.stringify({ status: answer.status, body: answer.body }));
        return answer.status;
      },
      (status) => status === 200,
      90_000,
    );
  }, 120_000);

  afterAll(() => {
    worker?.child.kill('SIGKILL');
  });

  it('says "starting" until its worker runs, then ready', () => {
    const ok = { status: 200, body: { status: 'ok', checks: { 'ranking-worker': 'up' } } };
    const starting = {
      status: 503,
      body: { status: 'unavailable', checks: { 'ranking-worker': 'down' }, reasons: ['ranking-worker: iniciando'] },
    };
    // The worker bundles its workflows for seconds after the probe server listens: the first answers say so.
    expect([...seen].map((text) => JSON.parse(text))).toEqual([starting, ok]);
  });

  it('serves the probes from a pod address without the token, /readyz naming its worker; no /metrics', async () => {
    const ready = await call(port, 'GET', '/readyz');
    expect(ready.body).toEqual({ status: 'ok', checks: { 'ranking-worker': 'up' } });
    expect((await call(port, 'GET', '/readyz', fromPod(port))).body).toEqual(ready.body);
    const live = await call(port, 'GET', '/livez', fromPod(port));
    expect({ status: live.status, body: live.body }).toEqual({ status: 200, body: { status: 'ok' } });
    // The metrics are off: nothing else is served, and the Host check stays for everything else.
    expect((await call(port, 'GET', '/metrics', withToken)).status).toBe(404);
    expect((await call(port, 'GET', '/metrics', { ...fromPod(port), ...withToken })).status).toBe(403);
  });

  it('stops on SIGTERM and exits 0, its probe server last, after the connections (/readyz 503 until the end)', async () => {
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    const steps = worker
      .output()
      .split('\n')
      .filter((line) => line.includes('"msg":"shutdown step done"'))
      .map((line) => (JSON.parse(line) as { step: string }).step);
    expect(steps).toEqual(['workers', 'connections', 'probes']);
  });
});
