import { createDatabase, type DatabaseHandle } from '../../db';
import {
  activeExecutions,
  appendOutputPiece,
  createExecution,
  finishExecution,
  getExecution,
  markExecutionRunning,
  OUTPUT_MAX_CHARS,
  OUTPUT_TRUNCATED_NOTE,
  type Execution,
  type ExecutionResult,
  type NewExecution,
} from '../../db/executions-store';
import { randomUUID } from 'node:crypto';
import { CSV_HEADER } from '../../api/orchestration/executions-csv';
import { config } from '../../lib/config';
import { httpCall, type JsonAnswer } from '../support/json-api';
import { startTestServer, type TestServer } from '../support/server';
import type { Config } from '../../lib/config';

let server: TestServer;
let database: DatabaseHandle;

const call = (method: string, path: string, on: TestServer = server): Promise<JsonAnswer> => httpCall(on.url + path, { method });

const AGENT_1 = '11111111-1111-4111-8111-111111111111';
const AGENT_2 = '22222222-2222-4222-8222-222222222222';
const PIPELINE = '33333333-3333-4333-8333-333333333333';
const TRICKY_TASK = 'Write the docs, then say "done"\nsecond line';

const base = (overrides: Partial<NewExecution>): NewExecution => ({
  kind: 'agent',
  agentId: AGENT_1,
  agentName: 'Code Reviewer',
  source: 'manual',
  task: 'a task',
  instructions: 'be brief',
  workingDirectory: '/home/projetos/work',
  model: 'sonnet',
  ...overrides,
});

/** Stores a record through the store as the workflow will: create, run, finish. */
async function record(input: NewExecution, outcome: ExecutionResult | 'running' | 'queued'): Promise<Execution> {
  const created = await createExecution(database.db, input);
  if (outcome === 'queued') return created;
  await markExecutionRunning(database.db, created.id, new Date(created.createdAt.getTime() + 1000));
  if (outcome === 'running') return (await getExecution(database.db, created.id))!;
  const finished = await finishExecution(database.db, created.id, {
    finishedAt: new Date(created.createdAt.getTime() + 61_000),
    ...outcome,
  });
  return finished!.execution;
}

const at = (iso: string) => new Date(iso);
let A: Execution, B: Execution, C: Execution, D: Execution, E: Execution, F: Execution, G: Execution;

beforeAll(async () => {
  database = createDatabase(config.mysql);
  await database.pool.query('DELETE FROM executions');
  A = await record(base({ clientId: 'browser-a', task: 'Review the parser', createdAt: at('2026-01-10T10:00:00.000Z') }), {
    status: 'completed',
    output: 'All good',
    result: 'The parser is fine.',
    exitCode: 0,
    sessionId: 'sess-a',
    costUsd: 0.0123,
    durationMs: 61_000,
    turns: 3,
    tokens: { input: 1500, output: 320, cacheRead: 40_000, cacheCreation: 2_100 },
  });
  B = await record(base({ source: 'schedule', scheduleId: 'sched-1', task: 'Nightly lint', createdAt: at('2026-01-11T09:00:00.000Z') }), {
    status: 'error',
    error: 'o agente falhou (código 1)',
    output: '',
    exitCode: 1,
  });
  C = await record(
    base({
      agentId: AGENT_2,
      agentName: 'Doc Writer',
      source: 'webhook',
      webhookId: 'hook-1',
      cli: 'gemini',
      task: TRICKY_TASK,
      createdAt: at('2026-01-12T23:59:59.999Z'),
    }),
    {
      status: 'canceled',
    },
  );
  D = await record(
    base({
      agentId: AGENT_2,
      agentName: 'Doc Writer',
      source: 'retry',
      parentExecutionId: 'x',
      task: 'Find needle_50% here',
      createdAt: at('2026-01-13T00:00:00.000Z'),
      repoName: 'loja',
      repoBranch: 'vitrine',
      contextFiles: [{ originalName: 'pauta.txt', path: '/srv/uploads/b/1-pauta.txt', size: 12 }],
    }),
    // Written before results were kept: its detail's result is the output.
    { status: 'completed', output: 'found it' },
  );
  E = await record(
    base({
      kind: 'pipeline',
      agentId: null,
      agentName: 'Release pipeline',
      pipelineId: PIPELINE,
      createdAt: at('2026-01-14T08:00:00.000Z'),
    }),
    {
      status: 'completed',
      output: 'step 1 ok',
    },
  );
  F = await record(
    base({ source: 'continue', sessionId: 'sess-a', parentSessionId: 'sess-a', createdAt: at('2026-01-15T08:00:00.000Z') }),
    'running',
  );
  G = await record(base({ agentId: AGENT_2, agentName: 'Doc Writer', createdAt: at('2026-01-16T08:00:00.000Z') }), 'queued');
  server = await startTestServer();
});

afterAll(async () => {
  await server?.close();
  await database?.pool.end();
});

const ids = (items: Array<{ id: string }>) => items.map((item) => item.id);

describe('the execution store', () => {
  it('creates idempotently, runs, finishes once, and keeps the first outcome', async () => {
    const id = 'aaaaaaaa-0000-4000-8000-000000000001';
    const first = await createExecution(database.db, base({ id, task: 'first' }));
    const again = await createExecution(database.db, base({ id, task: 'second' }));
    expect(again).toEqual(first);
    expect(first).toMatchObject({ status: 'queued', task: 'first', output: '', startedAt: null, finishedAt: null });

    expect(await markExecutionRunning(database.db, id, at('2026-02-01T00:00:01.000Z'))).toBe(true);
    expect(await appendOutputPiece(database.db, id, { text: 'hello ', fromSeq: 1, toSeq: 2 })).toBe(true);
    expect(await appendOutputPiece(database.db, id, { text: 'world', fromSeq: 3, toSeq: 3 })).toBe(true);
    expect(await getExecution(database.db, id)).toMatchObject({ output: 'hello world', outputSeq: 3 });
    // A piece sent again (its first answer lost) is not stored twice.
    expect(await appendOutputPiece(database.db, id, { text: 'world', fromSeq: 3, toSeq: 3 })).toBe(true);
    expect(await getExecution(database.db, id)).toMatchObject({ output: 'hello world', outputSeq: 3 });
    // A piece that does not follow the stored output is refused, changing nothing.
    await expect(appendOutputPiece(database.db, id, { text: '!', fromSeq: 5, toSeq: 5 })).rejects.toThrow(
      `execution ${id}: output piece 5-5 does not follow the stored chunk 3`,
    );
    expect(await getExecution(database.db, id)).toMatchObject({ output: 'hello world', outputSeq: 3 });

    const finished = await finishExecution(database.db, id, {
      status: 'completed',
      sessionId: 's-1',
      costUsd: 0.5,
      durationMs: 1200,
      turns: 2,
      result: 'the answer',
      exitCode: 0,
      finishedAt: at('2026-02-01T00:00:02.000Z'),
    });
    expect(finished?.changed).toBe(true);
    expect(finished?.execution).toMatchObject({
      status: 'completed',
      sessionId: 's-1',
      costUsd: 0.5,
      durationMs: 1200,
      turns: 2,
      output: 'hello world',
      result: 'the answer',
      exitCode: 0,
      error: null,
    });

    const twice = await finishExecution(database.db, id, { status: 'error', error: 'nova tentativa tardia', output: 'other' });
    expect(twice?.changed).toBe(false);
    expect(twice?.execution).toEqual(finished?.execution);
    expect(await appendOutputPiece(database.db, id, { text: 'too late', fromSeq: 4, toSeq: 4 })).toBe(false);
    expect(await markExecutionRunning(database.db, id)).toBe(false);
    expect(await finishExecution(database.db, 'no-such-id', { status: 'completed' })).toBeNull();
    await database.pool.query('DELETE FROM executions WHERE id = ?', [id]);
  });

  it('stops appending output at the cap, cuts the crossing chunk and notes it once', async () => {
    const id = 'aaaaaaaa-0000-4000-8000-000000000002';
    await createExecution(database.db, base({ id }));
    await markExecutionRunning(database.db, id);
    await appendOutputPiece(database.db, id, { text: 'x'.repeat(OUTPUT_MAX_CHARS - 3), fromSeq: 1, toSeq: 1 });
    await appendOutputPiece(database.db, id, { text: 'abcdef', fromSeq: 2, toSeq: 2 });
    await appendOutputPiece(database.db, id, { text: 'dropped', fromSeq: 3, toSeq: 3 });
    const stored = await getExecution(database.db, id);
    expect(stored?.outputTruncated).toBe(true);
    expect(stored?.output.length).toBe(OUTPUT_MAX_CHARS + OUTPUT_TRUNCATED_NOTE.length);
    expect(stored?.output.endsWith('xxxabc' + OUTPUT_TRUNCATED_NOTE)).toBe(true);

    const finished = await finishExecution(database.db, id, { status: 'completed', output: 'y'.repeat(OUTPUT_MAX_CHARS + 10) });
    expect(finished?.execution.output).toBe('y'.repeat(OUTPUT_MAX_CHARS) + OUTPUT_TRUNCATED_NOTE);
    await database.pool.query('DELETE FROM executions WHERE id = ?', [id]);
  });

  it('lists active executions (queued, running, retrying) oldest first', async () => {
    expect(ids(await activeExecutions(database.db))).toEqual([F.id, G.id]);
    const id = 'aaaaaaaa-0000-4000-8000-000000000003';
    await createExecution(database.db, base({ id, createdAt: at('2026-01-20T00:00:00.000Z') }));
    await database.pool.query("UPDATE executions SET status = 'retrying' WHERE id = ?", [id]);
    try {
      expect(ids(await activeExecutions(database.db))).toEqual([F.id, G.id, id]);
    } finally {
      await database.pool.query('DELETE FROM executions WHERE id = ?', [id]);
    }
  });
});

/** The view of a stored record as every list answers it (contract 3.8): ISO times, numbers, the panel's names. */
function viewOf(record: Execution): Record<string, unknown> {
  const pipeline = record.kind === 'pipeline';
  return {
    id: record.id,
    executionId: record.id,
    type: record.kind,
    agentId: record.agentId,
    agentName: pipeline ? null : record.agentName,
    pipelineId: record.pipelineId,
    pipelineName: pipeline ? record.agentName : null,
    task: record.task,
    input: pipeline ? record.task : null,
    instructions: record.instructions,
    status: record.status,
    source: record.source,
    scheduleId: record.scheduleId,
    webhookId: record.webhookId,
    workingDirectory: record.workingDirectory,
    model: record.model,
    // The CLI the run used (issue 42): Claude Code unless the record names another; none for a pipeline run.
    cli: pipeline ? null : record.id === C.id ? 'gemini' : 'claude-code',
    startedAt: (record.startedAt ?? record.createdAt).toISOString(),
    endedAt: record.finishedAt?.toISOString() ?? null,
    createdAt: record.createdAt.toISOString(),
    costUsd: record.costUsd,
    totalCostUsd: record.costUsd,
    durationMs: record.durationMs,
    numTurns: record.turns,
    sessionId: record.sessionId,
    parentSessionId: record.parentSessionId,
    parentExecutionId: record.parentExecutionId,
    result: record.result,
    error: record.error,
    exitCode: record.exitCode,
    attempt: record.attempt,
    delegatedFrom: record.delegatedFrom,
    reportFile: record.reportFile,
    failedAtStep: record.failedAtStep,
    resumedFrom: record.resumedFrom,
    resumedAtStep: record.resumedAtStep,
    inputTokens: record.inputTokens,
    outputTokens: record.outputTokens,
    cacheReadTokens: record.cacheReadTokens,
    cacheCreationTokens: record.cacheCreationTokens,
    repoName: record.repoName,
    repoBranch: record.repoBranch,
    repoCommit: record.repoCommit,
    contextFiles: record.contextFiles ?? [],
    host: record.host,
  };
}

describe('GET /api/executions/recent', () => {
  it('answers a bare array of views, newest first, 20 by default, without output', async () => {
    const all = await call('GET', '/api/executions/recent');
    expect(all.status).toBe(200);
    expect(Array.isArray(all.body)).toBe(true);
    expect(ids(all.body)).toEqual([G.id, F.id, E.id, D.id, C.id, B.id, A.id]);
    expect(all.body).toEqual([G, F, E, D, C, B, A].map(viewOf));
    // The values the dashboard reads, spelled out for one record.
    expect(all.body[6]).toMatchObject({
      status: 'completed',
      agentName: 'Code Reviewer',
      task: 'Review the parser',
      type: 'agent',
      startedAt: '2026-01-10T10:00:01.000Z',
      costUsd: 0.0123,
      totalCostUsd: 0.0123,
      result: 'The parser is fine.',
      inputTokens: 1500,
      outputTokens: 320,
      cacheReadTokens: 40_000,
      cacheCreationTokens: 2_100,
    });
    // A record whose CLI reported no usage answers null tokens.
    expect(all.body[5]).toMatchObject({ inputTokens: null, outputTokens: null, cacheReadTokens: null, cacheCreationTokens: null });
    expect(all.body[2]).toMatchObject({ type: 'pipeline', pipelineName: 'Release pipeline', agentName: null, input: 'a task' });
    // A queued record has not started: its startedAt is when it was queued.
    expect(all.body[0]).toMatchObject({ status: 'queued', startedAt: '2026-01-16T08:00:00.000Z', endedAt: null });
    for (const item of all.body) for (const hidden of ['output', 'clientId', 'waitingHeartbeatAt']) expect(hidden in item).toBe(false);

    const three = await call('GET', '/api/executions/recent?limit=3');
    expect(ids(three.body)).toEqual([G.id, F.id, E.id]);
  });

  it.each(['0', '101', 'ten', '2.5'])('refuses limit=%s with 400', async (limit) => {
    const answer = await call('GET', `/api/executions/recent?limit=${limit}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(/^query\.limit: /);
  });
});

describe('GET /api/executions/history', () => {
  const history = (query: string) => call('GET', `/api/executions/history${query}`);

  it('answers {items, total, limit, offset}, newest first, pages by limit and offset', async () => {
    const first = await history('');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ items: [G, F, E, D, C, B, A].map(viewOf), total: 7, limit: 20, offset: 0 });
    expect(first.body.items[4]).toMatchObject({ id: C.id, source: 'webhook', webhookId: 'hook-1' });
    expect(first.body.items[3]).toMatchObject({
      id: D.id,
      repoName: 'loja',
      repoBranch: 'vitrine',
      repoCommit: null,
      contextFiles: [{ originalName: 'pauta.txt', path: '/srv/uploads/b/1-pauta.txt', size: 12 }],
    });
    // What the panel sends for its first page.
    const panel = await history('?limit=20&offset=0');
    expect({ ...panel.body, items: ids(panel.body.items) }).toEqual({
      items: [G.id, F.id, E.id, D.id, C.id, B.id, A.id],
      total: 7,
      limit: 20,
      offset: 0,
    });
    const last = await history('?limit=3&offset=6');
    expect({ ...last.body, items: ids(last.body.items) }).toEqual({ items: [A.id], total: 7, limit: 3, offset: 6 });
    const middle = await history('?limit=2&offset=2');
    expect(ids(middle.body.items)).toEqual([E.id, D.id]);
    const beyond = await history('?limit=3&offset=7');
    expect({ ...beyond.body, items: ids(beyond.body.items) }).toEqual({ items: [], total: 7, limit: 3, offset: 7 });
  });

  it.each([
    ['?type=agent', () => [G.id, F.id, D.id, C.id, B.id, A.id]],
    ['?type=pipeline', () => [E.id]],
    ['?status=completed', () => [E.id, D.id, A.id]],
    ['?status=error', () => [B.id]],
    ['?status=canceled', () => [C.id]],
    // The panel's "Em execução": every run not ended (F running, G queued), not only the running ones.
    ['?status=running', () => [G.id, F.id]],
    ['?status=retrying', () => []],
    ['?status=error,canceled', () => [C.id, B.id]],
    ['?status=queued,running', () => [G.id, F.id]],
    ['?search=parser', () => [A.id]],
    ['?search=DOC%20writer', () => [G.id, D.id, C.id]],
    ['?search=release', () => [E.id]],
    ['?search=needle_50%25', () => [D.id]],
    ['?search=needle_5%25', () => []],
    ['?search=%22done%22', () => [C.id]],
    // Neither the instructions, the output nor the error are searched: the name and the task are.
    ['?search=be%20brief', () => []],
    ['?search=found%20it', () => []],
    ['?search=exited%20with', () => []],
    [`?agentId=${AGENT_1}`, () => [F.id, B.id, A.id]],
    [`?pipelineId=${PIPELINE}`, () => [E.id]],
    ['?source=schedule', () => [B.id]],
    ['?source=webhook,retry', () => [D.id, C.id]],
    ['?from=2026-01-13', () => [G.id, F.id, E.id, D.id]],
    ['?from=2026-01-12T23:59:59.999Z', () => [G.id, F.id, E.id, D.id, C.id]],
    ['?to=2026-01-12', () => [C.id, B.id, A.id]],
    ['?to=2026-01-12T23:59:59.998Z', () => [B.id, A.id]],
    ['?from=2026-01-11&to=2026-01-13', () => [D.id, C.id, B.id]],
    ['?from=2026-01-12T20:59:59.999-03:00&to=2026-01-12T23:59:59.999Z', () => [C.id]],
    ['?limit=20&offset=0&type=agent&status=completed&search=review', () => [A.id]],
    [`?type=agent&agentId=${AGENT_2}&status=completed&from=2026-01-13`, () => [D.id]],
    [`?agentId=${AGENT_2}&source=manual&search=doc`, () => [G.id]],
    ['?type=&status=&search=&agentId=', () => [G.id, F.id, E.id, D.id, C.id, B.id, A.id]],
  ])('filters %s', async (query, expected) => {
    const answer = await history(query);
    expect(answer.status).toBe(200);
    expect(ids(answer.body.items)).toEqual(expected());
    expect(answer.body.total).toBe(expected().length);
  });

  it.each([
    ['?limit=0', /^query\.limit: /],
    ['?limit=101', /^query\.limit: /],
    ['?limit=abc', /^query\.limit: Deve ser um número inteiro$/],
    ['?offset=-1', /^query\.offset: /],
    ['?offset=100001', /^query\.offset: /],
    ['?type=task', /^query\.type: /],
    ['?status=done', /^query\.status/],
    ['?status=failed', /^query\.status/],
    ['?source=cron', /^query\.source/],
    ['?from=yesterday', /^query\.from: /],
    ['?to=2026-02-30', /^query\.to: Não é uma data válida$/],
    ['?from=2026-01-13&to=2026-01-12', /^query\.from: `from` não pode ser posterior a `to`$/],
    ['?status=error&status=completed', /^query\.status: /],
    ['?page=2', /^query: Chave inválida: "page"$/],
    ['?q=parser', /^query: Chave inválida: "q"$/],
    [`?search=${'x'.repeat(201)}`, /^query\.search: /],
  ])('refuses %s with 400', async (query, message) => {
    const answer = await history(query);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(message);
  });
});

describe('GET /api/executions/active', () => {
  it('answers the queued, running and retrying records oldest first, with the agent name in agentConfig and a startedAt', async () => {
    // A pipeline running (its step is its process) and one waiting for an approval: neither is an agent
    // process of its own (contract 3.8), so neither is listed.
    const pipelineRun = (id: string) =>
      base({
        id,
        kind: 'pipeline',
        agentId: null,
        agentName: 'Revisão',
        pipelineId: 'p-active',
        createdAt: at('2026-01-15T09:00:00.000Z'),
      });
    await record(pipelineRun(randomUUID()), 'running');
    const waiting = await record(pipelineRun(randomUUID()), 'running');
    await database.pool.query("UPDATE executions SET status = 'awaiting_approval' WHERE id = ?", [waiting.id]);
    const answer = await call('GET', '/api/executions/active');
    await database.pool.query("DELETE FROM executions WHERE pipeline_id = 'p-active'");
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([
      { ...viewOf(F), agentConfig: { agent_name: 'Code Reviewer', model: 'sonnet' } },
      { ...viewOf(G), agentConfig: { agent_name: 'Doc Writer', model: 'sonnet' } },
    ]);
    expect(answer.body.map((item: any) => [item.executionId, item.id, item.agentId, item.agentName, item.status, item.startedAt])).toEqual([
      [F.id, F.id, AGENT_1, 'Code Reviewer', 'running', '2026-01-15T08:00:01.000Z'],
      [G.id, G.id, AGENT_2, 'Doc Writer', 'queued', '2026-01-16T08:00:00.000Z'],
    ]);
  });
});

describe('GET and DELETE /api/executions/history/{id}', () => {
  it('answers the view with its output; 404 {error} for an unknown id', async () => {
    const detail = await call('GET', `/api/executions/history/${A.id}`);
    expect(detail.status).toBe(200);
    expect((await getExecution(database.db, A.id))?.clientId).toBe('browser-a');
    expect(detail.body).toEqual({
      id: A.id,
      executionId: A.id,
      type: 'agent',
      agentId: AGENT_1,
      agentName: 'Code Reviewer',
      pipelineId: null,
      pipelineName: null,
      task: 'Review the parser',
      input: null,
      instructions: 'be brief',
      status: 'completed',
      source: 'manual',
      scheduleId: null,
      webhookId: null,
      workingDirectory: '/home/projetos/work',
      model: 'sonnet',
      cli: 'claude-code',
      startedAt: '2026-01-10T10:00:01.000Z',
      endedAt: '2026-01-10T10:01:01.000Z',
      createdAt: '2026-01-10T10:00:00.000Z',
      costUsd: 0.0123,
      totalCostUsd: 0.0123,
      durationMs: 61_000,
      numTurns: 3,
      sessionId: 'sess-a',
      parentSessionId: null,
      parentExecutionId: null,
      result: 'The parser is fine.',
      error: null,
      exitCode: 0,
      attempt: 1,
      delegatedFrom: null,
      reportFile: null,
      failedAtStep: null,
      resumedFrom: null,
      resumedAtStep: null,
      inputTokens: 1500,
      outputTokens: 320,
      cacheReadTokens: 40_000,
      cacheCreationTokens: 2_100,
      repoName: null,
      repoBranch: null,
      repoCommit: null,
      contextFiles: [],
      host: null,
      output: 'All good',
      outputTruncated: false,
      outputSeq: 0,
      // Run once: its one attempt is the record itself (docs/executions.md, "Attempts").
      attempts: [
        {
          attempt: 1,
          status: 'completed',
          error: null,
          costUsd: 0.0123,
          startedAt: '2026-01-10T10:00:01.000Z',
          endedAt: '2026-01-10T10:01:01.000Z',
        },
      ],
    });
    const failed = await call('GET', `/api/executions/history/${B.id}`);
    expect(failed.body).toMatchObject({
      status: 'error',
      error: 'o agente falhou (código 1)',
      exitCode: 1,
      result: null,
      costUsd: null,
      numTurns: null,
    });
    const continued = await call('GET', `/api/executions/history/${F.id}`);
    expect(continued.body).toMatchObject({ source: 'continue', parentSessionId: 'sess-a', status: 'running', endedAt: null });
    const missing = await call('GET', '/api/executions/history/no-such-id');
    expect(missing).toMatchObject({ status: 404, body: { error: 'Execução não encontrada: no-such-id' } });
  });

  it('answers the stored output as the result of a record written before results were kept', async () => {
    const detail = await call('GET', `/api/executions/history/${D.id}`);
    expect(detail.body).toMatchObject({ result: 'found it', output: 'found it', exitCode: null });
    // Lists carry the stored result only (no output is read for them).
    const [item] = (await call('GET', '/api/executions/history?search=needle')).body.items;
    expect(item).toMatchObject({ id: D.id, result: null });
  });

  it('refuses to delete an active record (409, kept), deletes a finished one (204), then 404', async () => {
    const running = await call('DELETE', `/api/executions/history/${F.id}`);
    expect(running).toMatchObject({ status: 409, body: { error: `A execução ${F.id} ainda está ativa: cancele-a antes` } });
    expect((await getExecution(database.db, F.id))?.status).toBe('running');
    const queued = await call('DELETE', `/api/executions/history/${G.id}`);
    expect(queued.status).toBe(409);

    const deleted = await call('DELETE', `/api/executions/history/${B.id}`);
    expect(deleted).toMatchObject({ status: 204, text: '' });
    expect(await getExecution(database.db, B.id)).toBeNull();
    expect(await call('DELETE', `/api/executions/history/${B.id}`)).toMatchObject({
      status: 404,
      body: { error: `Execução não encontrada: ${B.id}` },
    });
    B = await record(base({ id: B.id, source: 'schedule', scheduleId: 'sched-1', task: 'Nightly lint', createdAt: B.createdAt }), {
      status: 'error',
      error: 'o agente falhou (código 1)',
      output: '',
      exitCode: 1,
    });
  });
});

/** RFC 4180 as csv-stringify writes it: quoted cells may hold commas, doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(cell);
      cell = '';
    } else if (char === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += char;
  }
  return rows;
}

const BOM = '\uFEFF';
const HEADER_LINE = 'ID,Tipo,Nome,Status,Início,Fim,Duração (ms),Custo (USD),Turnos';
/** The export's rows without the BOM and the header. */
const csvRows = (text: string) => parseCsv(text.slice(BOM.length)).slice(1);

describe('GET /api/executions/export', () => {
  it('answers a UTF-8 CSV attachment: BOM, the contract header, every value quoted', async () => {
    const answer = await call('GET', '/api/executions/export');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(answer.headers.get('content-disposition')).toBe(`attachment; filename=execucoes_${new Date().toISOString().slice(0, 10)}.csv`);
    expect(CSV_HEADER.join(',')).toBe(HEADER_LINE);

    const lines = answer.text.split('\n');
    expect(lines[0]).toBe(BOM + HEADER_LINE);
    expect(lines).toContain(
      `"${A.id}","agent","Code Reviewer","completed","2026-01-10T10:00:01.000Z","2026-01-10T10:01:01.000Z","61000","0.0123","3"`,
    );
    expect(lines).toContain(`"${B.id}","agent","Code Reviewer","error","2026-01-11T09:00:01.000Z","2026-01-11T09:01:01.000Z","","",""`);
    expect(lines).toContain(
      `"${E.id}","pipeline","Release pipeline","completed","2026-01-14T08:00:01.000Z","2026-01-14T08:01:01.000Z","","",""`,
    );
    expect(lines).toContain(`"${G.id}","agent","Doc Writer","queued","2026-01-16T08:00:00.000Z","","","",""`);
    expect(lines.at(-1)).toBe('');
    expect(csvRows(answer.text).map((row) => row[0])).toEqual([G.id, F.id, E.id, D.id, C.id, B.id, A.id]);
    expect(csvRows(answer.text).every((row) => row.length === CSV_HEADER.length)).toBe(true);
  });

  it('applies the history filters; refuses bad and unknown ones with 400', async () => {
    const failed = await call('GET', '/api/executions/export?status=error,canceled&to=2026-01-12');
    expect(csvRows(failed.text).map((row) => row[0])).toEqual([C.id, B.id]);
    expect(csvRows((await call('GET', '/api/executions/export?type=pipeline')).text).map((row) => row[0])).toEqual([E.id]);
    expect(csvRows((await call('GET', '/api/executions/export?search=parser')).text).map((row) => row[0])).toEqual([A.id]);
    const none = await call('GET', '/api/executions/export?source=webhook&status=completed');
    expect(none.text).toBe(`${BOM}${HEADER_LINE}\n`);
    const bad = await call('GET', '/api/executions/export?limit=2');
    expect(bad).toMatchObject({ status: 400, body: { error: 'query: Chave inválida: "limit"' } });
    expect((await call('GET', '/api/executions/export?status=failed')).status).toBe(400);
  });

  it('pages through the table by keyset: a larger export keeps every row once, in order', async () => {
    const created: string[] = [];
    for (let i = 0; i < 1203; i++) created.push(`bbbbbbbb-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const values = created.map((id) => [
      id,
      'agent',
      AGENT_1,
      'Bulk',
      'completed',
      'manual',
      't',
      'i',
      '/w',
      'm',
      '2025-06-01 00:00:00.000',
    ]);
    await database.pool.query(
      'INSERT INTO executions (id, kind, agent_id, agent_name, status, source, task, instructions, working_directory, model, created_at) VALUES ?',
      [values],
    );
    try {
      const answer = await call('GET', '/api/executions/export?to=2025-06-01');
      expect(csvRows(answer.text).map((row) => row[0])).toEqual([...created].reverse());
    } finally {
      await database.pool.query("DELETE FROM executions WHERE agent_name = 'Bulk'");
    }
  });

  it('quotes names with commas, quotes and line breaks, and neutralises spreadsheet formulas (=, +, -, @) with a leading quote', async () => {
    const agentId = '44444444-4444-4444-8444-444444444444';
    const names = ['=HYPERLINK("http://evil.example","x")', '+1+cmd|calc', '-2+3', '@SUM(A1:A9)', 'Say "hi", then\nleave'];
    const stored = [];
    for (const [i, agentName] of names.entries()) {
      stored.push(
        await record(base({ agentId, agentName, createdAt: at(`2026-03-0${i + 1}T10:00:00.000Z`) }), {
          status: 'error',
          error: '-1 exit code',
          costUsd: 0.5,
          durationMs: 61_000,
          turns: 2,
        }),
      );
    }
    try {
      const answer = await call('GET', `/api/executions/export?agentId=${agentId}`);
      expect(answer.text).toContain(`,"Say ""hi"", then\nleave","error",`);
      expect(answer.text).toContain(`,"'=HYPERLINK(""http://evil.example"",""x"")","error",`);
      const rows = csvRows(answer.text);
      // Newest first.
      expect(rows.map((row) => row[2])).toEqual([
        'Say "hi", then\nleave',
        "'@SUM(A1:A9)",
        "'-2+3",
        "'+1+cmd|calc",
        `'=HYPERLINK("http://evil.example","x")`,
      ]);
      expect(rows.map((row) => row.slice(6))).toEqual(Array(5).fill(['61000', '0.5', '2']));
      expect(rows.map((row) => row[0])).toEqual(stored.map((item) => item.id).reverse());
    } finally {
      await database.pool.query('DELETE FROM executions WHERE agent_id = ?', [agentId]);
    }
  });
});

describe('the rate limit and the panel polling /executions/active', () => {
  const budget = 20;
  let limited: TestServer;

  beforeAll(async () => {
    // A budget of its own (fresh Redis keys), small enough to spend in the test.
    limited = await startTestServer((base: Config) => ({
      ...base,
      redis: { ...base.redis, keyPrefix: `${base.redis.keyPrefix}active-poll-${randomUUID()}:` },
      orchestration: { ...base.orchestration, rateLimit: { requests: budget, windowSeconds: 60 } },
    }));
  });

  afterAll(() => limited?.close());

  it('never answers 429 to 600 GET /executions/active in a minute from one address, while the budget still bounds other calls', async () => {
    const statuses = new Map<number, number>();
    // Two tabs of a busy run: one read per output message each, 300 messages.
    for (let round = 0; round < 300; round++) {
      const pair = await Promise.all([call('GET', '/api/executions/active', limited), call('GET', '/api/executions/active', limited)]);
      for (const answer of pair) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 200: 600 });

    // The same address's other calls still spend the budget: all of it is left, and no more.
    const others: number[] = [];
    for (let i = 0; i <= budget; i++) others.push((await call('GET', '/api/executions/recent?limit=1', limited)).status);
    expect(others).toEqual([...Array(budget).fill(200), 429]);
    const refused = await call('GET', '/api/executions/history', limited);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatch(/^Muitas requisições: no máximo 20 a cada 60 s por cliente; tente novamente em \d+ s$/);
    // A write to the same path is not a read: it is counted (and refused here).
    expect((await call('POST', '/api/executions/active', limited)).status).toBe(429);
    expect((await call('GET', '/api/executions/active', limited)).status).toBe(200);
  }, 120_000);
});

describe('DELETE /api/executions/history', () => {
  it('clears every finished record and keeps the active ones', async () => {
    const answer = await call('DELETE', '/api/executions/history');
    expect(answer).toMatchObject({ status: 204, text: '' });
    const left = await call('GET', '/api/executions/history');
    expect(ids(left.body.items)).toEqual([G.id, F.id]);
    expect(left.body.total).toBe(2);
  });
});
