import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeExecutionReport, type ReportRecord } from '../../db/reports-store';
import { createDatabase, type DatabaseHandle } from '../../db';
import { readExecutionSettings, SETTINGS_ROW } from '../../db/execution-settings';
import { countActiveExecutions, createExecution } from '../../db/executions-store';
import { raiseNotification } from '../../db/notifications-store';
import { config } from '../../lib/config';
import { listReports, REPORTS_LISTED } from '../../services/reports';
import { jsonCall, rawPathCall } from '../support/json-api';
import { startTestServer, type TestServer } from '../support/server';

let server: TestServer;
let database: DatabaseHandle;
const { dataDir, reportsDir } = config.orchestration;
const dataReports = path.join(dataDir, 'reports');
/** What the service keeps (REPORTS_KEPT, NOTIFICATIONS_KEPT): far more than these tests write. */
const KEPT = config.orchestration.limits;

const call = (method: string, path: string, body?: unknown) => jsonCall(server.url, method, path, body);
const rawCall = (method: string, rawPath: string) => rawPathCall(server.url, method, rawPath);

const record = (overrides: Partial<ReportRecord> = {}): ReportRecord => ({
  id: '0f1e2d3c-4b5a-4678-9abc-def012345678',
  kind: 'agent',
  agentName: 'Revisor de Código',
  status: 'completed',
  source: 'manual',
  model: 'sonnet',
  workingDirectory: '/srv/work',
  sessionId: 'sess-42',
  costUsd: 0.25,
  durationMs: 90_500,
  turns: 4,
  task: 'Review the parser',
  instructions: 'Be brief',
  output: 'All good',
  outputTruncated: false,
  error: null,
  createdAt: new Date('2026-03-04T05:06:07.890Z'),
  startedAt: new Date('2026-03-04T05:06:08.000Z'),
  finishedAt: new Date('2026-03-04T05:07:38.500Z'),
  ...overrides,
});

beforeAll(async () => {
  // The test data area (.data/test, test/test-env.ts): start from no reports.
  fs.rmSync(dataReports, { recursive: true, force: true });
  fs.rmSync(reportsDir, { recursive: true, force: true });
  database = createDatabase(config.mysql);
  await database.pool.query('DELETE FROM notifications');
  await database.pool.query('DELETE FROM settings WHERE name = ?', [SETTINGS_ROW]);
  server = await startTestServer();
});

afterAll(async () => {
  await server?.close();
  await database?.pool.end();
});

describe('reports', () => {
  const first = '2026-03-04_050607_revisor-de-codigo_0f1e2d3c.md';
  const second = '2026-03-05_000000_doc-writer_99999999.md';

  it('writes the same Markdown in the data area and in the external reports directory', async () => {
    // Two places, the external one apart from the data area (the tests' `.reports/<area>`, as the service's `.reports`).
    expect(path.relative(dataDir, reportsDir).startsWith('..')).toBe(true);
    expect(await writeExecutionReport(record(), { dataDir, reportsDir }, KEPT.reports)).toBe(first);
    const inData = fs.readFileSync(path.join(dataReports, first), 'utf8');
    expect(fs.readFileSync(path.join(reportsDir, first), 'utf8')).toBe(inData);
    expect(inData).toContain('# Execução de agente: Revisor de Código\n');
    expect(inData).toContain('| Sessão | sess-42 |');
    // Written again (a retried activity): the same file, no temporary left behind.
    await writeExecutionReport(record(), { dataDir, reportsDir }, KEPT.reports);
    expect(fs.readdirSync(dataReports)).toEqual([first]);
    expect(fs.readdirSync(reportsDir)).toEqual([first]);
  });

  it('lists names newest first (row 69), reads {filename, content} (row 70), deletes the data-area copy only (row 71)', async () => {
    await writeExecutionReport(
      record({ id: '99999999-0000-4000-8000-000000000000', agentName: 'Doc Writer', createdAt: new Date('2026-03-05T00:00:00.000Z') }),
      { dataDir, reportsDir },
      KEPT.reports,
    );
    fs.writeFileSync(path.join(dataReports, 'notes.txt'), 'not a report');

    const list = await call('GET', '/api/reports');
    expect(list.status).toBe(200);
    // Contract 3.16: a bare array of file names, newest first; other files of the directory are not reports.
    expect(list.body).toEqual([second, first]);

    // What App._openReport reads: `content`, the Markdown as stored.
    const read = await call('GET', `/api/reports/${encodeURIComponent(first)}`);
    expect(read.status).toBe(200);
    expect(read.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(read.body).toEqual({ filename: first, content: fs.readFileSync(path.join(dataReports, first), 'utf8') });
    expect(read.body.content).toContain('# Execução de agente: Revisor de Código\n');

    expect(await call('DELETE', `/api/reports/${second}`)).toEqual(expect.objectContaining({ status: 200, body: { success: true } }));
    expect(fs.existsSync(path.join(dataReports, second))).toBe(false);
    expect(fs.existsSync(path.join(reportsDir, second))).toBe(true);
    expect(await call('DELETE', `/api/reports/${second}`)).toMatchObject({
      status: 404,
      body: { error: `Relatório não encontrado: ${second}` },
    });
    expect(await call('GET', `/api/reports/${second}`)).toMatchObject({
      status: 404,
      body: { error: `Relatório não encontrado: ${second}` },
    });
  });

  it.each([
    '..%2F..%2Fetc%2Fpasswd',
    '%2e%2e',
    '..',
    '%2E%2E%5C%2E%2E%5Cwindows',
    '%2e%2e%2f%2e%2e%2fpackage.json',
    '..%5C..%5Cpackage.json',
    'a%5Cb.md',
    '2026-03-04_050607_revisor-de-codigo_0f1e2d3c.md%00.txt',
    '..%2Freports%2F2026-03-04_050607_revisor-de-codigo_0f1e2d3c.md',
    'notes.txt',
    '2026-03-04_050607_Revisor_0f1e2d3c.md',
  ])('refuses the name %s with 400 on read and delete, touching nothing', async (name) => {
    const read = await rawCall('GET', `/api/reports/${name}`);
    expect(read).toEqual({
      status: 400,
      body: { error: 'Nome de arquivo de relatório inválido (esperado AAAA-MM-DD_HHMMSS_<slug-do-agente>_<8 hex>.md)' },
    });
    expect((await rawCall('DELETE', `/api/reports/${name}`)).status).toBe(400);
    expect(fs.existsSync(path.join(dataReports, first))).toBe(true);
    expect(fs.existsSync(path.join(dataReports, 'notes.txt'))).toBe(true);
  });

  it('lists at most the newest 100 names (contract 3.16)', async () => {
    // The use case the route calls, on a data area of its own (the served one holds this file's reports).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reports-listed-'));
    try {
      fs.mkdirSync(path.join(dir, 'reports'));
      const names = Array.from({ length: 101 }, (_, i) => `2026-01-01_${String(i).padStart(6, '0')}_agent_0000000${i % 10}.md`);
      for (const name of names) fs.writeFileSync(path.join(dir, 'reports', name), name);
      expect(REPORTS_LISTED).toBe(100);
      expect(await listReports({ dataDir: dir })).toEqual(names.slice(1).reverse());
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('notifications', () => {
  it('lists {notifications, unreadCount} newest first with the fields the panel reads (row 44), paginated', async () => {
    const old = await raiseNotification(
      database.db,
      {
        kind: 'execution.completed',
        title: 'Done',
        message: 'Reviewer finished',
        executionId: 'e-1',
        createdAt: new Date('2026-01-01T00:00:00.000Z'),
      },
      KEPT.notifications,
    );
    const middle = await raiseNotification(
      database.db,
      { kind: 'execution.error', title: 'Failed', message: 'exit 1', createdAt: new Date('2026-01-02T00:00:00.000Z') },
      KEPT.notifications,
    );
    const newest = await raiseNotification(
      database.db,
      { kind: 'execution.canceled', title: 'Cancelled', message: 'by the user', createdAt: new Date('2026-01-03T00:00:00.000Z') },
      KEPT.notifications,
    );

    const all = await call('GET', '/api/notifications');
    expect(all.status).toBe(200);
    expect(all.body).toEqual({
      notifications: [
        {
          id: newest.id,
          type: 'info',
          kind: 'execution.canceled',
          title: 'Cancelled',
          message: 'by the user',
          executionId: null,
          read: false,
          createdAt: '2026-01-03T00:00:00.000Z',
        },
        {
          id: middle.id,
          type: 'error',
          kind: 'execution.error',
          title: 'Failed',
          message: 'exit 1',
          executionId: null,
          read: false,
          createdAt: '2026-01-02T00:00:00.000Z',
        },
        {
          id: old.id,
          type: 'success',
          kind: 'execution.completed',
          title: 'Done',
          message: 'Reviewer finished',
          executionId: 'e-1',
          read: false,
          createdAt: '2026-01-01T00:00:00.000Z',
        },
      ],
      unreadCount: 3,
      total: 3,
      page: 1,
      pageSize: 50,
      totalPages: 1,
    });

    const second = await call('GET', '/api/notifications?page=2&pageSize=2');
    expect(second.body).toMatchObject({ unreadCount: 3, total: 3, page: 2, pageSize: 2, totalPages: 2 });
    expect(second.body.notifications.map((n: { id: string }) => n.id)).toEqual([old.id]);
    expect((await call('GET', '/api/notifications?pageSize=101')).status).toBe(400);
    await database.pool.query('DELETE FROM notifications');
  });

  it('marks one read with 200 {success:true} (row 45), 404 {error} for an unknown id', async () => {
    const one = await raiseNotification(
      database.db,
      { kind: 'execution.completed', title: 'A', message: 'a', createdAt: new Date('2026-01-01T00:00:00.000Z') },
      KEPT.notifications,
    );
    const other = await raiseNotification(
      database.db,
      { kind: 'execution.error', title: 'B', message: 'b', createdAt: new Date('2026-01-02T00:00:00.000Z') },
      KEPT.notifications,
    );
    expect(await call('POST', `/api/notifications/${one.id}/read`)).toMatchObject({ status: 200, body: { success: true } });
    // Again is fine.
    expect(await call('POST', `/api/notifications/${one.id}/read`)).toMatchObject({ status: 200, body: { success: true } });
    expect(await call('POST', '/api/notifications/no-such-id/read')).toMatchObject({
      status: 404,
      body: { error: 'Notificação não encontrada: no-such-id' },
    });
    const after = await call('GET', '/api/notifications');
    expect(after.body.unreadCount).toBe(1);
    expect(after.body.notifications.map((n: { id: string; read: boolean }) => [n.id, n.read])).toEqual([
      [other.id, false],
      [one.id, true],
    ]);
    await database.pool.query('DELETE FROM notifications');
  });

  it('marks all read with 200 {success:true, updated} (row 46)', async () => {
    for (const day of [1, 2, 3]) {
      await raiseNotification(
        database.db,
        { kind: 'execution.completed', title: `D${day}`, message: 'm', createdAt: new Date(`2026-01-0${day}T00:00:00.000Z`) },
        KEPT.notifications,
      );
    }
    const [first] = (await call('GET', '/api/notifications')).body.notifications;
    await call('POST', `/api/notifications/${first.id}/read`);
    expect(await call('POST', '/api/notifications/read-all')).toMatchObject({ status: 200, body: { success: true, updated: 2 } });
    const after = await call('GET', '/api/notifications');
    expect(after.body.unreadCount).toBe(0);
    expect(after.body.notifications.map((n: { read: boolean }) => n.read)).toEqual([true, true, true]);
    expect(await call('POST', '/api/notifications/read-all')).toMatchObject({ status: 200, body: { success: true, updated: 0 } });
    await database.pool.query('DELETE FROM notifications');
  });

  it('clears all with 200 {success:true, deleted} (row 47)', async () => {
    await raiseNotification(database.db, { kind: 'execution.completed', title: 'A', message: 'a' }, KEPT.notifications);
    await raiseNotification(database.db, { kind: 'execution.error', title: 'B', message: 'b' }, KEPT.notifications);
    expect(await call('DELETE', '/api/notifications')).toMatchObject({ status: 200, body: { success: true, deleted: 2 } });
    expect((await call('GET', '/api/notifications')).body).toEqual({
      notifications: [],
      unreadCount: 0,
      total: 0,
      page: 1,
      pageSize: 50,
      totalPages: 0,
    });
  });

  it('serves rows stored before the contract (no type column): the type comes from the stored kind', async () => {
    await database.pool.query(
      "INSERT INTO notifications (id, kind, title, message, execution_id, `read`, created_at) VALUES ('legacy-0001', 'execution.error', 'Old', 'stored earlier', NULL, 1, '2025-12-31 23:59:59.000')",
    );
    expect((await call('GET', '/api/notifications')).body.notifications).toEqual([
      {
        id: 'legacy-0001',
        type: 'error',
        kind: 'execution.error',
        title: 'Old',
        message: 'stored earlier',
        executionId: null,
        read: true,
        createdAt: '2025-12-31T23:59:59.000Z',
      },
    ]);
    await database.pool.query('DELETE FROM notifications');
  });
});

describe('settings', () => {
  // The panel's names (contract 3.12). The default working directory is the first allowed root (AGENT_WORKDIR_ROOTS).
  // No global daily budget by default (docs/budgets.md).
  const defaults = { defaultModel: 'claude-sonnet-4-6', defaultWorkdir: '/home/projetos', maxConcurrent: 5, dailyBudgetUsd: null };

  it('answers the defaults, stores a partial update and reads it back (also for the workflow)', async () => {
    const initial = await call('GET', '/api/settings');
    expect([initial.status, initial.body]).toEqual([200, defaults]);
    const updated = await call('PUT', '/api/settings', { maxConcurrent: 4, defaultWorkdir: '/home/projetos/agents/' });
    expect([updated.status, updated.body]).toEqual([200, { ...defaults, maxConcurrent: 4, defaultWorkdir: '/home/projetos/agents' }]);
    expect((await call('GET', '/api/settings')).body).toEqual(updated.body);
    // Stored under its own names: what the execution workflow reads for the slot limit and defaults.
    expect(await readExecutionSettings(database.db, config.orchestration.workdirRoots)).toEqual({
      defaultModel: 'claude-sonnet-4-6',
      workingDirectory: '/home/projetos/agents',
      maxConcurrentExecutions: 4,
      dailyBudgetUsd: null,
    });
    const model = await call('PUT', '/api/settings', { defaultModel: 'claude-opus-4-1' });
    expect(model.body).toEqual({ ...updated.body, defaultModel: 'claude-opus-4-1' });
  });

  it("takes the panel's whole save body; an empty working directory is the default root", async () => {
    const saved = await call('PUT', '/api/settings', { defaultModel: 'claude-sonnet-4-6', defaultWorkdir: '', maxConcurrent: 7 });
    expect([saved.status, saved.body]).toEqual([
      200,
      { defaultModel: 'claude-sonnet-4-6', defaultWorkdir: '/home/projetos', maxConcurrent: 7, dailyBudgetUsd: null },
    ]);
    expect((await readExecutionSettings(database.db, config.orchestration.workdirRoots)).maxConcurrentExecutions).toBe(7);
  });

  it('still reads a row stored under the old names, and accepts the old names from older clients', async () => {
    await database.pool.query('INSERT INTO settings (name, value) VALUES (?, ?) ON DUPLICATE KEY UPDATE value = VALUES(value)', [
      SETTINGS_ROW,
      JSON.stringify({ defaultModel: 'opus', workingDirectory: '/home/projetos/old', maxConcurrentExecutions: 4 }),
    ]);
    expect((await call('GET', '/api/settings')).body).toEqual({
      defaultModel: 'opus',
      defaultWorkdir: '/home/projetos/old',
      maxConcurrent: 4,
      dailyBudgetUsd: null,
    });
    const legacy = await call('PUT', '/api/settings', { maxConcurrentExecutions: 3, workingDirectory: '/home/projetos/' });
    expect([legacy.status, legacy.body]).toEqual([
      200,
      { defaultModel: 'opus', defaultWorkdir: '/home/projetos', maxConcurrent: 3, dailyBudgetUsd: null },
    ]);
  });

  it.each([
    [{ maxConcurrent: 0 }, /^body\.maxConcurrent: /],
    [{ maxConcurrent: 21 }, /^body\.maxConcurrent: /],
    [{ maxConcurrent: 2.5 }, /^body\.maxConcurrent: /],
    [{ maxConcurrent: '3' }, /^body\.maxConcurrent: /],
    [{ maxConcurrentExecutions: 21 }, /^body\.maxConcurrentExecutions: /],
    [
      { defaultWorkdir: 'relative/dir' },
      /^body\.defaultWorkdir: O diretório de trabalho deve ser um caminho absoluto \(recebido "relative\/dir"\)$/,
    ],
    [
      { defaultWorkdir: '/etc/agents' },
      /^body\.defaultWorkdir: O diretório de trabalho "\/etc\/agents" está fora dos diretórios permitidos \(\/home\/projetos\)$/,
    ],
    [
      { workingDirectory: '/etc/agents' },
      /^body\.workingDirectory: O diretório de trabalho "\/etc\/agents" está fora dos diretórios permitidos \(\/home\/projetos\)$/,
    ],
    [
      { defaultModel: '--dangerous' },
      /^body\.defaultModel: Deve ser um nome de modelo: letras, dígitos e \. _ : \/ @ \[ \] - \(no máximo 100\)$/,
    ],
    [{ defaultModel: '' }, /^body\.defaultModel: /],
    [{ theme: 'dark' }, /^body: Chave inválida: "theme"$/],
    [{}, /^body: Informe ao menos um campo de configuração$/],
    [
      { maxConcurrent: 3, maxConcurrentExecutions: 4 },
      /^body: maxConcurrent e maxConcurrentExecutions são o mesmo campo: informe apenas um$/,
    ],
    [
      { defaultWorkdir: '/home/projetos', workingDirectory: '/home/projetos' },
      /^body: defaultWorkdir e workingDirectory são o mesmo campo: informe apenas um$/,
    ],
    [{ maxConcurrent: 3, defaultWorkdir: 'x' }, /^body\.defaultWorkdir: /],
  ])('refuses %j with 400 and changes nothing', async (body, message) => {
    const before = (await call('GET', '/api/settings')).body;
    const answer = await call('PUT', '/api/settings', body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(message);
    expect((await call('GET', '/api/settings')).body).toEqual(before);
  });
});

describe('GET /api/system/info', () => {
  it("answers the panel's fields (the installed CLI's version), then versions, uptime, memory and the active execution count", async () => {
    await createExecution(database.db, {
      id: 'cccccccc-0000-4000-8000-000000000001',
      kind: 'agent',
      agentId: null,
      agentName: 'Info probe',
      source: 'manual',
      task: 't',
      instructions: '',
      workingDirectory: '/w',
      model: 'sonnet',
    });
    const packageJson = JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8'));
    const answer = await call('GET', '/api/system/info');
    expect(answer.status).toBe(200);
    const installedCli = execFileSync(path.join(__dirname, '../../node_modules/.bin/claude'), ['--version'], { encoding: 'utf8' }).trim();
    expect(installedCli).toMatch(/^2\.1\.331 /);
    expect(answer.body).toEqual({
      serverVersion: packageJson.version,
      nodeVersion: process.version,
      claudeVersion: installedCli,
      uptime: answer.body.uptimeSeconds,
      service: { name: 'consultores-agentes', version: packageJson.version },
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      pid: process.pid,
      uptimeSeconds: expect.any(Number),
      memoryMiB: { rss: expect.any(Number), heapUsed: expect.any(Number), heapTotal: expect.any(Number), external: expect.any(Number) },
      activeExecutions: await countActiveExecutions(database.db),
      // Root here with the stack's pool of agent users (scripts/stack/agent-users.sh).
      agentIsolation: { mode: process.getuid?.() === 0 ? 'user-pool' : 'service-user', reason: expect.any(String) },
      // The three CLIs an agent may run, each asked for its version with its own command.
      agentClis: [
        { cli: 'claude-code', label: 'Claude Code', command: config.orchestration.agentCommand, version: installedCli },
        {
          cli: 'codex',
          label: 'OpenAI Codex CLI',
          command: config.orchestration.cliCommands.codex,
          version: `codex-cli ${packageJson.dependencies['@openai/codex']}`,
        },
        {
          cli: 'gemini',
          label: 'Google Gemini CLI',
          command: config.orchestration.cliCommands.gemini,
          version: packageJson.dependencies['@google/gemini-cli'],
        },
      ],
    });
    expect(answer.body.activeExecutions).toBeGreaterThanOrEqual(1);
    expect(Number.isInteger(answer.body.uptime)).toBe(true);
    expect(answer.body.memoryMiB.rss).toBeGreaterThan(answer.body.memoryMiB.heapUsed);
    await database.pool.query("DELETE FROM executions WHERE id = 'cccccccc-0000-4000-8000-000000000001'");
  });
});

describe('bounds: the oldest reports and notifications are pruned where they are written', () => {
  it('keeps the newest REPORTS_KEPT reports in each directory, by creation time, and never touches other files', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reports-kept-'));
    const dirs = { dataDir: path.join(root, 'data'), reportsDir: path.join(root, 'external') };
    try {
      fs.mkdirSync(dirs.reportsDir, { recursive: true });
      fs.writeFileSync(path.join(dirs.reportsDir, 'my-notes.md'), "the user's own file");
      // Written out of creation order: a long execution created first may finish last.
      const days = [3, 1, 5, 2, 4];
      const names: string[] = [];
      for (const day of days) {
        const id = `${day}${day}${day}${day}${day}${day}${day}${day}-0000-4000-8000-000000000000`;
        names[day] = await writeExecutionReport(record({ id, createdAt: new Date(`2026-03-0${day}T12:00:00.000Z`) }), dirs, 3);
      }
      const newestThree = [names[3], names[4], names[5]];
      expect(fs.readdirSync(path.join(dirs.dataDir, 'reports')).sort()).toEqual(newestThree);
      expect(fs.readdirSync(dirs.reportsDir).sort()).toEqual([...newestThree, 'my-notes.md'].sort());
      expect(fs.readFileSync(path.join(dirs.reportsDir, 'my-notes.md'), 'utf8')).toBe("the user's own file");
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('keeps the newest NOTIFICATIONS_KEPT notifications (by time, then id) and lists them', async () => {
    await database.pool.query('DELETE FROM notifications');
    const at = (day: number) => new Date(`2026-02-0${day}T00:00:00.000Z`);
    const raised = [];
    for (const day of [1, 2, 2, 3, 4]) {
      raised.push(
        await raiseNotification(database.db, { kind: 'execution.completed', title: `Day ${day}`, message: 'm', createdAt: at(day) }, 3),
      );
    }
    const [, tieA, tieB, third, newest] = raised;
    // The bound falls between the two of day 2: the list's order (id, descending) decides which stays.
    const [laterOfTie] = [tieA!, tieB!].sort((x, y) => (x.id < y.id ? 1 : -1));
    const list = await call('GET', '/api/notifications');
    expect(list.body.total).toBe(3);
    expect(list.body.notifications.map((n: { id: string }) => n.id)).toEqual([newest!.id, third!.id, laterOfTie!.id]);
    await database.pool.query('DELETE FROM notifications');
  });
});
