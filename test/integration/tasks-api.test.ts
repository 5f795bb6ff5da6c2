import { randomUUID } from 'node:crypto';
import type { RowDataPacket } from 'mysql2/promise';
import { createDatabase, type DatabaseHandle } from '../../db';
import { config } from '../../lib/config';
import { startTestServer, type TestServer } from '../support/server';
import { jsonCall } from '../support/json-api';

/**
 * The tasks routes as the panel calls them (contract rows 17-20, 3.4, 5.2): TasksUI.save's body
 * `{name, category, description}`, the fields TasksUI reads back, and the bounds.
 */

let server: TestServer;
let database: DatabaseHandle;
const CLIENT_ID = randomUUID();
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

beforeAll(async () => {
  database = createDatabase(config.mysql);
  await database.pool.query('DELETE FROM tasks');
  server = await startTestServer();
});

afterAll(async () => {
  await server?.close();
  await database?.pool.end();
});

const call = (method: string, route: string, body?: unknown) => jsonCall(server.url, method, route, body, CLIENT_ID);

async function storedTasks(): Promise<number> {
  const [rows] = await database.pool.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM tasks');
  return Number(rows[0]?.n);
}

describe('tasks', () => {
  it('creates, lists newest first, updates and deletes a task with the panel body', async () => {
    const first = await call('POST', '/api/tasks', {
      name: 'Code Review de PR',
      category: 'code-review',
      description: 'Revise o PR aberto',
    });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Code Review de PR',
      category: 'code-review',
      description: 'Revise o PR aberto',
      createdAt: expect.stringMatching(ISO_TIME),
      updatedAt: expect.stringMatching(ISO_TIME),
      created_at: first.body.createdAt,
      updated_at: first.body.updatedAt,
    });
    const second = await call('POST', '/api/tasks', { name: 'Geral', category: '', description: '' });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ name: 'Geral', category: '', description: '' });

    const list = await call('GET', '/api/tasks');
    expect(list.status).toBe(200);
    expect(list.body.map((task: { id: string }) => task.id)).toEqual([second.body.id, first.body.id]);
    expect(list.body[1]).toEqual(first.body);

    const updated = await call('PUT', `/api/tasks/${first.body.id}`, {
      name: 'Auditoria',
      category: 'security',
      description: 'Procure segredos',
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      id: first.body.id,
      name: 'Auditoria',
      category: 'security',
      description: 'Procure segredos',
      createdAt: first.body.createdAt,
    });

    // A partial body keeps the other fields.
    const partial = await call('PUT', `/api/tasks/${first.body.id}`, { description: 'Só a descrição' });
    expect(partial.body).toMatchObject({ name: 'Auditoria', category: 'security', description: 'Só a descrição' });
    // Nothing to change is a mistake, not a silent 200 (found by schemathesis).
    for (const body of [{}, undefined]) {
      expect(await call('PUT', `/api/tasks/${first.body.id}`, body)).toMatchObject({
        status: 400,
        body: { error: 'body: Informe ao menos um de name, category, description' },
      });
    }

    expect((await call('DELETE', `/api/tasks/${first.body.id}`)).status).toBe(204);
    expect(await call('DELETE', `/api/tasks/${first.body.id}`)).toMatchObject({
      status: 404,
      body: { error: `Tarefa não encontrada: ${first.body.id}` },
    });
    expect((await call('PUT', `/api/tasks/${first.body.id}`, { name: 'x' })).status).toBe(404);
    expect((await call('GET', '/api/tasks')).body.map((task: { id: string }) => task.id)).toEqual([second.body.id]);
  });

  it('refuses a bad body with 400 and stores nothing', async () => {
    const before = await storedTasks();
    for (const body of [
      {},
      { name: '   ' },
      { name: 'x', category: 'other' },
      { name: 'x'.repeat(201) },
      { name: 'x', description: 'y'.repeat(20_001) },
      { name: 'x', extra: 1 },
      { name: 42 },
    ]) {
      const answer = await call('POST', '/api/tasks', body);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ error: expect.any(String) });
    }
    // The messages are pt-BR (docs/errors.md): the schema's own and zod's `pt` locale.
    expect((await call('POST', '/api/tasks', { name: '   ' })).body).toEqual({ error: 'body.name: Obrigatório' });
    expect((await call('POST', '/api/tasks', { name: 'x', category: 'other' })).body).toEqual({
      error: "body.category: Deve ser 'code-review', 'security', 'refactor', 'tests', 'docs', 'performance' ou ''",
    });
    expect((await call('POST', '/api/tasks', { name: 42 })).body).toEqual({
      error: 'body.name: Entrada inválida: esperava um texto, recebeu um número',
    });
    expect(await storedTasks()).toBe(before);
  });
});
