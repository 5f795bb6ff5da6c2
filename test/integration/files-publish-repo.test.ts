import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { config } from '../../lib/config';
import { sitesDirectory } from '../../services/files';
import { agentWorkspace } from '../support/agent-workspace';
import { gitIn } from '../support/git-repos';
import { startTestServer, type TestServer } from '../support/server';

/**
 * Publishing with GIT_PUBLISH_DIR (docs/files.md, "Publish"): besides the site, the snapshot is pushed
 * to the bare repository `<project>.git` there, created on the first publish and replaced by each
 * publish; what the snapshot leaves out (dot-files, links) the repository does not get either.
 */

let server: TestServer;
let area: string;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'publish-repo-'));
const publishDir = path.join(scratch, 'published');
const PROJECT = `catalogo-${process.pid}`;

beforeAll(async () => {
  area = agentWorkspace('publish-area-');
  server = await startTestServer((current) => ({
    ...current,
    orchestration: { ...current.orchestration, workdirRoots: [area], repositories: { ...current.orchestration.repositories, publishDir } },
  }));
});

afterAll(async () => {
  await server?.close();
  fs.rmSync(area, { recursive: true, force: true });
  fs.rmSync(scratch, { recursive: true, force: true });
  for (const name of [PROJECT, 'minha loja'])
    fs.rmSync(path.join(sitesDirectory(config.orchestration.dataDir), name), { recursive: true, force: true });
});

function write(relative: string, content: string): void {
  fs.mkdirSync(path.dirname(path.join(area, relative)), { recursive: true });
  fs.writeFileSync(path.join(area, relative), content);
}

async function publish(name: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}/api/files/publish`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ path: name }),
  });
  return { status: response.status, body: await response.json() };
}

const bareGit = (...args: string[]) => gitIn(scratch, '--git-dir', path.join(publishDir, `${PROJECT}.git`), ...args);

it('pushes the snapshot to <GIT_PUBLISH_DIR>/<project>.git and answers it as repoUrl; a new publish replaces it', async () => {
  write(`${PROJECT}/index.html`, '<h1>Catálogo</h1>');
  write(`${PROJECT}/img/logo.svg`, '<svg/>');
  write(`${PROJECT}/.env`, 'TOKEN=segredo');
  fs.symlinkSync('/etc/hostname', path.join(area, PROJECT, 'link.txt'));

  const first = await publish(PROJECT);
  expect(first).toEqual({
    status: 200,
    body: {
      status: 'Publicado',
      siteUrl: `${server.url}/sites/${PROJECT}/`,
      repoUrl: path.join(publishDir, `${PROJECT}.git`),
      projectName: PROJECT,
      message: expect.stringContaining(`enviada para o repositório ${path.join(publishDir, `${PROJECT}.git`)}`),
    },
  });
  expect(bareGit('ls-tree', '-r', '--name-only', 'main').split('\n')).toEqual(['img/logo.svg', 'index.html']);
  expect(bareGit('show', 'main:index.html')).toBe('<h1>Catálogo</h1>');
  expect(bareGit('log', '-1', '--format=%s', 'main')).toMatch(new RegExp(`^Publicação de ${PROJECT} \\(\\d{4}-`));

  write(`${PROJECT}/index.html`, '<h1>Catálogo 2</h1>');
  expect((await publish(PROJECT)).status).toBe(200);
  expect(bareGit('show', 'main:index.html')).toBe('<h1>Catálogo 2</h1>');
  expect(bareGit('rev-list', '--count', 'main')).toBe('1');
});

it('publishes the site but pushes nothing for a folder whose name cannot name a repository', async () => {
  write('minha loja/index.html', '<h1>Loja</h1>');
  const answer = await publish('minha loja');
  expect(answer.status).toBe(200);
  expect(answer.body).toMatchObject({
    status: 'Publicado',
    repoUrl: null,
    message: expect.stringContaining('não serve de nome de repositório'),
  });
  expect(fs.readdirSync(publishDir)).toEqual([`${PROJECT}.git`]);
});
