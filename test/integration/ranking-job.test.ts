import { rankingJobStartOptions } from '../../temporal/ranking-job';
import { createDatabase, type DatabaseHandle } from '../../db';
import { config } from '../../lib/config';
import { createElasticsearch } from '../../lib/elasticsearch';
import { logger } from '../../lib/logger';
import { RANKING_JOB_WORKFLOW_ID } from '../../temporal/contracts/ranking-job';
import { RANKING_SCHEDULE_ID } from '../../temporal/ranking-schedule';
import type { QueueWorker } from '../../workers/queue-worker';
import { startRankingWorker } from '../../workers/ranking';
import type { RankingJobWorkflow } from '../../temporal/contracts/ranking-job';
import {
  emptyRanking,
  expectedRanking,
  personIndex,
  runReferenceDate,
  seedPersonIndex,
  storedPositions,
  withTemporalClient,
} from '../support/ranking';
import { unusedPort } from '../support/ports';
import { httpCall } from '../support/json-api';
import { startTestServer, type TestServer } from '../support/server';

const SEED = 11;
const PERSONS = 5_000;
const ids = Array.from({ length: PERSONS }, (_, i) => i + 1);

let worker: QueueWorker;
let server: TestServer;
let database: DatabaseHandle;

beforeAll(async () => {
  await seedPersonIndex(PERSONS, SEED);
  database = createDatabase(config.mysql);
  await emptyRanking(database.pool);
  worker = await startRankingWorker(config, logger);
  server = await startTestServer();
});

afterAll(async () => {
  await worker?.stop();
  await server?.close();
  await database?.pool.end();
});

const api = (path: string, init?: RequestInit) => httpCall(server.url + path, init);

const post = (path: string, body?: unknown) =>
  api(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

async function waitForFinishedStatus(): Promise<{ statuses: any[]; final: any }> {
  const statuses: any[] = [];
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const { body } = await api('/api/v1/ranking/status');
    statuses.push(body);
    if (!body.em_execucao && body.estado !== 'nunca_executado') return { statuses, final: body };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the ranking job did not finish: ${JSON.stringify(statuses.at(-1))}`);
}

describe('the ranking job', () => {
  it('reports never run, and the reads answer 503, before any run', async () => {
    const status = await api('/api/v1/ranking/status');
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      job_id: 'ranking_job',
      em_execucao: false,
      estado: 'nunca_executado',
      processados: 0,
      total: 0,
      percentual: 0,
      ultima_execucao_sucesso: null,
      fonte: 'mysql',
    });
    const detail = 'O ranking ainda não foi processado. Chame POST /api/v1/ranking/processar para processá-lo.';
    for (const path of ['/api/v1/ranking/paginado', '/api/v1/ranking', '/api/v1/ranking/estatisticas', '/api/v1/ranking/posicao/1']) {
      expect(await api(path)).toEqual({ status: 503, body: { detail } });
    }
  });

  it('rejects a bad body with 422 and starts nothing', async () => {
    expect(await post('/api/v1/ranking/processar', { limpar_antes: 'sim' })).toEqual({
      status: 422,
      body: { detail: 'body.limpar_antes: Entrada inválida: esperava um valor booleano, recebeu um texto' },
    });
    expect((await post('/api/v1/ranking/processar', [true])).status).toBe(422);
    expect((await api('/api/v1/ranking/status')).body).toMatchObject({ em_execucao: false, estado: 'nunca_executado' });
  });

  it('starts on POST /ranking/processar, refuses a second start with 409, and stores every person once in order', async () => {
    const started = await post('/api/v1/ranking/processar', { limpar_antes: true });
    expect(started).toEqual({
      status: 200,
      body: {
        sucesso: true,
        mensagem: 'Processamento do ranking iniciado em segundo plano; o ranking armazenado será limpo antes',
        job_id: 'ranking_job',
      },
    });
    expect(await post('/api/v1/ranking/processar')).toEqual({
      status: 409,
      body: { detail: 'Já existe um processamento do ranking em andamento' },
    });

    const { statuses, final } = await waitForFinishedStatus();
    // Live statuses come from the workflow query; the total is known once the index is counted.
    const live = statuses.filter((status) => status.fonte === 'temporal');
    expect(live.length).toBeGreaterThan(0);
    for (const status of live) {
      expect(status).toMatchObject({ em_execucao: true, estado: 'em_execucao', origem: 'manual', limpar_antes: true });
      expect([0, PERSONS]).toContain(status.total);
      expect(status.processados).toBeLessThanOrEqual(status.total);
    }
    const processed = live.map((status) => status.processados);
    expect(processed).toEqual([...processed].sort((a, b) => a - b));
    expect(final).toMatchObject({
      em_execucao: false,
      estado: 'concluido',
      fase: 'concluido',
      origem: 'manual',
      limpar_antes: true,
      processados: PERSONS,
      total: PERSONS,
      percentual: 100,
      ultimo_erro: null,
      fonte: 'mysql',
    });
    expect(final.ultima_execucao_sucesso).toBe(final.finalizado_em);

    const positions = await storedPositions(database.pool);
    expect(positions).toHaveLength(PERSONS);
    expect(positions.map((row) => row.posicao)).toEqual(ids);
    const expected = expectedRanking(SEED, ids, runReferenceDate());
    expect(positions.map((row) => row.id_pessoa)).toEqual(expected.map((person) => person.id_pessoa));
  });

  it('continues as new in small executions and drops persons that left the index', async () => {
    const es = createElasticsearch(config.elasticsearch);
    const removed = [3, 1500, 4999];
    try {
      for (const id of removed) await es.delete({ index: personIndex, id: String(id), refresh: true });
    } finally {
      await es.close();
    }

    const { firstRunId, lastRunId, result } = await withTemporalClient(async (client) => {
      const handle = await client.workflow.start<RankingJobWorkflow>(
        'rankingJobWorkflow',
        rankingJobStartOptions({ batchSize: 400, batchesPerExecution: 3, maxChildrenInFlight: 2 }),
      );
      const output = await handle.result();
      const description = await client.workflow.getHandle(RANKING_JOB_WORKFLOW_ID).describe();
      return { firstRunId: handle.firstExecutionRunId, lastRunId: description.runId, result: output };
    });

    // 4 997 documents in batches of 400 = 13 batches; 3 per execution = 5 executions.
    expect(lastRunId).not.toBe(firstRunId);
    expect(result).toEqual({ runId: firstRunId, processados: PERSONS - removed.length, total: PERSONS - removed.length });
    const positions = await storedPositions(database.pool);
    expect(positions).toHaveLength(PERSONS - removed.length);
    expect(positions.map((row) => row.posicao)).toEqual(ids.slice(0, PERSONS - removed.length));
    const remaining = ids.filter((id) => !removed.includes(id));
    expect(positions.map((row) => row.id_pessoa)).toEqual(expectedRanking(SEED, remaining, runReferenceDate()).map((p) => p.id_pessoa));
  });

  it('answers 503 to a start and reports from MySQL when Temporal cannot be reached', async () => {
    const port = await unusedPort();
    const cut = await startTestServer((c) => ({ ...c, temporal: { ...c.temporal, address: `127.0.0.1:${port}` } }));
    try {
      const start = await fetch(`${cut.url}/api/v1/ranking/processar`, { method: 'POST' });
      expect(start.status).toBe(503);
      expect(((await start.json()) as { detail: string }).detail).toMatch(/^Serviço de workflows \(Temporal\) indisponível: /);
      const status = await fetch(`${cut.url}/api/v1/ranking/status`);
      expect(status.status).toBe(200);
      expect(await status.json()).toMatchObject({ em_execucao: false, estado: 'concluido', fonte: 'mysql' });
    } finally {
      await cut.close();
    }
  });

  it('keeps a daily 03:00 schedule in the configured time zone', async () => {
    const description = await withTemporalClient((client) => client.schedule.getHandle(RANKING_SCHEDULE_ID).describe());
    expect(description.spec.timezone).toBe('America/Sao_Paulo');
    expect(description.spec.calendars).toEqual([
      expect.objectContaining({ hour: [{ start: 3, end: 3, step: 1 }], minute: [{ start: 0, end: 0, step: 1 }] }),
    ]);
    expect(description.action).toMatchObject({ type: 'startWorkflow', workflowType: 'scheduledRankingWorkflow', taskQueue: 'ranking' });
    expect(description.policies.overlap).toBe('SKIP');
  });
});
