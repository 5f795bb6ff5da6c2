import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client as ElasticsearchClient, errors as esErrors } from '@elastic/elasticsearch';
import { Connection } from '@temporalio/client';
import Redis, { type RedisOptions } from 'ioredis';
import mysql from 'mysql2/promise';
import { createDatabase, type DatabaseHandle } from '../../db';
import { mysqlConnectionOptions } from '../../db/connection-options';
import { PERSON_INDEX_BASE } from '../../domain/person-index';
import { config as testConfig, loadConfig, type Config } from '../../lib/config';
import { createElasticsearch, indexName } from '../../lib/elasticsearch';
import { repoRoot } from '../../lib/paths';
import { redisOptions } from '../../lib/redis';
import { generatePersons } from '../../scripts/generate-persons';
import { connectTemporal } from '../../temporal/connection';
import { ensureNamespace } from '../../temporal/namespace';
import { ensureSearchAttributes } from '../../temporal/search-attributes';
import { endedExecution, jsonCall } from '../support/json-api';
import { unusedPort } from '../support/ports';
import { startSourceProcess, waitForLog, type ServiceProcess } from '../support/processes';
import { expectedRanking, runReferenceDate, SEED_DATE } from '../support/ranking';
import { createStandInAgent } from '../support/real-agents';
import { requireRoot } from '../support/root';
import { baseProcessEnv, ensureSecureStack, presentTokenTo, SECURE_DIR, securePortsEnv, secureServiceEnv } from '../support/secure-stack';
import { STAND_IN_TEXT, startStandInModel, type StandInModel } from '../support/stand-in-model';
import { until } from '../support/waiting';
import { openSocket, refusedHandshake, untilFinal, untilPipelineMessage, type SocketProbe } from '../support/websocket';

/**
 * The whole service on the secured local stack (issue 39, section 3; docs/secure-stack.md): the API, the
 * ranking worker and the agents worker as processes of their own, configured by `.stack/secure/service.env`
 * alone (secrets as `_FILE` paths), the ranking worker reaching Temporal through the API-key front and the
 * other two through the mTLS front. A ranking job, an agent run with its live output, a pipeline through an
 * approval and a webhook run go end to end; each part then refuses the plain or anonymous client the
 * service would have been without those settings, and no process printed a secret (the processes log at
 * debug level, the most they can say).
 *
 * Suite-own names: the database `consultores_secure_test` (the stack's user `app` may use `consultores%`
 * only), the Temporal namespace `consultores-secure-test` (registered here with the runs' search
 * attributes, so a service started on the stack by hand in `default` never takes these tasks), the Redis
 * prefix `secure-test:` and a data area of its own. The person index is the stack's `pessoas`: the
 * service's API key may read that index only, so no prefix is possible.
 */

const SUITE = 'secure-stack';
const DATABASE = 'consultores_secure_test';
const NAMESPACE = 'consultores-secure-test';
const SEED = 31;
const PERSONS = 500;
const ids = Array.from({ length: PERSONS }, (_, index) => index + 1);
const CLAUDE_CLI = path.join(repoRoot, 'node_modules/.bin/claude');
const FINAL_STATES = ['completed', 'error', 'cancelled', 'rejected'];

/** The settings of each process: service.env, the suite's names, and nothing inherited. */
let serviceEnv: Record<string, string>;
let portsEnv: Record<string, string>;
let apiEnv: Record<string, string>;
let rankingEnv: Record<string, string>;
let agentsEnv: Record<string, string>;
let token: string;
let baseUrl: string;
let workArea: string;
let model: StandInModel;
let database: DatabaseHandle | undefined;
let restoreFetch: (() => void) | undefined;
let migration: ServiceProcess;
let api: ServiceProcess;
let rankingWorker: ServiceProcess;
let agentsWorker: ServiceProcess;
const processes: Array<{ name: string; process: ServiceProcess }> = [];
const probes: SocketProbe[] = [];

function start(name: string, entry: string, env: Record<string, string>): ServiceProcess {
  const started = startSourceProcess(entry, env);
  processes.push({ name, process: started });
  return started;
}

/** Ends a process with SIGTERM (its graceful shutdown), SIGKILL after 30 s; resolves with its exit code. */
async function stop(service: ServiceProcess): Promise<number | null> {
  if (service.child.exitCode !== null || service.child.signalCode !== null) return service.exited;
  service.child.kill('SIGTERM');
  const timer = setTimeout(() => service.child.kill('SIGKILL'), 30_000);
  try {
    return await service.exited;
  } finally {
    clearTimeout(timer);
  }
}

beforeAll(async () => {
  requireRoot(SUITE);
  await ensureSecureStack();
  serviceEnv = secureServiceEnv();
  portsEnv = securePortsEnv();
  token = fs.readFileSync(serviceEnv.AUTH_TOKEN_FILE!, 'utf8').replace(/\r?\n$/, '');
  workArea = path.join(testConfig.orchestration.workdirRoots[0]!, `test-${SUITE}-${process.pid}-${Date.now()}`);
  const dataDir = '.data/test-secure';
  const common: Record<string, string> = {
    ...baseProcessEnv(),
    ...serviceEnv,
    NODE_ENV: 'test',
    LOG_LEVEL: 'debug',
    MYSQL_DATABASE: DATABASE,
    REDIS_KEY_PREFIX: 'secure-test:',
    TEMPORAL_NAMESPACE: NAMESPACE,
    AGENT_DATA_DIR: dataDir,
    AGENT_REPORTS_DIR: `${dataDir}/external-reports`,
    AGENT_UPLOADS_DIR: '.uploads/test-secure',
    GIT_MIRRORS_DIR: '.git-mirrors/test-secure',
    AGENT_WORKDIR_ROOTS: testConfig.orchestration.workdirRoots[0]!,
    AGENT_COMMAND: CLAUDE_CLI,
    // This suite polls more often than a person would.
    RATE_LIMIT_REQUESTS: '1000000',
    RANKING_JOB_RATE_LIMIT_REQUESTS: '1000000',
    HOOK_RATE_LIMIT_REQUESTS: '1000000',
  };
  apiEnv = { ...common, PROCESS_ROLES: 'api', HTTP_PORT: String(await unusedPort()) };
  agentsEnv = { ...common, PROCESS_ROLES: 'agents-worker', METRICS_PORT: String(await unusedPort()) };
  // The ranking worker through the API-key front: TLS with the stack's CA, the key, no client certificate.
  const { TEMPORAL_TLS_CLIENT_CERT_PATH: _cert, TEMPORAL_TLS_CLIENT_KEY_PATH: _key, ...withoutClientCertificate } = common;
  rankingEnv = {
    ...withoutClientCertificate,
    PROCESS_ROLES: 'ranking-worker',
    METRICS_PORT: String(await unusedPort()),
    TEMPORAL_ADDRESS: portsEnv.SECURE_TEMPORAL_APIKEY_ADDRESS!,
    TEMPORAL_API_KEY_FILE: portsEnv.SECURE_TEMPORAL_API_KEY_FILE!,
    TEMPORAL_TLS: 'true',
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: portsEnv.SECURE_CA_FILE!,
    TEMPORAL_TLS_SERVER_NAME: portsEnv.SECURE_SERVER_NAME!,
  };

  // The database first, by the migrator's own process with the same settings.
  migration = start('migrate', 'db/migrate-cli.ts', apiEnv);
  const migrated = await migration.exited;
  if (migrated !== 0) throw new Error(`db/migrate-cli.ts ended with ${migrated}:\n${migration.output()}`);

  // The suite's namespace and the runs' search attributes, through the mTLS front.
  const apiConfig = loadConfig(apiEnv);
  await ensureNamespace(apiConfig.temporal, NAMESPACE);
  const connection = await connectTemporal(apiConfig.temporal);
  try {
    await ensureSearchAttributes(connection, NAMESPACE);
  } finally {
    await connection.close();
  }

  // Records left active by an interrupted earlier run would hold slots.
  database = createDatabase(apiConfig.mysql);
  await database.pool.query(
    "UPDATE executions SET status = 'error', finished_at = NOW(3), error = 'deixado por uma execução anterior dos testes' WHERE status IN ('queued', 'running', 'retrying', 'awaiting_approval')",
  );

  model = await startStandInModel();
  api = start('api', 'main.ts', apiEnv);
  rankingWorker = start('ranking-worker', 'main.ts', rankingEnv);
  agentsWorker = start('agents-worker', 'main.ts', agentsEnv);
  await Promise.all([
    waitForLog(api, 'ready', 180_000),
    waitForLog(rankingWorker, 'worker started', 180_000),
    waitForLog(agentsWorker, 'worker started', 180_000),
  ]);
  baseUrl = `http://127.0.0.1:${apiEnv.HTTP_PORT}`;
  // The helpers (json-api.ts, real-agents.ts) call without a token: every call to this API presents it.
  restoreFetch = presentTokenTo(baseUrl, token);
}, 300_000);

afterAll(async () => {
  for (const probe of probes) probe.socket.terminate();
  await Promise.all(processes.map(({ process: service }) => stop(service)));
  await model?.close();
  restoreFetch?.();
  await database?.pool.end();
  // The stack had no person index before: the loaded one goes (the loader key may delete it).
  if (apiEnv) {
    const loader = createElasticsearch(
      loadConfig({ ...apiEnv, ELASTICSEARCH_API_KEY_FILE: portsEnv.SECURE_ELASTICSEARCH_LOADER_API_KEY_FILE! }).elasticsearch,
    );
    await loader.indices.delete({ index: 'pessoas', ignore_unavailable: true }).finally(() => loader.close());
  }
  if (workArea) fs.rmSync(workArea, { recursive: true, force: true });
}, 120_000);

const call = (method: string, route: string, body?: unknown, clientId?: string) => jsonCall(baseUrl, method, route, body, clientId);

async function connect(): Promise<{ probe: SocketProbe; clientId: string }> {
  const clientId = `seguro-${randomUUID()}`;
  const probe = await openSocket(
    `${baseUrl.replace(/^http/, 'ws')}/ws?clientId=${encodeURIComponent(clientId)}&token=${encodeURIComponent(token)}`,
  );
  probes.push(probe);
  expect(await probe.nextMessage()).toEqual({ type: 'connected', clientId });
  return { probe, clientId };
}

const standInAgent = (name: string, config: Record<string, unknown> = {}) =>
  createStandInAgent({ serverUrl: baseUrl, model, workArea }, name, { model: '', permissionMode: 'bypassPermissions', ...config });

/** Whether process `pid` holds an established TCP connection to `port` (its sockets' inodes in /proc/net/tcp and tcp6). */
function connectedTo(pid: number, port: string): boolean {
  const sockets = new Set(
    fs
      .readdirSync(`/proc/${pid}/fd`)
      .map((fd) => {
        try {
          return /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        } catch {
          return undefined; // closed meanwhile
        }
      })
      .filter((inode): inode is string => inode !== undefined),
  );
  const remotePort = Number(port).toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/net/tcp', '/proc/net/tcp6'].some((table) =>
    fs
      .readFileSync(table, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      // sl, local_address, rem_address, st (01: ESTABLISHED), ..., inode (the 10th field)
      .some((fields) => fields[2]?.endsWith(`:${remotePort}`) && fields[3] === '01' && sockets.has(fields[9]!)),
  );
}

describe('the service on the secured stack, as three processes', () => {
  it('migrated its database, and each process reports all four parts up through the secured settings', async () => {
    expect(migration.output()).toContain('"msg":"migrations applied"');
    expect(migration.output()).toContain(`"database":"${DATABASE}"`);
    const status = await call('GET', '/api/system/status');
    expect(status.status).toBe(200);
    expect(status.body.dependencies).toEqual({
      mysql: { status: 'up', latencyMs: expect.any(Number) },
      redis: { status: 'up', latencyMs: expect.any(Number) },
      elasticsearch: { status: 'up', latencyMs: expect.any(Number) },
      temporal: { status: 'up', latencyMs: expect.any(Number) },
    });
    // Without the token the API refuses, and so does the WebSocket.
    expect((await fetch(`${baseUrl}/api/system/status`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(401);
    expect((await refusedHandshake(`${baseUrl.replace(/^http/, 'ws')}/ws?clientId=sem-token`)).status).toBe(401);
    for (const worker of [rankingWorker, agentsWorker]) {
      expect(worker.output()).toContain(`"namespace":"${NAMESPACE}"`);
      expect(worker.child.exitCode).toBeNull();
    }
  });

  it('runs a ranking job started through the API to concluido; the ranking holds every person in order', async () => {
    const loaderConfig = loadConfig({ ...apiEnv, ELASTICSEARCH_API_KEY_FILE: portsEnv.SECURE_ELASTICSEARCH_LOADER_API_KEY_FILE! });
    const personIndex = indexName(loaderConfig.elasticsearch, PERSON_INDEX_BASE);
    expect(personIndex).toBe('pessoas');
    const loader = createElasticsearch(loaderConfig.elasticsearch);
    try {
      expect(
        await generatePersons({ es: loader, index: personIndex, count: PERSONS, seed: SEED, recreate: true, referenceDate: SEED_DATE }),
      ).toMatchObject({
        count: PERSONS,
      });
      expect((await loader.count({ index: personIndex })).count).toBe(PERSONS);
    } finally {
      await loader.close();
    }

    expect(await call('POST', '/api/v1/ranking/processar', { limpar_antes: true })).toEqual({
      status: 200,
      body: {
        sucesso: true,
        mensagem: 'Processamento do ranking iniciado em segundo plano; o ranking armazenado será limpo antes',
        job_id: 'ranking_job',
      },
    });
    const final = await until(
      'the ranking job ends',
      async () => (await call('GET', '/api/v1/ranking/status')).body,
      (status) => status.em_execucao === false && status.estado !== 'nunca_executado' && status.fonte === 'mysql',
      150_000,
    );
    expect(final).toMatchObject({
      job_id: 'ranking_job',
      em_execucao: false,
      estado: 'concluido',
      fase: 'concluido',
      origem: 'manual',
      limpar_antes: true,
      processados: PERSONS,
      total: PERSONS,
      percentual: 100,
      ultimo_erro: null,
    });

    const page = await call('GET', '/api/v1/ranking/paginado?size=1000');
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total: PERSONS, page: 1, size: 1000, total_pages: 1 });
    expect(page.body.consultores.map((entry: any) => entry.posicao)).toEqual(ids);
    expect(page.body.consultores.map((entry: any) => entry.id_pessoa)).toEqual(
      expectedRanking(SEED, ids, runReferenceDate()).map((person) => person.id_pessoa),
    );
    // The raw document through the service's read-only key.
    const raw = await call('GET', '/api/v1/consultor/1/raw');
    expect(raw.status).toBe(200);
    expect(raw.body.id_pessoa).toBe(1);
  }, 240_000);

  it("executes an agent with the real CLI against the stand-in model; its live output reaches the client's WebSocket", async () => {
    const agent = await standInAgent('seguro');
    const { probe, clientId } = await connect();
    const answer = await call('POST', `/api/agents/${agent.id}/execute`, { task: 'Answer. stand-in:text' }, clientId);
    expect(answer).toEqual({ status: 202, body: { executionId: expect.any(String), status: 'queued' } });
    const executionId = answer.body.executionId as string;

    const received = await untilFinal(probe, executionId, 150_000);
    const types = received.map((message) => message.type);
    expect(types.slice(0, 2)).toEqual(['execution_queued', 'execution_started']);
    expect(types.slice(-2)).toEqual(['report_generated', 'execution_complete']);
    const chunks = received.filter((message) => message.type === 'execution_output' && message.data.type === 'chunk');
    expect(chunks.map((message) => message.data.content).join('')).toBe(STAND_IN_TEXT);
    expect(received.at(-1)).toMatchObject({
      type: 'execution_complete',
      executionId,
      agentId: agent.id,
      agentName: agent.name,
      source: 'manual',
      status: 'completed',
      data: { exitCode: 0, result: STAND_IN_TEXT, canceled: false },
    });
    const record = await endedExecution(baseUrl, executionId);
    expect(record).toMatchObject({ status: 'completed', result: STAND_IN_TEXT, sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  }, 180_000);

  it('runs a two-step pipeline through an approval gate to completed', async () => {
    const first = await standInAgent('revisor-seguro', { workingDirectory: '' });
    const second = await standInAgent('redator-seguro', { workingDirectory: '' });
    const created = await call('POST', '/api/pipelines', {
      name: `seguro ${randomUUID().slice(0, 8)}`,
      description: '',
      workingDirectory: path.join(workArea, 'pipeline'),
      steps: [
        { agentId: first.id, inputTemplate: '{{input}}', description: '', requiresApproval: false },
        { agentId: second.id, inputTemplate: 'Resuma:\n{{input}}', description: '', requiresApproval: true },
      ],
    });
    expect(created.status).toBe(201);
    const pipelineId = created.body.id as string;
    const { probe, clientId } = await connect();
    const started = await call('POST', `/api/pipelines/${pipelineId}/execute`, { input: 'o relatório seguro' }, clientId);
    expect(started).toEqual({ status: 202, body: { pipelineId, executionId: expect.any(String), status: 'started' } });
    const runId = started.body.executionId as string;

    const beforeApproval = await untilPipelineMessage(probe, pipelineId, 'pipeline_approval_required', 150_000);
    expect(beforeApproval.find((message) => message.type === 'pipeline_step_complete')).toMatchObject({ stepIndex: 0, result: 'OK' });
    expect(beforeApproval.at(-1)).toMatchObject({ pipelineId, executionId: runId, stepIndex: 1, previousOutput: 'OK' });
    expect((await call('GET', `/api/executions/history/${runId}`)).body.status).toBe('awaiting_approval');

    expect(await call('POST', `/api/pipelines/${pipelineId}/approve`)).toEqual({ status: 200, body: { approved: true } });
    const afterApproval = await untilPipelineMessage(probe, pipelineId, 'pipeline_complete', 150_000);
    expect(afterApproval.find((message) => message.type === 'pipeline_step_complete')).toMatchObject({ stepIndex: 1, result: 'OK' });
    expect(afterApproval.at(-1)).toMatchObject({ pipelineId, executionId: runId, lastAgentId: second.id });

    const record = await until(
      `pipeline run ${runId} recorded as ended`,
      async () => (await call('GET', `/api/executions/history/${runId}`)).body,
      (body) => FINAL_STATES.includes(body.status),
      60_000,
    );
    expect(record).toMatchObject({ type: 'pipeline', pipelineId, input: 'o relatório seguro', status: 'completed', result: 'OK' });
    expect(record.steps.map((step: any) => [step.stepIndex, step.agentId, step.status])).toEqual([
      [0, first.id, 'completed'],
      [1, second.id, 'completed'],
    ]);
    expect(record.steps[1].prompt).toBe('Resuma:\nOK');
  }, 300_000);

  it('starts a run from a webhook call and the run completes', async () => {
    const agent = await standInAgent('gancho-seguro');
    const name = `gancho seguro ${randomUUID().slice(0, 8)}`;
    const created = await call('POST', '/api/webhooks', { name, targetType: 'agent', targetId: agent.id });
    expect(created.status).toBe(201);
    const hooked = await call('POST', `/hook/${created.body.token}`, { task: 'pelo gancho seguro' });
    expect(hooked).toEqual({ status: 202, body: { executionId: expect.any(String), status: 'started', webhook: name } });
    const record = await endedExecution(baseUrl, hooked.body.executionId, 150_000);
    expect(record).toMatchObject({ status: 'completed', result: 'OK', source: 'webhook', task: 'pelo gancho seguro', agentId: agent.id });
    const listed = (await call('GET', '/api/webhooks')).body.find((item: any) => item.id === created.body.id);
    expect(listed.triggerCount).toBe(1);
  }, 180_000);

  it('reached Temporal through both fronts: the ranking worker through the API-key port only, the API and the agents worker through the mTLS port only', () => {
    const mtlsPort = portsEnv.SECURE_TEMPORAL_MTLS_ADDRESS!.split(':').at(-1)!;
    const apiKeyPort = portsEnv.SECURE_TEMPORAL_APIKEY_ADDRESS!.split(':').at(-1)!;
    const through = (service: ServiceProcess) => ({
      mtls: connectedTo(service.child.pid!, mtlsPort),
      apiKey: connectedTo(service.child.pid!, apiKeyPort),
    });
    expect({ api: through(api), agentsWorker: through(agentsWorker), rankingWorker: through(rankingWorker) }).toEqual({
      api: { mtls: true, apiKey: false },
      agentsWorker: { mtls: true, apiKey: false },
      rankingWorker: { mtls: false, apiKey: true },
    });
  });
});

describe('each part refuses the plain or anonymous client the service would be without its settings', () => {
  let settings: Config;
  beforeAll(() => {
    settings = loadConfig(apiEnv);
  });
  const readSecret = (file: string) => fs.readFileSync(file, 'utf8').replace(/\r?\n$/, '');

  it('MariaDB: plain TCP with the right password is refused (ER_ACCESS_DENIED_ERROR); TLS with the same account works', async () => {
    const plain = {
      host: settings.mysql.host,
      port: settings.mysql.port,
      user: settings.mysql.user,
      password: settings.mysql.password,
      connectTimeout: 5_000,
    };
    expect(settings.mysql.password).toBe(readSecret(serviceEnv.MYSQL_PASSWORD_FILE!));
    const refused = await mysql.createConnection(plain).then(
      async (connection) => {
        await connection.end();
        return null;
      },
      (error: { code?: string; errno?: number; sqlState?: string }) => error,
    );
    expect(refused).toMatchObject({ code: 'ER_ACCESS_DENIED_ERROR', errno: 1045, sqlState: '28000' });

    const secured = await mysql.createConnection({ ...mysqlConnectionOptions(settings.mysql), connectTimeout: 5_000 });
    try {
      const [rows] = await secured.query(
        "SELECT VARIABLE_VALUE AS cipher FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'Ssl_cipher'",
      );
      expect((rows as Array<{ cipher: string }>)[0]!.cipher).not.toBe('');
    } finally {
      await secured.end();
    }
  });

  it('Redis: a plain connection is closed (no PONG), anonymous TLS gets NOAUTH; TLS with the service user answers PONG', async () => {
    const attempt = async (options: RedisOptions): Promise<string | Error> => {
      const redis = new Redis({
        lazyConnect: true,
        connectTimeout: 5_000,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
        enableReadyCheck: false,
        ...options,
      });
      redis.on('error', () => undefined);
      try {
        await redis.connect();
        return await redis.ping();
      } catch (error) {
        return error as Error;
      } finally {
        redis.disconnect();
      }
    };
    const address = { host: settings.redis.host, port: settings.redis.port };
    // Plain, even with the service user's right password: the TLS-only port closes the connection.
    const plain = await attempt({ ...address, username: serviceEnv.REDIS_USERNAME, password: readSecret(serviceEnv.REDIS_PASSWORD_FILE!) });
    expect(plain).toBeInstanceOf(Error);
    expect((plain as Error).message).toBe('Connection is closed.');
    const anonymous = await attempt({ ...address, tls: { ca: fs.readFileSync(serviceEnv.REDIS_TLS_CA_FILE!) } });
    expect(anonymous).toMatchObject({ name: 'ReplyError', message: 'NOAUTH Authentication required.' });
    expect(await attempt(redisOptions(settings.redis, 'secure-stack-test'))).toBe('PONG');
  });

  it('Elasticsearch: http:// is cut off, anonymous https answers 401; the service key reads the person index', async () => {
    const url = serviceEnv.ELASTICSEARCH_URL!;
    const attempt = async (options: ConstructorParameters<typeof ElasticsearchClient>[0]) => {
      const client = new ElasticsearchClient({ maxRetries: 0, requestTimeout: 5_000, ...options });
      try {
        return await client.indices.exists({ index: 'pessoas' });
      } catch (error) {
        return error as Error;
      } finally {
        await client.close();
      }
    };
    const plain = await attempt({ node: url.replace(/^https:/, 'http:') });
    expect(plain).toBeInstanceOf(esErrors.ConnectionError);
    expect((plain as Error).message).toMatch(/^other side closed/);
    const anonymous = await attempt({ node: url, tls: { ca: fs.readFileSync(serviceEnv.ELASTICSEARCH_CA_FILE!) } });
    expect(anonymous).toBeInstanceOf(esErrors.ResponseError);
    expect((anonymous as InstanceType<typeof esErrors.ResponseError>).statusCode).toBe(401);
    const service = createElasticsearch(settings.elasticsearch, 5_000);
    try {
      expect(await service.indices.exists({ index: 'pessoas' })).toBe(true);
    } finally {
      await service.close();
    }
  });

  it('Temporal: on each front plain gRPC never connects and TLS without a certificate or key is UNAUTHENTICATED; the right credentials connect', async () => {
    const ca = fs.readFileSync(portsEnv.SECURE_CA_FILE!);
    const tlsOnly = { serverRootCACertificate: ca, serverNameOverride: portsEnv.SECURE_SERVER_NAME! };
    const attempt = async (address: string, tls?: typeof tlsOnly): Promise<Error | null> => {
      try {
        const connection = await Connection.connect({ address, ...(tls ? { tls } : {}), connectTimeout: 3_000 });
        await connection.close();
        return null;
      } catch (error) {
        return error as Error;
      }
    };
    for (const address of [portsEnv.SECURE_TEMPORAL_MTLS_ADDRESS!, portsEnv.SECURE_TEMPORAL_APIKEY_ADDRESS!]) {
      const plain = await attempt(address);
      expect([address, plain?.message]).toEqual([address, 'Failed to connect before the deadline']);
      const withoutCredentials = await attempt(address, tlsOnly);
      expect([address, withoutCredentials?.message]).toEqual([address, 'Failed to connect to Temporal server']);
      expect((withoutCredentials as Error & { cause: { code: number; message: string } }).cause).toMatchObject({
        code: 16, // UNAUTHENTICATED
        message: '16 UNAUTHENTICATED: Received HTTP status code 401',
      });
    }
    // The same fronts with the service's settings: mTLS (service.env) and the API key (the ranking worker's).
    for (const env of [apiEnv, rankingEnv]) {
      const connection = await connectTemporal(loadConfig(env).temporal, { connectTimeout: 10_000 });
      try {
        const info = await connection.workflowService.describeNamespace({ namespace: NAMESPACE });
        expect(info.namespaceInfo?.name).toBe(NAMESPACE);
      } finally {
        await connection.close();
      }
    }
  });
});

describe('secrets', () => {
  it('appear in no output of any process: not a secret file, the Temporal API key, nor a line of a private key', async () => {
    const exits = await Promise.all(processes.map(async ({ name, process: service }) => [name, await stop(service)] as const));
    // SIGTERM is a graceful shutdown: each ends with 0 (the migrator had ended with 0 already).
    expect(exits).toEqual(processes.map(({ name }) => [name, 0]));

    const secrets: Array<{ name: string; value: string }> = [];
    const secretsDir = path.join(SECURE_DIR, 'secrets');
    for (const file of fs.readdirSync(secretsDir)) {
      const value = fs.readFileSync(path.join(secretsDir, file), 'utf8').trim();
      if (value !== '') secrets.push({ name: `secrets/${file}`, value });
    }
    expect(secrets.map((secret) => secret.name)).toEqual(
      expect.arrayContaining([
        'secrets/mysql-app.password',
        'secrets/redis-app.password',
        'secrets/elasticsearch-service.api-key',
        'secrets/temporal.api-key',
        'secrets/auth-token',
        'secrets/agent-secrets.key',
      ]),
    );
    const pki = path.join(SECURE_DIR, 'pki');
    for (const file of fs.readdirSync(pki).filter((name) => name.endsWith('.key'))) {
      const body = fs
        .readFileSync(path.join(pki, file), 'utf8')
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith('-----'));
      expect(body.length).toBeGreaterThan(10);
      body.forEach((line, index) => secrets.push({ name: `pki/${file} line ${index + 1}`, value: line }));
      secrets.push({ name: `pki/${file} (joined)`, value: body.join('') });
    }
    expect(secrets.map((secret) => secret.name)).toContain('pki/temporal-client.key (joined)');

    const outputs = processes.map(({ name, process: service }) => ({ name, text: service.output() }));
    // Each output is a real log (something to search in): the migrator's one line, the service's many.
    for (const { name, text } of outputs)
      expect([name, text.split('\n').filter((line) => line.startsWith('{"level"')).length > 0]).toEqual([name, true]);
    const leaks = outputs.flatMap(({ name, text }) =>
      secrets.filter((secret) => text.includes(secret.value)).map((secret) => `${name}: ${secret.name}`),
    );
    expect(leaks).toEqual([]);
  }, 120_000);
});
