import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { config } from '../../lib/config';
import { sitesDirectory } from '../../services/files';
import { agentWorkspace } from '../support/agent-workspace';
import { jsonCall } from '../support/json-api';
import { startTestServer, type TestServer } from '../support/server';

/**
 * The projects area over several roots (docs/multi-host.md, docs/files.md): one root per agents host,
 * all mounted where the API runs. The top level is their union (a name in two roots is the first
 * root's), and every other path goes to the root holding its top-level name.
 */

let server: TestServer;
let first: string;
let second: string;
let outside: string;
const suffix = `${process.pid}-${Date.now()}`;
const published = `so-segunda-${suffix}`;

const call = (method: string, route: string, body?: unknown) => jsonCall(server.url, method, route, body);

function write(root: string, relative: string, content: string): void {
  const file = path.join(root, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

const names = (listing: any) => listing.entries.map((entry: any) => `${entry.type}:${entry.name}`);

beforeAll(async () => {
  first = agentWorkspace('files-root-1-');
  second = agentWorkspace('files-root-2-');
  outside = fs.mkdtempSync(path.join(os.tmpdir(), 'files-roots-outside-'));
  write(outside, 'segredo.txt', 'SEGREDO');
  write(first, 'comum/da-primeira.txt', 'primeira');
  write(first, 'so-primeira/a.txt', 'a');
  write(second, 'comum/da-segunda.txt', 'segunda');
  write(second, `${published}/index.html`, '<h1>segunda</h1>');
  write(second, `${published}/dados/b.txt`, 'conteudo-b');
  write(second, 'leia.md', '# leia');
  write(second, '.oculto', 'x');
  fs.symlinkSync(outside, path.join(second, 'atalho'));
  server = await startTestServer((base) => ({ ...base, orchestration: { ...base.orchestration, workdirRoots: [first, second] } }));
});

afterAll(async () => {
  await server?.close();
  for (const dir of [first, second, outside, path.join(sitesDirectory(config.orchestration.dataDir), published)])
    fs.rmSync(dir, { recursive: true, force: true });
});

it('lists the top level of every root as one: directories first, a name in both roots once, dot-files and links hidden', async () => {
  const top = await call('GET', '/api/files');
  expect(top.status).toBe(200);
  expect(names(top.body)).toEqual(['directory:comum', 'directory:so-primeira', `directory:${published}`, 'file:leia.md']);
  expect(top.body).toMatchObject({ path: '', parent: null, truncated: false });
});

it('a path goes to the first root holding its top-level name', async () => {
  expect(names((await call('GET', '/api/files?path=comum')).body)).toEqual(['file:da-primeira.txt']);
  expect((await call('GET', `/api/files?path=${published}/dados`)).body).toMatchObject({
    path: `${published}/dados`,
    parent: published,
    entries: [{ name: 'b.txt', size: 10 }],
  });
  const download = await call('GET', `/api/files/download?path=${encodeURIComponent(`${published}/dados/b.txt`)}`);
  expect([download.status, download.text]).toEqual([200, 'conteudo-b']);
  expect((await call('GET', '/api/files/download?path=leia.md')).text).toBe('# leia');
  expect((await call('GET', '/api/files?path=nenhum')).status).toBe(404);
});

it('archives the whole area from every root, a name in both roots from the first', async () => {
  const response = await fetch(`${server.url}/api/files/download-folder?path=`);
  expect(response.status).toBe(200);
  const listed = execFileSync('tar', ['-tzf', '-'], { input: Buffer.from(await response.arrayBuffer()) })
    .toString()
    .trim()
    .split('\n')
    .sort();
  expect(listed).toEqual(
    [
      'projetos/',
      'projetos/.oculto',
      'projetos/comum/',
      'projetos/comum/da-primeira.txt',
      'projetos/leia.md',
      `projetos/${published}/`,
      `projetos/${published}/dados/`,
      `projetos/${published}/dados/b.txt`,
      `projetos/${published}/index.html`,
      'projetos/so-primeira/',
      'projetos/so-primeira/a.txt',
    ].sort(),
  );
});

it('refuses a link at the top of the second root like one in the first', async () => {
  expect(await call('GET', '/api/files?path=atalho')).toMatchObject({ status: 400, body: { error: 'Caminho inválido' } });
  expect(await call('GET', `/api/files/download?path=${encodeURIComponent('atalho/segredo.txt')}`)).toMatchObject({ status: 400 });
});

it('publishes and deletes in the root that holds the folder, leaving the other alone', async () => {
  const answer = await call('POST', '/api/files/publish', { path: published });
  expect(answer).toMatchObject({ status: 200, body: { status: 'Publicado', siteUrl: `${server.url}/sites/${published}/` } });
  expect((await call('GET', `/sites/${published}/`)).text).toBe('<h1>segunda</h1>');
  expect(await call('DELETE', '/api/files?path=comum')).toMatchObject({ status: 200, body: { success: true } });
  expect(fs.existsSync(path.join(first, 'comum'))).toBe(false);
  expect(fs.readFileSync(path.join(second, 'comum/da-segunda.txt'), 'utf8')).toBe('segunda');
  // With the first root's folder gone, the name is the second root's.
  expect(names((await call('GET', '/api/files?path=comum')).body)).toEqual(['file:da-segunda.txt']);
});
