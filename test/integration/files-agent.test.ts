import fs from 'node:fs';
import path from 'node:path';
import { config as baseConfig } from '../../lib/config';
import { sitesDirectory } from '../../services/files';
import { jsonCall } from '../support/json-api';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import type { TestServer } from '../support/server';
import { until } from '../support/waiting';

/**
 * What an agent writes shows in the projects area (contract 3.15; docs/files.md): the real Claude Code
 * CLI, run by the agents worker as a pool user against the stand-in model, writes a page in its
 * working directory under the first root; the service lists it, downloads it, publishes the
 * project and deletes it, files owned by the agent's user included.
 */

jest.setTimeout(180_000);

let agents: RealAgents;
let server: TestServer;
/** The suite's work area, a top-level folder of the projects area: the project here. */
let project: string;

const call = (method: string, route: string, body?: unknown) => jsonCall(server.url, method, route, body);

beforeAll(async () => {
  agents = await startRealAgents({ name: 'files' });
  server = agents.server;
  project = path.relative(baseConfig.orchestration.workdirRoots[0]!, agents.workArea);
}, 60_000);

afterAll(async () => {
  await agents?.close();
  if (project) fs.rmSync(path.join(sitesDirectory(baseConfig.orchestration.dataDir), project), { recursive: true, force: true });
});

it('lists, downloads, publishes and deletes what the real CLI wrote as its pool user', async () => {
  const agent = await agents.standInAgent('site');
  const started = await call('POST', `/api/agents/${agent.id}/execute`, {
    task: 'Crie a página. stand-in:write-file path=pagina/index.html content=ola-do-agente',
    instructions: '',
  });
  expect(started.status).toBe(202);
  const record = await until(
    'the run to finish',
    async () => (await call('GET', `/api/executions/history/${started.body.executionId}`)).body,
    (body) => ['completed', 'error', 'canceled'].includes(body?.status),
    120_000,
  );
  expect(record.status).toBe('completed');

  // The agent's user wrote it (not the service's root).
  const written = path.join(agents.workArea, 'site', 'pagina', 'index.html');
  expect(fs.statSync(written).uid).not.toBe(0);

  const top = await call('GET', '/api/files');
  expect(top.body.entries).toEqual(expect.arrayContaining([expect.objectContaining({ name: project, type: 'directory', size: null })]));
  const folder = await call('GET', `/api/files?path=${encodeURIComponent(`${project}/site/pagina`)}`);
  expect(folder.body).toEqual({
    path: `${project}/site/pagina`,
    parent: `${project}/site`,
    entries: [
      {
        name: 'index.html',
        type: 'file',
        size: 'ola-do-agente\n'.length,
        modified: fs.statSync(written).mtime.toISOString(),
        extension: 'html',
      },
    ],
    truncated: false,
  });
  const download = await call('GET', `/api/files/download?path=${encodeURIComponent(`${project}/site/pagina/index.html`)}`);
  expect([download.status, download.text]).toEqual([200, 'ola-do-agente\n']);

  const published = await call('POST', '/api/files/publish', { path: project });
  expect(published.body).toEqual(
    expect.objectContaining({ status: 'Publicado', siteUrl: `${server.url}/sites/${project}/`, projectName: project }),
  );
  const page = await call('GET', `/sites/${project}/site/pagina/`);
  expect([page.status, page.text]).toEqual([200, 'ola-do-agente\n']);

  expect(await call('DELETE', `/api/files?path=${encodeURIComponent(project)}`)).toEqual(
    expect.objectContaining({ status: 200, body: { success: true } }),
  );
  expect(fs.existsSync(agents.workArea)).toBe(false);
});
