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
import { CSV_COLUMNS } from '../../api/orchestration/executions-csv';
import { config } from '../../lib/config';
import { startTestServer, type TestServer } from '../support/server';

let server: TestServer;
let database: DatabaseHandle;

interface Answer {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

async function call(method: string, path: string): Promise<Answer> {
  const response = await fetch(server.url + path, { method });
  const text = await response.text();
  const json = (response.headers.get('content-type') ?? '').includes('json');
  return { status: response.status, body: json && text ? JSON.parse(text) : null, text, headers: response.headers };
}

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
  const finished = await finishExecution(database.db, created.id, { finishedAt: new Date(created.createdAt.getTime() + 61_000), ...outcome });
  return finished!.execution;
}

const at = (iso: string) => new Date(iso);
let A: Execution, B: Execution, C: Execution, D: Execution, E: Execution, F: Execution, G: Execution;

beforeAll(async () => {
  database = createDatabase(config.mysql);
  await database.pool.query('DELETE FROM executions');
  A = await record(base({ clientId: 'browser-a', task: 'Review the parser', createdAt: at('2026-01-10T10:00:00.000Z') }), {
    status: 'completed', output: 'All good', sessionId: 'sess-a', costUsd: 0.0123, durationMs: 61_000, turns: 3,
  });
  B = await record(base({ source: 'schedule', scheduleId: 'sched-1', task: 'Nightly lint', createdAt: at('2026-01-11T09:00:00.000Z') }), {
    status: 'error', error: 'agent exited with code 1', output: '',
  });
  C = await record(base({ agentId: AGENT_2, agentName: 'Doc Writer', source: 'webhook', task: TRICKY_TASK, createdAt: at('2026-01-12T23:59:59.999Z') }), {
    status: 'canceled',
  });
  D = await record(
    base({ agentId: AGENT_2, agentName: 'Doc Writer', source: 'retry', parentExecutionId: 'x', createdAt: at('2026-01-13T00:00:00.000Z') }),
    { status: 'completed', output: 'found needle_50% here' },
  );
  E = await record(base({ kind: 'pipeline', agentId: null, agentName: 'Release pipeline', pipelineId: PIPELINE, createdAt: at('2026-01-14T08:00:00.000Z') }), {
    status: 'completed', output: 'step 1 ok',
  });
  F = await record(base({ source: 'continue', sessionId: 'sess-a', createdAt: at('2026-01-15T08:00:00.000Z') }), 'running');
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

    const finished = await finishExecution(database.db, id, { status: 'completed', sessionId: 's-1', costUsd: 0.5, durationMs: 1200, turns: 2, finishedAt: at('2026-02-01T00:00:02.000Z') });
    expect(finished?.changed).toBe(true);
    expect(finished?.execution).toMatchObject({ status: 'completed', sessionId: 's-1', costUsd: 0.5, durationMs: 1200, turns: 2, output: 'hello world', error: null });

    const twice = await finishExecution(database.db, id, { status: 'error', error: 'late retry', output: 'other' });
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

  it('lists active executions oldest first', async () => {
    expect(ids(await activeExecutions(database.db))).toEqual([F.id, G.id]);
  });
});

describe('GET /api/executions/recent', () => {
  it('answers the newest first, 20 by default, without output', async () => {
    const all = await call('GET', '/api/executions/recent');
    expect(all.status).toBe(200);
    expect(ids(all.body)).toEqual([G.id, F.id, E.id, D.id, C.id, B.id, A.id]);
    expect(all.body[6]).toEqual({
      ...JSON.parse(JSON.stringify(A)),
      output: undefined,
      clientId: undefined,
      waitingHeartbeatAt: undefined,
    });
    expect('output' in all.body[6]).toBe(false);
    expect('clientId' in all.body[6]).toBe(false);
    expect('waitingHeartbeatAt' in all.body[6]).toBe(false);

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

  it('pages newest first with total and totalPages', async () => {
    const first = await history('');
    expect(first.status).toBe(200);
    expect({ ...first.body, items: ids(first.body.items) }).toEqual({
      items: [G.id, F.id, E.id, D.id, C.id, B.id, A.id],
      total: 7,
      page: 1,
      pageSize: 20,
      totalPages: 1,
    });
    const last = await history('?page=3&pageSize=3');
    expect({ ...last.body, items: ids(last.body.items) }).toEqual({ items: [A.id], total: 7, page: 3, pageSize: 3, totalPages: 3 });
    const beyond = await history('?page=4&pageSize=3');
    expect({ ...beyond.body, items: ids(beyond.body.items) }).toEqual({ items: [], total: 7, page: 4, pageSize: 3, totalPages: 3 });
    const edge = await history('?page=2&pageSize=100');
    expect(edge.body).toMatchObject({ items: [], total: 7, pageSize: 100, totalPages: 1 });
  });

  it.each([
    ['?status=completed', () => [E.id, D.id, A.id]],
    ['?status=failed,cancelled', () => [C.id, B.id]],
    ['?status=queued,running', () => [G.id, F.id]],
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
    ['?q=parser', () => [A.id]],
    ['?q=DOC%20writer', () => [G.id, D.id, C.id]],
    ['?q=needle_50%25', () => [D.id]],
    ['?q=needle_5%25', () => []],
    ['?q=%22done%22', () => [C.id]],
    ['?q=exited%20with', () => []],
    [`?agentId=${AGENT_2}&status=completed&from=2026-01-13`, () => [D.id]],
    [`?agentId=${AGENT_2}&source=manual&q=doc`, () => [G.id]],
    ['?status=&agentId=&q=', () => [G.id, F.id, E.id, D.id, C.id, B.id, A.id]],
  ])('filters %s', async (query, expected) => {
    const answer = await history(query);
    expect(answer.status).toBe(200);
    expect(ids(answer.body.items)).toEqual(expected());
    expect(answer.body.total).toBe(expected().length);
  });

  it.each([
    ['?page=0', /^query\.page: /],
    ['?pageSize=0', /^query\.pageSize: /],
    ['?pageSize=101', /^query\.pageSize: /],
    ['?page=abc', /^query\.page: /],
    ['?status=done', /^query\.status/],
    ['?source=cron', /^query\.source/],
    ['?from=yesterday', /^query\.from: /],
    ['?to=2026-02-30', /^query\.to: not a real date/],
    ['?from=2026-01-13&to=2026-01-12', /^query\.from: `from` must not be after `to`/],
    ['?status=failed&status=completed', /^query\.status: /],
    ['?sort=asc', /^query: Unrecognized key: "sort"/],
    [`?q=${'x'.repeat(201)}`, /^query\.q: /],
  ])('refuses %s with 400', async (query, message) => {
    const answer = await history(query);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(message);
  });
});

describe('GET and DELETE /api/executions/history/{id}', () => {
  it('answers the whole record with its output; 404 for an unknown id', async () => {
    const detail = await call('GET', `/api/executions/history/${A.id}`);
    expect(detail.status).toBe(200);
    expect((await getExecution(database.db, A.id))?.clientId).toBe('browser-a');
    expect(detail.body).toEqual({
      id: A.id,
      kind: 'agent',
      agentId: AGENT_1,
      agentName: 'Code Reviewer',
      pipelineId: null,
      status: 'completed',
      source: 'manual',
      scheduleId: null,
      task: 'Review the parser',
      instructions: 'be brief',
      workingDirectory: '/home/projetos/work',
      model: 'sonnet',
      sessionId: 'sess-a',
      parentExecutionId: null,
      costUsd: 0.0123,
      durationMs: 61_000,
      turns: 3,
      output: 'All good',
      outputTruncated: false,
      outputSeq: 0,
      error: null,
      reportFile: null,
      createdAt: '2026-01-10T10:00:00.000Z',
      startedAt: '2026-01-10T10:00:01.000Z',
      finishedAt: '2026-01-10T10:01:01.000Z',
    });
    const missing = await call('GET', '/api/executions/history/no-such-id');
    expect(missing).toMatchObject({ status: 404, body: { error: 'execution no-such-id not found' } });
  });

  it('refuses to delete an active record (409, kept), deletes a finished one (204), then 404', async () => {
    const running = await call('DELETE', `/api/executions/history/${F.id}`);
    expect(running).toMatchObject({ status: 409, body: { error: `execution ${F.id} is still active: cancel it first` } });
    expect((await getExecution(database.db, F.id))?.status).toBe('running');
    const queued = await call('DELETE', `/api/executions/history/${G.id}`);
    expect(queued.status).toBe(409);

    const deleted = await call('DELETE', `/api/executions/history/${B.id}`);
    expect(deleted).toMatchObject({ status: 204, text: '' });
    expect(await getExecution(database.db, B.id)).toBeNull();
    expect((await call('DELETE', `/api/executions/history/${B.id}`)).status).toBe(404);
    B = await record(base({ id: B.id, source: 'schedule', scheduleId: 'sched-1', task: 'Nightly lint', createdAt: B.createdAt }), {
      status: 'error', error: 'agent exited with code 1', output: '',
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
      if (char === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') row.push(cell), (cell = '');
    else if (char === '\n') row.push(cell), rows.push(row), (row = []), (cell = '');
    else cell += char;
  }
  return rows;
}

describe('GET /api/executions/export', () => {
  it('answers a CSV attachment with a header row, one row per record and correct quoting', async () => {
    const answer = await call('GET', '/api/executions/export');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(answer.headers.get('content-disposition')).toBe(`attachment; filename=execucoes_${new Date().toISOString().slice(0, 10)}.csv`);

    const lines = answer.text.split('\n');
    expect(lines[0]).toBe(CSV_COLUMNS.join(','));
    // A simple row, by plain splitting.
    const aLine = lines.find((line) => line.startsWith(A.id))!;
    expect(aLine.split(',')).toEqual([
      A.id, 'agent', 'completed', 'manual', AGENT_1, 'Code Reviewer', '', '', '', 'sonnet', '/home/projetos/work', 'sess-a',
      '2026-01-10T10:00:00.000Z', '2026-01-10T10:00:01.000Z', '2026-01-10T10:01:01.000Z', '61000', '0.0123', '3',
      'Review the parser', 'be brief', '', '',
    ]);
    // The row with a comma, quotes and a line break, verbatim and parsed back.
    expect(answer.text).toContain(`,"Write the docs, then say ""done""\nsecond line",`);
    const rows = parseCsv(answer.text);
    expect(rows.map((row) => row[0])).toEqual(['id', G.id, F.id, E.id, D.id, C.id, B.id, A.id]);
    expect(rows.every((row) => row.length === CSV_COLUMNS.length)).toBe(true);
    expect(rows[5]![CSV_COLUMNS.indexOf('task')]).toBe(TRICKY_TASK);
  });

  it('applies the history filters; refuses bad ones with 400', async () => {
    const failed = await call('GET', '/api/executions/export?status=failed,cancelled&to=2026-01-12');
    expect(parseCsv(failed.text).map((row) => row[0])).toEqual(['id', C.id, B.id]);
    const none = await call('GET', '/api/executions/export?source=webhook&status=completed');
    expect(none.text).toBe(CSV_COLUMNS.join(',') + '\n');
    const bad = await call('GET', '/api/executions/export?page=2');
    expect(bad).toMatchObject({ status: 400, body: { error: 'query: Unrecognized key: "page"' } });
  });

  it('pages through the table by keyset: a larger export keeps every row once, in order', async () => {
    const created: string[] = [];
    for (let i = 0; i < 1203; i++) created.push(`bbbbbbbb-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const values = created.map((id) => [id, 'agent', AGENT_1, 'Bulk', 'completed', 'manual', 't', 'i', '/w', 'm', '2025-06-01 00:00:00.000']);
    await database.pool.query(
      'INSERT INTO executions (id, kind, agent_id, agent_name, status, source, task, instructions, working_directory, model, created_at) VALUES ?',
      [values],
    );
    const answer = await call('GET', '/api/executions/export?to=2025-06-01');
    const rows = parseCsv(answer.text).slice(1).map((row) => row[0]);
    expect(rows).toEqual([...created].reverse());
    await database.pool.query("DELETE FROM executions WHERE agent_name = 'Bulk'");
  });

  it('neutralises spreadsheet formulas (=, +, -, @) with a leading quote; numbers and other texts stay as they are', async () => {
    const agentId = '44444444-4444-4444-8444-444444444444';
    const formulas = ['=HYPERLINK("http://evil.example","x")', '+1+cmd|calc', '-2+3', '@SUM(A1:A9)'];
    const stored = [];
    for (const [i, task] of formulas.entries()) {
      stored.push(
        await record(base({ agentId, agentName: '=Formula agent', task, createdAt: at(`2026-03-0${i + 1}T10:00:00.000Z`) }), {
          status: 'error', error: '-1 exit code', costUsd: 0.5, durationMs: 61_000, turns: 2,
        }),
      );
    }
    try {
      const answer = await call('GET', `/api/executions/export?agentId=${agentId}`);
      const rows = parseCsv(answer.text).slice(1);
      const column = (name: (typeof CSV_COLUMNS)[number]) => rows.map((row) => row[CSV_COLUMNS.indexOf(name)]);
      // Newest first: the fourth record's task comes first.
      expect(column('task')).toEqual([...formulas].reverse().map((task) => `'${task}`));
      expect(column('agentName')).toEqual(Array(4).fill(`'=Formula agent`));
      expect(column('error')).toEqual(Array(4).fill(`'-1 exit code`));
      expect(column('costUsd')).toEqual(Array(4).fill('0.5'));
      expect(column('instructions')).toEqual(Array(4).fill('be brief'));
      expect(column('id')).toEqual(stored.map((item) => item.id).reverse());
    } finally {
      await database.pool.query('DELETE FROM executions WHERE agent_id = ?', [agentId]);
    }
  });
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
