import { randomUUID } from 'node:crypto';
import type { RowDataPacket } from 'mysql2/promise';
import { pipelineFields, pipelineStepFields } from '../../api/orchestration/pipelines-input';
import { createDatabase, type DatabaseHandle } from '../../db';
import { findPipeline } from '../../db/pipelines-store';
import { config } from '../../lib/config';
import { startTestServer, type TestServer } from '../support/server';
import { jsonCall } from '../support/json-api';

/**
 * The pipelines CRUD as the admin panel calls it (contract rows 26-30, sections 3.6 and 5.4): the
 * bodies of PipelinesUI.save() and FlowEditor._save(), and the values the panel reads back.
 */

let server: TestServer;
let database: DatabaseHandle;
const CLIENT_ID = randomUUID();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Answer {
  status: number;
  body: any;
}

const call = (method: string, route: string, body?: unknown): Promise<Answer> => jsonCall(server.url, method, route, body, CLIENT_ID);

let reviewer: { id: string; name: string };
let writer: { id: string; name: string };

async function agent(name: string): Promise<{ id: string; name: string }> {
  const created = await call('POST', '/api/agents', { agent_name: name, config: { workingDirectory: '' } });
  expect(created.status).toBe(201);
  return { id: created.body.id, name };
}

beforeAll(async () => {
  database = createDatabase(config.mysql);
  await database.pool.query('DELETE FROM pipelines');
  server = await startTestServer();
  reviewer = await agent(`revisor ${randomUUID().slice(0, 8)}`);
  writer = await agent(`redator ${randomUUID().slice(0, 8)}`);
});

afterAll(async () => {
  await server?.close();
  await database?.pool.end();
});

/** What PipelinesUI.save() sends: simple mode builds the templates itself. */
function panelBody(name: string, workingDirectory = '/home/projetos/site') {
  return {
    name,
    description: 'Revisa e resume',
    workingDirectory,
    steps: [
      { agentId: reviewer.id, inputTemplate: 'Revise\n\n{{input}}', description: 'Revise', requiresApproval: true },
      {
        agentId: writer.id,
        inputTemplate: 'Resuma\n\nResultado do passo anterior:\n{{input}}',
        description: 'Resuma',
        requiresApproval: true,
      },
    ],
  };
}

describe('pipelines CRUD (rows 26-30)', () => {
  it('creates (201), lists with agentName per step, reads, and the first step never waits', async () => {
    const created = await call('POST', '/api/pipelines', panelBody('Revisão'));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Revisão',
      description: 'Revisa e resume',
      workingDirectory: '/home/projetos/site',
      status: 'active',
    });
    expect(created.body.id).toMatch(UUID);
    expect(created.body.steps).toEqual([
      {
        id: expect.stringMatching(UUID),
        agentId: reviewer.id,
        agentName: reviewer.name,
        order: 0,
        inputTemplate: 'Revise\n\n{{input}}',
        description: 'Revise',
        requiresApproval: false,
      },
      {
        id: expect.stringMatching(UUID),
        agentId: writer.id,
        agentName: writer.name,
        order: 1,
        inputTemplate: 'Resuma\n\nResultado do passo anterior:\n{{input}}',
        description: 'Resuma',
        requiresApproval: true,
      },
    ]);

    const list = await call('GET', '/api/pipelines');
    expect(list.status).toBe(200);
    const listed = list.body.find((pipeline: { id: string }) => pipeline.id === created.body.id);
    expect(listed.steps.map((step: { agentName: string }) => step.agentName)).toEqual([reviewer.name, writer.name]);

    const detail = await call('GET', `/api/pipelines/${created.body.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toEqual(created.body);
  });

  it('the flow editor PUT (no workingDirectory, no step description) keeps the stored directory', async () => {
    const created = await call('POST', '/api/pipelines', panelBody('Fluxo', '/home/projetos/fluxo'));
    const put = await call('PUT', `/api/pipelines/${created.body.id}`, {
      name: 'Fluxo 2',
      description: 'editado',
      steps: [
        { agentId: writer.id, inputTemplate: '', requiresApproval: true },
        { agentId: reviewer.id, inputTemplate: '{{input}}!', requiresApproval: true },
      ],
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'Fluxo 2', description: 'editado', workingDirectory: '/home/projetos/fluxo' });
    expect(put.body.steps.map((step: any) => [step.agentId, step.inputTemplate, step.description, step.requiresApproval])).toEqual([
      [writer.id, null, '', false],
      [reviewer.id, '{{input}}!', '', true],
    ]);
    const [rows] = await database.pool.query<RowDataPacket[]>('SELECT working_directory FROM pipelines WHERE id = ?', [created.body.id]);
    expect(rows[0]?.working_directory).toBe('/home/projetos/fluxo');
    // The panel's empty field: no working directory (the settings' at run time).
    const cleared = await call('PUT', `/api/pipelines/${created.body.id}`, { workingDirectory: '' });
    expect(cleared.body.workingDirectory).toBeNull();
    expect(cleared.body.name).toBe('Fluxo 2');
  });

  it('every field of the request schemas, sent over HTTP, is stored and read back (issue 38)', async () => {
    const steps = [
      {
        id: 'passo-1',
        agentId: reviewer.id,
        order: 0,
        inputTemplate: 'Revise {{input}}',
        description: 'Revise',
        requiresApproval: false,
        approvalTimeoutSeconds: 60,
      },
      {
        id: 'passo-2',
        agentId: writer.id,
        order: 1,
        inputTemplate: 'Resuma {{input}}',
        description: 'Resuma',
        requiresApproval: true,
        approvalTimeoutSeconds: 120,
      },
    ];
    const body = { name: 'Todos os campos', description: 'Cada campo', workingDirectory: '/home/projetos/site', status: 'inactive', steps };
    // Each field of the schemas, none left at its default: a field added to a schema must be added here.
    expect(Object.keys(body).sort()).toEqual(Object.keys(pipelineFields).sort());
    expect(Object.keys(steps[0]!).sort()).toEqual(Object.keys(pipelineStepFields).sort());

    const created = await call('POST', '/api/pipelines', body);
    expect(created.status).toBe(201);
    const withNames = [
      { ...steps[0], agentName: reviewer.name },
      { ...steps[1], agentName: writer.name },
    ];
    expect(created.body).toMatchObject({ ...body, steps: withNames });
    const stored = await findPipeline(database.db, created.body.id);
    expect(stored).toMatchObject({ ...body, steps });
    expect((await call('GET', `/api/pipelines/${created.body.id}`)).body).toMatchObject({ ...body, steps: withNames });

    // A PUT of each field alone changes that field only.
    const changes = {
      name: 'Todos 2',
      description: 'Outro',
      workingDirectory: '/home/projetos/fluxo',
      status: 'active',
      steps: [steps[1]],
    };
    expect(Object.keys(changes).sort()).toEqual(Object.keys(pipelineFields).sort());
    for (const [key, value] of Object.entries(changes)) {
      const put = await call('PUT', `/api/pipelines/${created.body.id}`, { [key]: value });
      expect(put.status).toBe(200);
      const expected = key === 'steps' ? [{ ...steps[1], order: 0, requiresApproval: false }] : value;
      expect((await findPipeline(database.db, created.body.id))?.[key as keyof typeof changes]).toEqual(expected);
    }
  });

  it('deletes (204), then 404 for the detail, a PUT and a second DELETE', async () => {
    const created = await call('POST', '/api/pipelines', panelBody('Apagar'));
    expect((await call('DELETE', `/api/pipelines/${created.body.id}`)).status).toBe(204);
    const gone = await call('GET', `/api/pipelines/${created.body.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error).toContain('Pipeline não encontrado');
    expect((await call('PUT', `/api/pipelines/${created.body.id}`, { name: 'x' })).status).toBe(404);
    expect((await call('DELETE', `/api/pipelines/${created.body.id}`)).status).toBe(404);
  });

  it('answers 400 {error} for bad bodies, with nothing stored', async () => {
    const [before] = await database.pool.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM pipelines');
    const bad: [unknown, string][] = [
      [{ steps: panelBody('x').steps }, 'body.name'],
      [{ name: '  ', steps: panelBody('x').steps }, 'body.name'],
      [{ name: 'x' }, 'body.steps'],
      [{ name: 'x', steps: [] }, 'body.steps'],
      [{ name: 'x', steps: [{ inputTemplate: '' }] }, 'body.steps.0.agentId'],
      [{ name: 'x', steps: [{ agentId: randomUUID() }] }, 'steps[0].agentId'],
      [{ name: 'x', steps: Array.from({ length: 21 }, () => ({ agentId: reviewer.id })) }, 'body.steps'],
      [{ name: 'x', steps: [{ agentId: reviewer.id, inputTemplate: 'a'.repeat(50_001) }] }, 'body.steps.0.inputTemplate'],
      [{ name: 'x'.repeat(101), steps: [{ agentId: reviewer.id }] }, 'body.name'],
      [{ name: 'x', workingDirectory: '/etc', steps: [{ agentId: reviewer.id }] }, 'workingDirectory'],
      [{ name: 'x', workingDirectory: 'relativo', steps: [{ agentId: reviewer.id }] }, 'body.workingDirectory'],
      [{ name: 'x', steps: [{ agentId: reviewer.id }], unknown: 1 }, 'unknown'],
    ];
    for (const [body, field] of bad) {
      const answer = await call('POST', '/api/pipelines', body);
      expect([answer.status, answer.body.error]).toEqual([400, expect.stringContaining(field)]);
    }
    const [after] = await database.pool.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM pipelines');
    expect(Number(after[0]?.n)).toBe(Number(before[0]?.n));
  });
});
