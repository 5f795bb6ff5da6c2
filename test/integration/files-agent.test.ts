import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { config as baseConfig } from '../../lib/config';
import { logger } from '../../lib/logger';
import { repoRoot } from '../../lib/paths';
import { sitesDirectory } from '../../services/files';
import { startAgentsWorker } from '../../workers/agents';
import type { QueueWorker } from '../../workers/queue-worker';
import { standInEnv, startStandInModel, type StandInModel } from '../fixtures/stand-in-model';
import { startTestServer, type TestServer } from '../support/server';
import { until } from '../support/waiting';

/**
 * What an agent writes shows in the projects area (contract 3.15; docs/files.md): the real Claude Code
 * CLI, run by the agents worker as a pool user against the stand-in model, writes a page in its
 * working directory under the first root; the service lists it, downloads it, publishes the
 * project and deletes it, files owned by the agent's user included.
 */

jest.setTimeout(180_000);

const claudeCli = path.join(repoRoot, 'node_modules/.bin/claude');
const root = baseConfig.orchestration.workdirRoots[0]!;
const project = `test-files-${process.pid}-${Date.now()}`;
const workArea = path.join(root, project);

let server: TestServer;
let worker: QueueWorker;
let model: StandInModel;

async function call(method: string, route: string, body?: unknown): Promise<{ status: number; body: any; text: string }> {
  const response = await fetch(server.url + route, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const json = (response.headers.get('content-type') ?? '').includes('json');
  return { status: response.status, body: json && text ? JSON.parse(text) : null, text };
}

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('the CLI runs as the pool users a root service uses: run these tests as root');
  model = await startStandInModel();
  server = await startTestServer();
  await server.services.database.pool.query(
    "UPDATE executions SET status = 'error', finished_at = NOW(3), error = 'left by an earlier test run' WHERE status IN ('queued', 'running', 'retrying', 'awaiting_approval')",
  );
  worker = await startAgentsWorker({ ...baseConfig, orchestration: { ...baseConfig.orchestration, agentCommand: claudeCli } }, logger);
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await model?.close();
  await server?.close();
  fs.rmSync(workArea, { recursive: true, force: true });
  fs.rmSync(path.join(sitesDirectory(baseConfig.orchestration.dataDir), project), { recursive: true, force: true });
});

it('lists, downloads, publishes and deletes what the real CLI wrote as its pool user', async () => {
  const created = await call('POST', '/api/agents', {
    agent_name: `Construtor ${randomUUID().slice(0, 8)}`, description: '', tags: [], status: 'active',
    config: {
      systemPrompt: '', model: 'claude-sonnet-4-6', workingDirectory: path.join(workArea, 'site'), allowedTools: '', maxTurns: 5,
      permissionMode: '', retryOnFailure: false, maxRetries: 3, delegateTo: '',
    },
  });
  expect(created.status).toBe(201);
  for (const [name, value] of Object.entries({ ...standInEnv(model), CLAUDE_CODE_MAX_RETRIES: '0' })) {
    expect((await call('POST', `/api/agents/${created.body.id}/secrets`, { name, value })).status).toBe(201);
  }
  const started = await call('POST', `/api/agents/${created.body.id}/execute`, { task: 'Crie a página. stand-in:write-file path=pagina/index.html content=ola-do-agente', instructions: '' });
  expect(started.status).toBe(202);
  const record = await until(
    'the run to finish',
    async () => (await call('GET', `/api/executions/history/${started.body.executionId}`)).body,
    (body) => ['completed', 'error', 'canceled'].includes(body?.status),
    120_000,
  );
  expect(record.status).toBe('completed');

  // The agent's user wrote it (not the service's root).
  const written = path.join(workArea, 'site', 'pagina', 'index.html');
  expect(fs.statSync(written).uid).not.toBe(0);

  const top = await call('GET', '/api/files');
  expect(top.body.entries).toEqual(expect.arrayContaining([expect.objectContaining({ name: project, type: 'directory', size: null })]));
  const folder = await call('GET', `/api/files?path=${encodeURIComponent(`${project}/site/pagina`)}`);
  expect(folder.body).toEqual({
    path: `${project}/site/pagina`,
    parent: `${project}/site`,
    entries: [{ name: 'index.html', type: 'file', size: 'ola-do-agente\n'.length, modified: fs.statSync(written).mtime.toISOString(), extension: 'html' }],
    truncated: false,
  });
  const download = await call('GET', `/api/files/download?path=${encodeURIComponent(`${project}/site/pagina/index.html`)}`);
  expect([download.status, download.text]).toEqual([200, 'ola-do-agente\n']);

  const published = await call('POST', '/api/files/publish', { path: project });
  expect(published.body).toEqual(expect.objectContaining({ status: 'Publicado', siteUrl: `${server.url}/sites/${project}/`, projectName: project }));
  const page = await call('GET', `/sites/${project}/site/pagina/`);
  expect([page.status, page.text]).toEqual([200, 'ola-do-agente\n']);

  expect(await call('DELETE', `/api/files?path=${encodeURIComponent(project)}`)).toEqual(expect.objectContaining({ status: 200, body: { success: true } }));
  expect(fs.existsSync(workArea)).toBe(false);
});
