import { createExecution, finishExecution } from '../../db/executions-store';
import { startTestServer, type TestServer } from '../support/server';
import { jsonCall } from '../support/json-api';

/**
 * A retry of a run with context files (docs/uploads.md): its task lists them already, and they must
 * still be uploads of this service; one removed since (retention) answers 400 and starts nothing.
 */

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server?.close();
});

const call = (method: string, route: string, body?: unknown) => jsonCall(server.url, method, route, body);

it('refuses to retry an agent run whose uploaded file is gone, storing nothing', async () => {
  const agent = await call('POST', '/api/agents', { agent_name: `Retry files ${Date.now()}`, config: { model: 'claude-sonnet-4-6' } });
  expect(agent.status).toBe(201);
  const gone = { originalName: 'pauta.txt', path: '/nonexistent/uploads/batch/1-pauta.txt', size: 5 };
  const { db, pool } = server.resources.database;
  const agentRun = await createExecution(db, {
    kind: 'agent',
    agentId: agent.body.id,
    agentName: agent.body.agent_name,
    source: 'manual',
    task: `Leia.\n\nArquivos de contexto:\n- ${gone.path} (pauta.txt)`,
    instructions: '',
    workingDirectory: '/home/projetos',
    model: 'claude-sonnet-4-6',
    contextFiles: [gone],
  });
  await finishExecution(db, agentRun.id, { status: 'error', error: 'falhou' });
  const count = async () => ((await pool.query('SELECT COUNT(*) AS n FROM executions')) as any)[0][0].n;
  const before = await count();

  const retried = await call('POST', `/api/executions/${agentRun.id}/retry`);
  expect(retried).toEqual({
    status: 400,
    body: { error: `O arquivo de contexto ${gone.path} não é um envio deste serviço (POST /api/uploads)` },
  });
  expect(await count()).toBe(before);
});
