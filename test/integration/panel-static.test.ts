import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { PANEL_CACHE_CONTROL } from '../../api/panel';
import type { Config } from '../../lib/config';
import { startTestServer, type TestServer } from '../support/server';

/**
 * The admin panel's files served from PANEL_DIR at the site root (docs/admin-panel.md), on a panel
 * directory of the test's own: what is served and how, that the APIs win over files, and that
 * nothing outside the directory, hidden or reached through a symlink that leads out, is ever served.
 * Requests go through node:http so paths reach the server exactly as written.
 */

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

function raw(server: TestServer, method: string, requestPath: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: hostname, port, method, path: requestPath, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

const NOT_FOUND = { status: 404, json: { error: 'Não encontrado' } };
const answerOf = (answer: RawAnswer) => ({ status: answer.status, json: JSON.parse(answer.text) as unknown });

let scratch: string;
let panelDir: string;
let panel: TestServer;
let noPanel: TestServer;

beforeAll(async () => {
  scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'panel-static-')));
  panelDir = path.join(scratch, 'public');
  const write = (relative: string, content: string) => {
    fs.mkdirSync(path.dirname(path.join(panelDir, relative)), { recursive: true });
    fs.writeFileSync(path.join(panelDir, relative), content);
  };
  write('index.html', '<h1>landing</h1>');
  write('app.html', '<h1>painel</h1>');
  write('css/styles.css', 'body { color: red }');
  write('js/app.js', 'const App = {};');
  write('js/components/toast.js', 'const Toast = {};');
  write('.env', 'SECRET=panel-dotfile');
  write('js/.hidden.js', 'hidden');
  write('.git/config', '[core]');
  // Files whose paths the APIs own: a route answers, or the API's 404, never the file.
  write('api/health', 'file-health');
  write('api/nada', 'file-api');
  write('api/v1/health', 'file-v1');
  // Outside the panel directory, next to it.
  fs.mkdirSync(path.join(scratch, 'outside'));
  fs.writeFileSync(path.join(scratch, 'outside', 'secret.txt'), 'outside-secret');
  fs.writeFileSync(path.join(scratch, 'secret.txt'), 'sibling-secret');
  // Symlinks: to a file outside, to a directory outside, absolute to /etc, and one that stays inside.
  fs.symlinkSync(path.join(scratch, 'secret.txt'), path.join(panelDir, 'leak.txt'));
  fs.symlinkSync('../outside', path.join(panelDir, 'out'));
  fs.symlinkSync('/etc', path.join(panelDir, 'etc'));
  fs.symlinkSync('app.html', path.join(panelDir, 'alias.html'));

  const withPanel =
    (dir: string | null) =>
    (config: Config): Config => ({ ...config, panel: { dir } });
  panel = await startTestServer(withPanel(panelDir));
  noPanel = await startTestServer(withPanel(null));
});

afterAll(async () => {
  await Promise.all([panel?.close(), noPanel?.close()]);
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('the panel at the site root', () => {
  it.each([
    ['/', '<h1>landing</h1>', 'text/html; charset=utf-8'],
    ['/index.html', '<h1>landing</h1>', 'text/html; charset=utf-8'],
    ['/app.html', '<h1>painel</h1>', 'text/html; charset=utf-8'],
    ['/app.html?x=1', '<h1>painel</h1>', 'text/html; charset=utf-8'],
    ['/css/styles.css', 'body { color: red }', 'text/css; charset=utf-8'],
    ['/js/app.js', 'const App = {};', 'text/javascript; charset=utf-8'],
    ['/js/components/toast.js', 'const Toast = {};', 'text/javascript; charset=utf-8'],
    ['/alias.html', '<h1>painel</h1>', 'text/html; charset=utf-8'],
  ])('GET %s serves the file with its type, nosniff and no caching', async (requestPath, content, type) => {
    const answer = await raw(panel, 'GET', requestPath);
    expect({ status: answer.status, text: answer.text, type: answer.headers['content-type'] }).toEqual({
      status: 200,
      text: content,
      type,
    });
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['cache-control']).toBe(PANEL_CACHE_CONTROL);
    expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(content)));
  });

  it('answers HEAD with the headers and no body', async () => {
    const answer = await raw(panel, 'HEAD', '/app.html');
    expect({ status: answer.status, text: answer.text, length: answer.headers['content-length'] }).toEqual({
      status: 200,
      text: '',
      length: '15',
    });
  });

  it('answers a missing file, a directory without index and a write with the JSON 404 of an unknown route', async () => {
    const requests: Array<[string, string]> = [
      ['GET', '/nada.html'],
      ['GET', '/js'],
      ['GET', '/js/'],
      ['POST', '/app.html'],
      ['DELETE', '/app.html'],
    ];
    for (const [method, requestPath] of requests) {
      expect([method, requestPath, answerOf(await raw(panel, method, requestPath))]).toEqual([method, requestPath, NOT_FOUND]);
    }
  });

  it('keeps the Host check in front of the files (DNS rebinding)', async () => {
    const answer = await raw(panel, 'GET', '/app.html', { Host: 'rebound.example' });
    expect(answer.status).toBe(403);
    expect(answer.text).not.toContain('painel');
  });
});

describe('the APIs win over the files', () => {
  it('GET /api/health is the route, not the file api/health', async () => {
    const answer = await raw(panel, 'GET', '/api/health');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ status: 'ok' });
  });

  it('GET /api/v1/health is the ranking route, not the file api/v1/health', async () => {
    const answer = await raw(panel, 'GET', '/api/v1/health');
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain('file-v1');
  });

  it.each(['/api/nada', '/API/nada', '/api//nada', '/%61pi/nada'])(
    'GET %s is an unknown /api route (JSON 404), never the file',
    async (requestPath) => {
      expect(answerOf(await raw(panel, 'GET', requestPath))).toEqual(NOT_FOUND);
    },
  );
});

describe('nothing outside PANEL_DIR, nothing hidden', () => {
  it.each([
    '/../secret.txt',
    '/js/../../secret.txt',
    '/%2e%2e/secret.txt',
    '/%2E%2E%2Fsecret.txt',
    '/js/%2e%2e%2f%2e%2e%2fsecret.txt',
    '/..%5csecret.txt',
    '/%252e%252e/secret.txt',
    '/../outside/secret.txt',
    '/leak.txt',
    '/out/secret.txt',
    '/etc/passwd',
    '/etc/hostname',
    '/.env',
    '/%2eenv',
    '/js/.hidden.js',
    '/.git/config',
    '/app.html%00.js',
    '/%E0%A4%A',
  ])('GET %s answers the JSON 404 and nothing of the file', async (requestPath) => {
    const answer = await raw(panel, 'GET', requestPath);
    expect(answerOf(answer)).toEqual(NOT_FOUND);
    expect(answer.text).not.toMatch(/secret|root:|SECRET|hidden|core/);
  });
});

describe('without PANEL_DIR', () => {
  it.each(['/', '/app.html', '/js/app.js'])('GET %s answers the JSON 404, as before the panel', async (requestPath) => {
    expect(answerOf(await raw(noPanel, 'GET', requestPath))).toEqual(NOT_FOUND);
  });
});
