import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RowDataPacket } from 'mysql2/promise';
import { createDatabase, type DatabaseHandle } from '../../db';
import { SETTINGS_ROW } from '../../db/execution-settings';
import { config } from '../../lib/config';
import { confineWorkingDirectory, WorkingDirectoryError } from '../../lib/working-directories';
import { jsonCall } from '../support/json-api';
import { startTestServer, type TestServer } from '../support/server';

/**
 * Working directories confined to the allowed roots (docs/agents.md, "Working directories"): the
 * check with real symlinks in a temporary area, then every route that takes a working directory,
 * with the default roots (the projects area /home/projetos).
 */

/** Every path under `dir`, for "nothing was created" (symlinks listed, not followed). */
function tree(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

describe('confineWorkingDirectory against the file system', () => {
  const area = fs.mkdtempSync(path.join(os.tmpdir(), 'workdirs-'));
  const root = path.join(area, 'root');
  const other = path.join(area, 'other-root');
  const outside = path.join(area, 'outside');
  const roots = [root, other];

  beforeAll(() => {
    for (const dir of [root, other, outside, path.join(root, 'app', 'src')]) fs.mkdirSync(dir, { recursive: true });
    fs.symlinkSync('/etc', path.join(root, 'to-etc'));
    fs.symlinkSync(outside, path.join(root, 'to-outside'));
    fs.symlinkSync(path.join(root, 'app'), path.join(root, 'to-app'));
    fs.symlinkSync(other, path.join(root, 'to-other-root'));
    fs.symlinkSync(path.join(area, 'missing'), path.join(root, 'dangling'));
    fs.symlinkSync(path.join(root, 'loop'), path.join(root, 'loop'));
    fs.symlinkSync('app/../../outside', path.join(root, 'relative-escape'));
    fs.writeFileSync(path.join(root, 'a-file'), 'x');
    // A root that is itself a symlink (e.g. /home/projetos -> /srv/projetos): it is resolved too.
    fs.symlinkSync(outside, path.join(area, 'linked-root'));
  });

  afterAll(() => fs.rmSync(area, { recursive: true, force: true }));

  it.each([
    ['the root itself', '', ''],
    ['the root with a trailing slash', '/', ''],
    ['an existing directory', '/app/src', '/app/src'],
    ['a directory still to be made', '/new/deeper', '/new/deeper'],
    ['a symlink that stays inside the root', '/to-app/src/more', '/to-app/src/more'],
    ['a symlink into another root', '/to-other-root/x', '/to-other-root/x'],
    ['duplicate slashes and "." segments', '//app/./src//', '/app/src'],
  ])('accepts %s, normalised as written', async (_case, suffix, expected) => {
    await expect(confineWorkingDirectory(root + suffix, roots)).resolves.toBe(root + expected);
  });

  it.each([
    ['a symlink to /etc', '/to-etc', 'through a symbolic link (to "/etc")'],
    ['a path below a symlink to /etc', '/to-etc/new-dir', 'through a symbolic link (to "/etc/new-dir")'],
    ['a symlink to a directory outside', '/to-outside/x', 'leads outside the allowed roots'],
    ['a relative symlink climbing out', '/relative-escape', 'leads outside the allowed roots'],
    ['a symlink that leads nowhere', '/dangling/x', 'is a symbolic link that leads nowhere (ENOENT)'],
    ['a symlink loop', '/loop/x', 'is a symbolic link that leads nowhere (ELOOP)'],
    ['a file', '/a-file', 'exists and is not a directory'],
    ['a path through a file', '/a-file/x', 'exists and is not a directory'],
    ['".."', '/app/../../outside', 'must not contain ".."'],
  ])('refuses %s and creates nothing', async (_case, suffix, message) => {
    const before = tree(area);
    const refusal = confineWorkingDirectory(root + suffix, roots);
    await expect(refusal).rejects.toBeInstanceOf(WorkingDirectoryError);
    await expect(refusal).rejects.toThrow(message);
    expect(tree(area)).toEqual(before);
    expect(fs.existsSync('/etc/new-dir')).toBe(false);
  });

  it('refuses a path outside every root, and a relative one (never resolved against the cwd)', async () => {
    await expect(confineWorkingDirectory(outside, roots)).rejects.toThrow(
      `the working directory "${outside}" is outside the allowed roots`,
    );
    await expect(confineWorkingDirectory(`${root}-sibling`, roots)).rejects.toThrow('is outside the allowed roots');
    process.chdir(root);
    try {
      await expect(confineWorkingDirectory('app', roots)).rejects.toThrow('the working directory must be an absolute path (got "app")');
    } finally {
      process.chdir(path.resolve(__dirname, '../..'));
    }
  });

  it('resolves a root that is itself a symlink', async () => {
    const linkedRoot = path.join(area, 'linked-root');
    await expect(confineWorkingDirectory(path.join(linkedRoot, 'x'), [linkedRoot])).resolves.toBe(path.join(linkedRoot, 'x'));
    fs.mkdirSync(path.join(outside, 'inner'));
    fs.symlinkSync(root, path.join(outside, 'inner', 'back'));
    // Inside the linked root as written, but the symlink leads to a directory outside its real path.
    await expect(confineWorkingDirectory(path.join(linkedRoot, 'inner', 'back'), [linkedRoot])).rejects.toThrow(
      'leads outside the allowed roots',
    );
  });
});

describe('the API refuses working directories outside the roots (400, nothing created or stored)', () => {
  const projects = config.orchestration.workdirRoots[0]!;
  const unique = `wd-test-${process.pid}-${Date.now()}`;
  const link = path.join(projects, `${unique}-link`);
  const etcTarget = `/etc/${unique}`;
  let server: TestServer;
  let database: DatabaseHandle;
  let agentId: string;

  beforeAll(async () => {
    expect(config.orchestration.workdirRoots).toEqual(['/home/projetos']);
    // The projects area is the worker's to create; tests run as root and may make it to hold a symlink.
    fs.mkdirSync(projects, { recursive: true });
    fs.symlinkSync('/etc', link);
    database = createDatabase(config.mysql);
    server = await startTestServer();
    const created = await call('POST', '/api/agents', {
      agent_name: `Workdir ${unique}`,
      config: { workingDirectory: `${projects}/${unique}` },
    });
    expect(created.status).toBe(201);
    agentId = created.body.id;
  });

  afterAll(async () => {
    fs.rmSync(link, { force: true });
    if (agentId) await call('DELETE', `/api/agents/${agentId}`).catch(() => undefined);
    await server?.close();
    await database?.pool.end();
  });

  const call = (method: string, urlPath: string, body?: unknown) => jsonCall(server.url, method, urlPath, body);

  async function count(table: 'agents' | 'agent_versions' | 'executions'): Promise<number> {
    const [rows] = await database.pool.query<RowDataPacket[]>(`SELECT COUNT(*) AS n FROM ${table}`);
    return Number(rows[0]?.n);
  }

  async function storedSettings(): Promise<unknown> {
    const [rows] = await database.pool.query<RowDataPacket[]>('SELECT value FROM settings WHERE name = ?', [SETTINGS_ROW]);
    const value: unknown = rows[0]?.value ?? null;
    // MariaDB's JSON is a text column: the driver hands it as a string.
    return typeof value === 'string' ? JSON.parse(value) : value;
  }

  /** The requests of the cases; `/etc/<name>` answered 202 and created the directory before. */
  const refused: Array<[string, string, string]> = [
    ['/etc/<name>', etcTarget, `O diretório de trabalho "${etcTarget}" está fora dos diretórios permitidos (/home/projetos)`],
    [
      '".." out of the projects area',
      `/home/projetos/../../etc/${unique}`,
      `O diretório de trabalho não pode conter ".." (recebido "/home/projetos/../../etc/${unique}")`,
    ],
    ['a relative path', `${unique}/app`, `O diretório de trabalho deve ser um caminho absoluto (recebido "${unique}/app")`],
    [
      'a symlink inside the projects area pointing at /etc',
      `${link}/${unique}`,
      `O diretório de trabalho "${link}/${unique}" leva para fora dos diretórios permitidos (/home/projetos) por um link simbólico (para "${etcTarget}")`,
    ],
  ];

  /** Asserts the refusal, then that nothing was made in /etc nor stored in any table. */
  async function expectRefused(request: () => Promise<{ status: number; body: any }>, field: string, message: string): Promise<void> {
    const before = {
      agents: await count('agents'),
      versions: await count('agent_versions'),
      executions: await count('executions'),
      settings: await storedSettings(),
    };
    const agent = (await call('GET', `/api/agents/${agentId}`)).body;
    const answer = await request();
    expect(answer).toEqual({ status: 400, body: { error: `${field}: ${message}` } });
    expect(fs.existsSync(etcTarget)).toBe(false);
    expect(fs.existsSync(path.join(projects, unique))).toBe(false);
    expect({
      agents: await count('agents'),
      versions: await count('agent_versions'),
      executions: await count('executions'),
      settings: await storedSettings(),
    }).toEqual(before);
    expect((await call('GET', `/api/agents/${agentId}`)).body).toEqual(agent);
  }

  it.each(refused)('POST /api/agents with %s', async (_case, workingDirectory, message) => {
    await expectRefused(
      () => call('POST', '/api/agents', { agent_name: `Refused ${unique}`, config: { workingDirectory } }),
      'body.config.workingDirectory',
      message,
    );
  });

  it.each(refused)('PUT /api/agents/{id} with %s', async (_case, workingDirectory, message) => {
    await expectRefused(
      () => call('PUT', `/api/agents/${agentId}`, { config: { workingDirectory } }),
      'body.config.workingDirectory',
      message,
    );
  });

  it.each(refused)('POST /api/agents/import with %s', async (_case, workingDirectory, message) => {
    // What GET /agents/{id}/export answers (the panel's shape); the former file format is refused alike (body.agent.workingDirectory).
    const file = { agent_name: `Imported ${unique}`, config: { workingDirectory } };
    await expectRefused(() => call('POST', '/api/agents/import', file), 'body.config.workingDirectory', message);
  });

  it.each(refused)('POST /api/agents/{id}/execute with %s', async (_case, workingDirectory, message) => {
    // Syntax is the body's; the roots are checked on the directory the run would use.
    const field = message.includes('diretórios permitidos') ? 'workingDirectory' : 'body.workingDirectory';
    await expectRefused(() => call('POST', `/api/agents/${agentId}/execute`, { task: 'x', workingDirectory }), field, message);
  });

  it.each(refused)('PUT /api/settings with %s', async (_case, workingDirectory, message) => {
    await expectRefused(
      () => call('PUT', '/api/settings', { workingDirectory, maxConcurrentExecutions: 3 }),
      'body.workingDirectory',
      message,
    );
  });

  it("accepts the panel's prefilled /home/projetos/ (the root itself) and an empty field (the settings' default)", async () => {
    const prefilled = await call('POST', '/api/agents', {
      agent_name: `Prefilled ${unique}`,
      config: { workingDirectory: '/home/projetos/' },
    });
    expect(prefilled).toMatchObject({ status: 201, body: { config: { workingDirectory: '/home/projetos' } } });
    // '' is the settings' directory: stored null, answered '' (docs/agents.md).
    const empty = await call('PUT', `/api/agents/${prefilled.body.id}`, { config: { workingDirectory: '' } });
    expect(empty).toMatchObject({ status: 200, body: { config: { workingDirectory: '' } } });
    await call('DELETE', `/api/agents/${prefilled.body.id}`);
    const settings = await call('PUT', '/api/settings', { defaultWorkdir: '/home/projetos/' });
    expect(settings).toMatchObject({ status: 200, body: { defaultWorkdir: '/home/projetos' } });
  });

  it('ignores a stored default working directory outside the roots: the projects area is used, and the next update rewrites it', async () => {
    const saved = await storedSettings();
    try {
      // As stored before the roots existed: the old default inside the data directory.
      const legacy = {
        defaultModel: 'sonnet',
        workingDirectory: path.join(config.orchestration.dataDir, 'projects'),
        maxConcurrentExecutions: 4,
      };
      await database.pool.query('INSERT INTO settings (name, value) VALUES (?, ?) ON DUPLICATE KEY UPDATE value = VALUES(value)', [
        SETTINGS_ROW,
        JSON.stringify(legacy),
      ]);
      // Answered under the panel's names (services/settings.ts).
      expect(await call('GET', '/api/settings')).toEqual({
        status: 200,
        body: { defaultModel: 'sonnet', defaultWorkdir: '/home/projetos', maxConcurrent: 4, dailyBudgetUsd: null },
      });
      expect((await call('PUT', '/api/settings', { maxConcurrent: 3 })).body).toEqual({
        defaultModel: 'sonnet',
        defaultWorkdir: '/home/projetos',
        maxConcurrent: 3,
        dailyBudgetUsd: null,
      });
      expect(await storedSettings()).toEqual({
        ...legacy,
        workingDirectory: '/home/projetos',
        maxConcurrentExecutions: 3,
        dailyBudgetUsd: null,
      });
    } finally {
      await database.pool.query('DELETE FROM settings WHERE name = ?', [SETTINGS_ROW]);
      if (saved) await database.pool.query('INSERT INTO settings (name, value) VALUES (?, ?)', [SETTINGS_ROW, JSON.stringify(saved)]);
    }
  });

  it('refuses to run an agent whose stored working directory leads out (stored before the roots existed)', async () => {
    const created = await call('POST', '/api/agents', { agent_name: `Legacy ${unique}` });
    try {
      await database.pool.query('UPDATE agents SET working_directory = ? WHERE id = ?', [etcTarget, created.body.id]);
      const before = await count('executions');
      expect(await call('POST', `/api/agents/${created.body.id}/execute`, { task: 'x' })).toEqual({
        status: 400,
        body: { error: `workingDirectory: O diretório de trabalho "${etcTarget}" está fora dos diretórios permitidos (/home/projetos)` },
      });
      expect(await count('executions')).toBe(before);
      expect(fs.existsSync(etcTarget)).toBe(false);
    } finally {
      await call('DELETE', `/api/agents/${created.body.id}`);
    }
  });
});
