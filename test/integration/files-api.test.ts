import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { config } from '../../lib/config';
import { ENTRIES_LISTED, sitesDirectory } from '../../services/files';
import { agentWorkspace } from '../support/agent-workspace';
import { jsonCall, rawPathCall } from '../support/json-api';
import { startTestServer, type TestServer } from '../support/server';
import { until } from '../support/waiting';

/**
 * The projects area (contract 3.15, rows 64-68; docs/files.md) against the real service: the area is
 * a scratch directory set as the first working-directory root. Symlinks an agent could plant point at
 * a secret file and a directory outside the area; no operation may reach them.
 */

let server: TestServer;
let area: string;
let outside: string;
let secretFile: string;
const SECRET = `SEGREDO-${randomUUID()}`;

/** As the panel calls it, a redirect read as it comes. */
const call = (method: string, route: string, body?: unknown) => jsonCall(server.url, method, route, body, { redirect: 'manual' });

const q = (relative: string) => encodeURIComponent(relative);

/** Text that gzip cannot shrink much (random base64). */
const randomBytesText = (bytes: number) =>
  randomBytes(Math.ceil((bytes * 3) / 4))
    .toString('base64')
    .slice(0, bytes);

const rawGet = (rawPath: string) => rawPathCall(server.url, 'GET', rawPath);

/** The entries of a .tar.gz: name, type and content of files. */
async function untar(gzipped: Buffer): Promise<Array<{ name: string; type: string; content?: string }>> {
  const extract = tar.extract();
  const entries: Array<{ name: string; type: string; content?: string }> = [];
  const done = (async () => {
    for await (const entry of extract) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      const { name, type } = entry.header;
      entries.push(type === 'file' ? { name, type, content: Buffer.concat(chunks).toString('utf8') } : { name, type: String(type) });
    }
  })();
  extract.end(zlib.gunzipSync(gzipped));
  await done;
  return entries;
}

function write(relative: string, content: string): void {
  const file = path.join(area, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

beforeAll(async () => {
  area = agentWorkspace('files-area-');
  outside = fs.mkdtempSync(path.join(os.tmpdir(), 'files-outside-'));
  secretFile = path.join(outside, 'secret.key');
  fs.writeFileSync(secretFile, SECRET, { mode: 0o600 });
  fs.mkdirSync(path.join(outside, 'dir'));
  fs.writeFileSync(path.join(outside, 'dir', 'inside-outside.txt'), SECRET);
  server = await startTestServer((config) => ({ ...config, orchestration: { ...config.orchestration, workdirRoots: [area] } }));
});

afterAll(async () => {
  await server?.close();
  fs.rmSync(area, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
  fs.rmSync(path.join(sitesDirectory(config.orchestration.dataDir), 'vitrine'), { recursive: true, force: true });
});

describe('GET /api/files (row 64)', () => {
  beforeAll(() => {
    write('loja/index.html', '<h1>Loja</h1>');
    write('loja/README.md', '# Loja');
    write('loja/css/site.css', 'body{}');
    write('loja/.env', 'TOKEN=x');
    write('Zeta.TXT', 'zeta');
    write('alpha.json', '{}');
    write('.oculto', 'x');
    fs.mkdirSync(path.join(area, 'beta'));
    // What an agent could plant: links to a secret file and a directory outside the area.
    fs.symlinkSync(secretFile, path.join(area, 'loja', 'chave.txt'));
    fs.symlinkSync(path.join(outside, 'dir'), path.join(area, 'atalho'));
  });

  it('lists the root: directories first then by name, dot-files and symlinks hidden, parent null', async () => {
    const answer = await call('GET', '/api/files');
    expect(answer.status).toBe(200);
    expect(answer.body.path).toBe('');
    expect(answer.body.parent).toBeNull();
    expect(answer.body.truncated).toBe(false);
    const names = answer.body.entries.map((entry: any) => [entry.name, entry.type]);
    expect(names).toEqual([
      ['beta', 'directory'],
      ['loja', 'directory'],
      ['alpha.json', 'file'],
      ['Zeta.TXT', 'file'],
    ]);
    const zeta = answer.body.entries.find((entry: any) => entry.name === 'Zeta.TXT');
    expect(zeta).toEqual({
      name: 'Zeta.TXT',
      type: 'file',
      size: 4,
      modified: fs.statSync(path.join(area, 'Zeta.TXT')).mtime.toISOString(),
      extension: 'txt',
    });
    expect(answer.body.entries.find((entry: any) => entry.name === 'beta')).toEqual(
      expect.objectContaining({ size: null, extension: null }),
    );
  });

  it('lists a folder with its parent; the same with ./ and doubled slashes', async () => {
    const answer = await call('GET', `/api/files?path=${q('loja')}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(expect.objectContaining({ path: 'loja', parent: '' }));
    expect(answer.body.entries.map((entry: any) => entry.name)).toEqual(['css', 'index.html', 'README.md']);
    expect(answer.body.entries[1]).toEqual(expect.objectContaining({ size: 13, extension: 'html' }));
    const nested = await call('GET', `/api/files?path=${q('./loja//css/')}`);
    expect(nested.body).toEqual(expect.objectContaining({ path: 'loja/css', parent: 'loja' }));
    expect(nested.body.entries.map((entry: any) => entry.name)).toEqual(['site.css']);
  });

  it("refuses escapes, absolute paths and symlinks with 'Caminho inválido'", async () => {
    for (const bad of ['..', '../', 'loja/../..', '/etc', '/', 'atalho', 'atalho/', 'loja/chave.txt', `loja/${'x'.repeat(10)}\u0000`]) {
      const answer = await call('GET', `/api/files?path=${q(bad)}`);
      expect([bad, answer.status, answer.body]).toEqual([bad, 400, { error: 'Caminho inválido' }]);
    }
    // Encoded once more than a client would: still a `..` once the query is read.
    expect(await rawGet('/api/files?path=%2e%2e%2f%2e%2e%2fetc')).toEqual({ status: 400, body: { error: 'Caminho inválido' } });
    // Through the link to a directory outside: never listed.
    expect((await call('GET', `/api/files?path=${q('atalho')}`)).body).toEqual({ error: 'Caminho inválido' });
    // A name longer than a file name can be (256 bytes; 2-byte characters count twice): refused, not a 500 (found by schemathesis).
    for (const long of ['0'.repeat(256), `loja/${'ç'.repeat(128)}`]) {
      for (const method of ['GET', 'DELETE']) {
        const answer = await call(method, `/api/files?path=${q(long)}`);
        expect([method, long.length, answer.status, answer.body]).toEqual([method, long.length, 400, { error: 'Caminho inválido' }]);
      }
    }
    expect((await call('GET', `/api/files?path=${q('0'.repeat(255))}`)).status).toBe(404);
  });

  it("answers 400 'Caminho não é um diretório' for a file and 404 'Diretório não encontrado' for nothing", async () => {
    expect(await call('GET', `/api/files?path=${q('alpha.json')}`)).toEqual(
      expect.objectContaining({ status: 400, body: { error: 'Caminho não é um diretório' } }),
    );
    expect(await call('GET', `/api/files?path=${q('nada')}`)).toEqual(
      expect.objectContaining({ status: 404, body: { error: 'Diretório não encontrado' } }),
    );
    expect(await call('GET', `/api/files?path=${q('alpha.json/x')}`)).toEqual(
      expect.objectContaining({ status: 404, body: { error: 'Diretório não encontrado' } }),
    );
    const twice = await call('GET', '/api/files?path=a&path=b');
    expect(twice.status).toBe(400);
    expect(twice.body.error).toMatch(/^query\.path: /);
    expect((await call('GET', `/api/files?path=${'a'.repeat(1_001)}`)).status).toBe(400);
  });

  it(`lists at most ${ENTRIES_LISTED} entries and says so`, async () => {
    const many = path.join(area, 'muitos');
    fs.mkdirSync(many);
    for (let i = 0; i < ENTRIES_LISTED + 5; i += 1) fs.writeFileSync(path.join(many, `f${String(i).padStart(4, '0')}.txt`), '');
    fs.mkdirSync(path.join(many, 'zz-pasta'));
    const answer = await call('GET', `/api/files?path=muitos`);
    expect(answer.body.truncated).toBe(true);
    expect(answer.body.entries).toHaveLength(ENTRIES_LISTED);
    // The directory comes first even though its name sorts last.
    expect(answer.body.entries[0].name).toBe('zz-pasta');
    expect(answer.body.entries[1].name).toBe('f0000.txt');
    fs.rmSync(many, { recursive: true });
  });
});

describe('GET /api/files/download and /download-folder (rows 67, 68)', () => {
  beforeAll(() => {
    write('dl/docs/nota.txt', 'olá, arquivo');
    write('dl/docs/vazio.txt', '');
    write('dl/.gitignore', 'node_modules');
    write('dl/página "1".html', '<script>alert(1)</script>');
    write('dl/relatório—final.md', '# r');
    fs.symlinkSync(secretFile, path.join(area, 'dl', 'docs', 'segredo.txt'));
    fs.symlinkSync(path.join(outside, 'dir'), path.join(area, 'dl', 'fora'));
  });

  it('downloads a file as an attachment, streamed with its length, never sniffed', async () => {
    const answer = await call('GET', `/api/files/download?path=${q('dl/docs/nota.txt')}`);
    expect(answer.status).toBe(200);
    expect(answer.bytes.toString('utf8')).toBe('olá, arquivo');
    expect(answer.headers.get('content-disposition')).toBe('attachment; filename="nota.txt"');
    expect(answer.headers.get('content-type')).toBe('application/octet-stream');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('content-length')).toBe(String(Buffer.byteLength('olá, arquivo')));
    const empty = await call('GET', `/api/files/download?path=${q('dl/docs/vazio.txt')}`);
    expect([empty.status, empty.bytes.length]).toEqual([200, 0]);
  });

  it('names an odd file safely in Content-Disposition and sends HTML as bytes to save', async () => {
    const answer = await call('GET', `/api/files/download?path=${q('dl/página "1".html')}`);
    expect(answer.status).toBe(200);
    // Latin-1 as it is (quotes escaped); beyond it an ASCII fallback and the RFC 5987 form.
    expect(answer.headers.get('content-disposition')).toBe('attachment; filename="página \\"1\\".html"');
    expect(answer.headers.get('content-type')).toBe('application/octet-stream');
    const beyond = await call('GET', `/api/files/download?path=${q('dl/relatório—final.md')}`);
    expect(beyond.headers.get('content-disposition')).toBe(
      `attachment; filename="relatório?final.md"; filename*=UTF-8''relat%C3%B3rio%E2%80%94final.md`,
    );
  });

  it('refuses symlinks, escapes, folders and missing files', async () => {
    for (const bad of ['dl/docs/segredo.txt', 'dl/fora/inside-outside.txt', '../files-outside/secret.key', secretFile]) {
      const answer = await call('GET', `/api/files/download?path=${q(bad)}`);
      expect([bad, answer.status, answer.body]).toEqual([bad, 400, { error: 'Caminho inválido' }]);
      expect(answer.bytes.toString('utf8')).not.toContain(SECRET);
    }
    expect(await call('GET', `/api/files/download?path=dl`)).toEqual(
      expect.objectContaining({ status: 400, body: { error: 'Caminho não é um arquivo' } }),
    );
    expect(await call('GET', `/api/files/download`)).toEqual(
      expect.objectContaining({ status: 400, body: { error: 'Caminho não é um arquivo' } }),
    );
    expect(await call('GET', `/api/files/download?path=dl/nada.txt`)).toEqual(
      expect.objectContaining({ status: 404, body: { error: 'Arquivo não encontrado' } }),
    );
  });

  it('streams a folder as <folder>.tar.gz: dot-files in, symlinks left out', async () => {
    const answer = await call('GET', `/api/files/download-folder?path=dl`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/gzip');
    expect(answer.headers.get('content-disposition')).toBe('attachment; filename="dl.tar.gz"');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    const entries = await untar(answer.bytes);
    expect(entries).toEqual([
      { name: 'dl/', type: 'directory' },
      { name: 'dl/.gitignore', type: 'file', content: 'node_modules' },
      { name: 'dl/docs/', type: 'directory' },
      { name: 'dl/docs/nota.txt', type: 'file', content: 'olá, arquivo' },
      { name: 'dl/docs/vazio.txt', type: 'file', content: '' },
      { name: 'dl/página "1".html', type: 'file', content: '<script>alert(1)</script>' },
      { name: 'dl/relatório—final.md', type: 'file', content: '# r' },
    ]);
    expect(answer.bytes.length).toBeGreaterThan(0);
  });

  it('names the whole area projetos.tar.gz and never puts a linked file in it', async () => {
    const answer = await call('GET', `/api/files/download-folder`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-disposition')).toBe('attachment; filename="projetos.tar.gz"');
    const entries = await untar(answer.bytes);
    expect(entries[0]).toEqual({ name: 'projetos/', type: 'directory' });
    expect(entries.map((entry) => entry.name)).toEqual(
      expect.arrayContaining(['projetos/alpha.json', 'projetos/dl/docs/nota.txt', 'projetos/loja/index.html']),
    );
    expect(entries.some((entry) => (entry.content ?? '').includes(SECRET))).toBe(false);
    expect(entries.some((entry) => /chave|segredo|atalho|fora/.test(entry.name))).toBe(false);
  });

  it('refuses a file, a missing folder, an escape and a linked folder', async () => {
    expect(await call('GET', `/api/files/download-folder?path=alpha.json`)).toEqual(
      expect.objectContaining({ status: 400, body: { error: 'Caminho não é um diretório' } }),
    );
    expect(await call('GET', `/api/files/download-folder?path=nada`)).toEqual(
      expect.objectContaining({ status: 404, body: { error: 'Diretório não encontrado' } }),
    );
    expect(await call('GET', `/api/files/download-folder?path=..`)).toEqual(
      expect.objectContaining({ status: 400, body: { error: 'Caminho inválido' } }),
    );
    expect(await call('GET', `/api/files/download-folder?path=dl/fora`)).toEqual(
      expect.objectContaining({ status: 400, body: { error: 'Caminho inválido' } }),
    );
  });
});

describe('a client that goes away mid-archive', () => {
  /** Descriptors of this process (the service's) open on something in the area. */
  function openInArea(): number {
    const real = fs.realpathSync(area);
    let count = 0;
    for (const fd of fs.readdirSync('/proc/self/fd')) {
      try {
        if (fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(`${real}/`)) count += 1;
      } catch {
        // Closed meanwhile.
      }
    }
    return count;
  }

  it('ends the walk and closes every file it opened', async () => {
    // Incompressible files, far more than the sockets buffer: the walk is still running when the client leaves.
    for (let i = 0; i < 8; i += 1) write(`grande/f${i}.bin`, randomBytesText(4 * 1024 * 1024));
    expect(openInArea()).toBe(0);
    const firstChunk = await new Promise<http.ClientRequest>((resolve, reject) => {
      const request = http.get(`${server.url}/api/files/download-folder?path=grande`, { agent: false }, (response) => {
        expect(response.statusCode).toBe(200);
        response.once('data', () => resolve(request));
      });
      request.on('error', reject);
    });
    // Mid-walk: the folder (and a file) are open.
    expect(openInArea()).toBeGreaterThan(0);
    firstChunk.destroy();
    await until(
      'the walk to close what it opened',
      async () => openInArea(),
      (count) => count === 0,
      30_000,
    );
    fs.rmSync(path.join(area, 'grande'), { recursive: true });
  });
});

describe('DELETE /api/files (row 65)', () => {
  it('deletes a file, then a folder with everything in it', async () => {
    write('apagar/a.txt', 'a');
    write('apagar/sub/b.txt', 'b');
    expect(await call('DELETE', `/api/files?path=${q('apagar/a.txt')}`)).toEqual(
      expect.objectContaining({ status: 200, body: { success: true } }),
    );
    expect(fs.existsSync(path.join(area, 'apagar/a.txt'))).toBe(false);
    expect(await call('DELETE', `/api/files?path=apagar`)).toEqual(expect.objectContaining({ status: 200, body: { success: true } }));
    expect(fs.existsSync(path.join(area, 'apagar'))).toBe(false);
  });

  it('refuses the root, escapes and nothing', async () => {
    for (const root of ['', '.', '/', '//']) {
      const answer = await call('DELETE', `/api/files?path=${q(root)}`);
      const expected = root.startsWith('/') ? 'Caminho inválido' : 'Não é permitido excluir o diretório raiz';
      expect([root, answer.status, answer.body]).toEqual([root, 400, { error: expected }]);
    }
    expect(await call('DELETE', '/api/files')).toEqual(
      expect.objectContaining({ status: 400, body: { error: 'Não é permitido excluir o diretório raiz' } }),
    );
    expect(await call('DELETE', `/api/files?path=${q('../files-outside')}`)).toEqual(
      expect.objectContaining({ status: 400, body: { error: 'Caminho inválido' } }),
    );
    expect(await call('DELETE', `/api/files?path=nada`)).toEqual(
      expect.objectContaining({ status: 404, body: { error: 'Arquivo ou pasta não encontrado' } }),
    );
    expect(await call('DELETE', `/api/files?path=${q('nada/x')}`)).toEqual(
      expect.objectContaining({ status: 404, body: { error: 'Arquivo ou pasta não encontrado' } }),
    );
    expect(fs.existsSync(area)).toBe(true);
  });

  it('removes a symlink, never what it points at, alone or inside a folder', async () => {
    fs.symlinkSync(secretFile, path.join(area, 'link-segredo'));
    expect(await call('DELETE', `/api/files?path=link-segredo`)).toEqual(expect.objectContaining({ status: 200, body: { success: true } }));
    expect(fs.existsSync(path.join(area, 'link-segredo'))).toBe(false);
    expect(fs.readFileSync(secretFile, 'utf8')).toBe(SECRET);

    write('com-links/ok.txt', 'ok');
    fs.symlinkSync(path.join(outside, 'dir'), path.join(area, 'com-links', 'fora'));
    fs.symlinkSync(secretFile, path.join(area, 'com-links', 'chave'));
    expect(await call('DELETE', `/api/files?path=com-links`)).toEqual(expect.objectContaining({ status: 200, body: { success: true } }));
    expect(fs.existsSync(path.join(area, 'com-links'))).toBe(false);
    expect(fs.readFileSync(secretFile, 'utf8')).toBe(SECRET);
    expect(fs.readFileSync(path.join(outside, 'dir', 'inside-outside.txt'), 'utf8')).toBe(SECRET);
  });

  it('refuses a path through a linked folder, leaving the outside untouched', async () => {
    fs.symlinkSync(path.join(outside, 'dir'), path.join(area, 'ponte'));
    expect(await call('DELETE', `/api/files?path=${q('ponte/inside-outside.txt')}`)).toEqual(
      expect.objectContaining({ status: 400, body: { error: 'Caminho inválido' } }),
    );
    expect(fs.readFileSync(path.join(outside, 'dir', 'inside-outside.txt'), 'utf8')).toBe(SECRET);
    fs.unlinkSync(path.join(area, 'ponte'));
  });
});

describe('POST /api/files/publish and /sites/ (row 66)', () => {
  beforeAll(() => {
    write('vitrine/index.html', '<!doctype html><title>Vitrine</title><h1>Vitrine</h1>');
    write('vitrine/css/site.css', 'h1{color:red}');
    write('vitrine/.env', 'TOKEN=segredo');
    write('vitrine/.git/config', '[core]');
    fs.symlinkSync(secretFile, path.join(area, 'vitrine', 'chave.txt'));
    fs.symlinkSync(path.join(outside, 'dir'), path.join(area, 'vitrine', 'fora'));
    fs.symlinkSync(path.join(outside, 'dir'), path.join(area, 'projeto-link'));
  });

  it('publishes a snapshot of the folder and serves it under /sites/<name>/, sandboxed', async () => {
    const answer = await call('POST', '/api/files/publish', { path: 'vitrine' });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      status: 'Publicado',
      siteUrl: `${server.url}/sites/vitrine/`,
      repoUrl: null,
      projectName: 'vitrine',
      message: expect.stringContaining(`${server.url}/sites/vitrine/`),
    });
    const page = await call('GET', '/sites/vitrine/');
    expect(page.status).toBe(200);
    expect(page.bytes.toString('utf8')).toContain('<h1>Vitrine</h1>');
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe('sandbox allow-scripts');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const css = await call('GET', '/sites/vitrine/css/site.css');
    expect([css.status, css.bytes.toString('utf8'), css.headers.get('content-type')]).toEqual([
      200,
      'h1{color:red}',
      'text/css; charset=utf-8',
    ]);
    const bare = await call('GET', '/sites/vitrine');
    expect([bare.status, bare.headers.get('location')]).toEqual([301, '/sites/vitrine/']);
  });

  it('publishes no dot-file and no symlink, and never serves the secret', async () => {
    for (const route of [
      '/sites/vitrine/.env',
      '/sites/vitrine/.git/config',
      '/sites/vitrine/chave.txt',
      '/sites/vitrine/fora/inside-outside.txt',
      '/sites/vitrine/../vitrine/index.html',
    ]) {
      const answer = await rawGet(route);
      expect([route, answer.status]).toEqual([route, 404]);
      expect(answer.text).not.toContain(SECRET);
    }
    const missing = await call('GET', '/sites/nenhum/');
    expect([missing.status, missing.headers.get('content-security-policy')]).toEqual([404, 'sandbox allow-scripts']);
  });

  it('serves the snapshot until published again', async () => {
    write('vitrine/index.html', '<h1>Nova</h1>');
    expect((await call('GET', '/sites/vitrine/')).bytes.toString('utf8')).toContain('Vitrine');
    expect((await call('POST', '/api/files/publish', { path: 'vitrine' })).status).toBe(200);
    expect((await call('GET', '/sites/vitrine/')).bytes.toString('utf8')).toBe('<h1>Nova</h1>');
  });

  it('publishes a folder whose name needs encoding in the URL', async () => {
    write('minha loja/index.html', '<p>ç</p>');
    const answer = await call('POST', '/api/files/publish', { path: 'minha loja' });
    expect([answer.status, answer.body.siteUrl, answer.body.projectName]).toEqual([200, `${server.url}/sites/minha%20loja/`, 'minha loja']);
    const page = await call('GET', '/sites/minha%20loja/');
    expect([page.status, page.bytes.toString('utf8')]).toEqual([200, '<p>ç</p>']);
    fs.rmSync(path.join(sitesDirectory(config.orchestration.dataDir), 'minha loja'), { recursive: true, force: true });
  });

  it("answers the contract's errors", async () => {
    const cases: Array<[unknown, number, string]> = [
      [{}, 400, 'path é obrigatório'],
      [{ path: '' }, 400, 'path é obrigatório'],
      [{ path: '../x' }, 400, 'Caminho inválido'],
      [{ path: 'vitrine/css' }, 400, 'Caminho inválido'],
      [{ path: '/etc' }, 400, 'Caminho inválido'],
      [{ path: 'projeto-link' }, 400, 'Caminho inválido'],
      [{ path: 'alpha.json' }, 400, 'Caminho não é uma pasta'],
      [{ path: 'nenhum' }, 404, 'Projeto não encontrado'],
    ];
    for (const [body, status, error] of cases) {
      const answer = await call('POST', '/api/files/publish', body);
      expect([body, answer.status, answer.body]).toEqual([body, status, { error }]);
    }
    expect((await call('GET', '/sites/projeto-link/inside-outside.txt')).status).toBe(404);
  });
});

describe('symlinks swapped in while requests run', () => {
  it('never reaches outside, however a folder and a link to the outside are swapped meanwhile', async () => {
    write('corrida/real/x.txt', 'dentro');
    fs.writeFileSync(path.join(outside, 'dir', 'x.txt'), SECRET);
    fs.symlinkSync(path.join(outside, 'dir'), path.join(area, 'corrida', 'link'));
    // Another process swaps `corrida/cur` between the real folder and the link, as fast as it can.
    // Each request meets the folder (200 with its own file), the link (400) or neither (404), and
    // never the outside. (Without the kernel-path check of area.ts, this test reads the secret.)
    const dir = path.join(area, 'corrida');
    const swapper = spawn(
      process.execPath,
      [
        '-e',
        `
      const fs = require('node:fs');
      const at = (name) => require('node:path').join(${JSON.stringify(dir)}, name);
      for (;;) {
        fs.renameSync(at('real'), at('cur')); fs.renameSync(at('cur'), at('real'));
        fs.renameSync(at('link'), at('cur')); fs.renameSync(at('cur'), at('link'));
      }`,
      ],
      { stdio: 'ignore' },
    );
    try {
      for (let i = 0; i < 150; i += 1) {
        const download = await call('GET', `/api/files/download?path=${q('corrida/cur/x.txt')}`);
        const listing = await call('GET', `/api/files?path=${q('corrida/cur')}`);
        const archive = await call('GET', `/api/files/download-folder?path=${q('corrida/cur')}`);
        expect(download.bytes.toString('utf8')).not.toContain(SECRET);
        if (download.status === 200) expect(download.bytes.toString('utf8')).toBe('dentro');
        if (listing.status === 200) expect(listing.body.entries.map((entry: any) => entry.name)).toEqual(['x.txt']);
        if (archive.status === 200) {
          const entries = await untar(archive.bytes).catch(() => []);
          expect(entries.some((entry) => (entry.content ?? '').includes(SECRET))).toBe(false);
        }
      }
    } finally {
      swapper.kill('SIGKILL');
    }
    expect(fs.readFileSync(path.join(outside, 'dir', 'x.txt'), 'utf8')).toBe(SECRET);
  });

  it('deletes a folder whose subfolder is swapped for a link to the outside meanwhile, never the outside', async () => {
    fs.writeFileSync(path.join(outside, 'dir', 'y.txt'), SECRET);
    const swapper = spawn(
      process.execPath,
      [
        '-e',
        `
      const fs = require('node:fs');
      const at = (name) => require('node:path').join(${JSON.stringify(area)}, 'vitima', name);
      for (;;) {
        try { fs.renameSync(at('real'), at('cur')); fs.renameSync(at('cur'), at('real')); } catch {}
        try { fs.renameSync(at('link'), at('cur')); fs.renameSync(at('cur'), at('link')); } catch {}
      }`,
      ],
      { stdio: 'ignore' },
    );
    try {
      for (let i = 0; i < 40; i += 1) {
        if (!fs.existsSync(path.join(area, 'vitima'))) {
          // Built aside, then moved in whole: the swapper renames inside it at once.
          fs.rmSync(path.join(area, 'nova'), { recursive: true, force: true });
          write('nova/real/a/y.txt', 'dentro');
          fs.symlinkSync(path.join(outside, 'dir'), path.join(area, 'nova', 'link'));
          fs.renameSync(path.join(area, 'nova'), path.join(area, 'vitima'));
        }
        const answer = await call('DELETE', `/api/files?path=vitima`);
        // Deleted, or refused because it changed under the walk (409): never anything else.
        expect([200, 409]).toContain(answer.status);
        expect(fs.readFileSync(path.join(outside, 'dir', 'y.txt'), 'utf8')).toBe(SECRET);
      }
    } finally {
      swapper.kill('SIGKILL');
    }
    fs.rmSync(path.join(area, 'vitima'), { recursive: true, force: true });
    expect(fs.readdirSync(path.join(outside, 'dir')).sort()).toEqual(['inside-outside.txt', 'x.txt', 'y.txt']);
  });

  it('refuses a link even when it leads to a folder inside the area', async () => {
    fs.symlinkSync(path.join(area, 'loja'), path.join(area, 'apelido'));
    expect(await call('GET', `/api/files?path=${q('apelido/css')}`)).toEqual(
      expect.objectContaining({ status: 400, body: { error: 'Caminho inválido' } }),
    );
    expect(await call('GET', `/api/files/download?path=${q('apelido/index.html')}`)).toEqual(
      expect.objectContaining({ status: 400, body: { error: 'Caminho inválido' } }),
    );
  });
});
