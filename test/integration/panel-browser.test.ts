import fs from 'node:fs';
import { writeExecutionReport, type ReportRecord } from '../../db/reports-store';
import { raiseNotification } from '../../db/notifications-store';
import {
  openPanelPage,
  screenshotPath,
  startPanelSession,
  type FailedRequest,
  type PanelPage,
  type PanelSession,
  type TestBrowser,
} from '../support/browser';
import type { TestServer } from '../support/server';
import { until } from '../support/waiting';

/**
 * The admin panel (PANEL_DIR, by default ../shared/admin-panel/public) served by the service and
 * opened in Debian's Chromium: it loads from our origin alone, its own WebSocket connects at `/`,
 * and it shows so. What the panel asks of our origin and does not get yet is listed below: each
 * entry is a contract row not met yet (docs/admin-panel.md); any other failure fails the test.
 */

interface NotMetYet {
  /** The contract row (`../shared/spec/admin-panel.md`, endpoint index) or section. */
  row: string;
  /** The error toast the panel shows for it, if any. */
  toast?: RegExp;
  /** A console error the panel logs for it besides the browser's "Failed to load resource". */
  console?: RegExp;
}

/** `METHOD /path` (no query) of the panel's requests that fail today, each with its row. Remove an entry when its row is met. */
const NOT_MET_YET: Record<string, NotMetYet> = {
  'GET /favicon.ico': { row: '1.1 (/favicon.ico: the panel has none; a 404 is harmless)' },
};

/** The panel's header indicator (app.js updateWsStatus) says the socket is open. Page code is a string: no DOM types here. */
const CONNECTED_SHOWN = `document.getElementById('ws-label')?.textContent === 'Conectado'`;

const keyOf = (failed: FailedRequest) => `${failed.method} ${failed.path.split('?')[0]}`;

/** What the page did on our origin that no entry of NOT_MET_YET explains: failed requests, console errors, error toasts. */
async function unexplained(panel: PanelPage) {
  const knownFailures = panel.failed.filter((failed) => keyOf(failed) in NOT_MET_YET);
  const known = knownFailures.map((failed) => NOT_MET_YET[keyOf(failed)]!);
  const knownUrls = new Set(knownFailures.map((failed) => `${panel.origin}${failed.path}`));
  return {
    requests: panel.failed.filter((failed) => !(keyOf(failed) in NOT_MET_YET)),
    // Errors of other origins are not ours (none is expected: nothing is blocked); the browser's own
    // "Failed to load resource" line for a known failure is explained by it.
    consoleErrors: panel.consoleErrors.filter(
      ({ text, url }) =>
        (url === null || url.startsWith(panel.origin)) &&
        !(text.startsWith('Failed to load resource') && url !== null && knownUrls.has(url)) &&
        !known.some((entry) => entry.console?.test(text)),
    ),
    errorToasts: (await panel.toasts()).filter((toast) => toast.kind === 'error' && !known.some((entry) => entry.toast?.test(toast.text))),
  };
}

let session: PanelSession;
let server: TestServer;
let browser: TestBrowser;

beforeAll(async () => {
  session = await startPanelSession();
  ({ server, browser } = session);
});

afterAll(() => session?.close());

describe('the admin panel in Chromium', () => {
  it('opens /app.html from our origin alone, connects its own WebSocket at / and shows it connected', async () => {
    const panel = await openPanelPage(browser, server.url);
    const response = await panel.page.goto(`${server.url}/app.html`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);

    // The panel's indicator in the header (app.js updateWsStatus) turns "Conectado" on the socket's open.
    await panel.page.waitForFunction(CONNECTED_SHOWN, { timeout: 30_000 });
    const clientId = await panel.page.evaluate(`sessionStorage.getItem('clientId')`);
    expect(clientId).toMatch(/^[0-9a-f-]{36}$/);
    // Its one socket, at the root with its clientId, greeted by the service with that id.
    await until(
      "the greeting on the page's socket",
      async () => panel.sockets[0]?.received.length ?? 0,
      (count) => count > 0,
      30_000,
    );
    expect(panel.sockets.map((socket) => socket.url)).toEqual([`${server.url.replace(/^http/, 'ws')}/?clientId=${String(clientId)}`]);
    expect(panel.sockets[0]!.received.map((frame) => JSON.parse(frame) as unknown)).toEqual([{ type: 'connected', clientId }]);

    const shown = await panel.page.evaluate(`({
      header: document.getElementById('ws-label')?.textContent,
      headerDot: document.getElementById('ws-indicator')?.className,
      terminal: document.getElementById('terminal-ws-label')?.textContent,
      terminalDot: document.getElementById('terminal-ws-dot')?.className,
      chartJs: typeof window.Chart,
    })`);
    expect(shown).toEqual({
      header: 'Conectado',
      headerDot: 'ws-indicator ws-indicator--connected',
      terminal: 'Conectado',
      terminalDot: 'ws-indicator ws-indicator--connected',
      chartJs: 'function',
    });

    const file = screenshotPath('panel-connected.png');
    await panel.page.screenshot({ path: file });
    expect(fs.readFileSync(file).subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));

    // Contract section 9: the CDN script from node_modules, the fonts' stylesheet empty, nothing else left the machine.
    expect(panel.external.map(({ url, answer }) => [new URL(url).hostname, answer])).toEqual([
      ['cdn.jsdelivr.net', 'node_modules'],
      ['fonts.googleapis.com', 'empty-stylesheet'],
    ]);
    expect(await unexplained(panel)).toEqual({ requests: [], consoleErrors: [], errorToasts: [] });
    await panel.page.close();
  });

  it('visits every section: what fails on our origin is only what the contract rows not met yet explain', async () => {
    const panel = await openPanelPage(browser, server.url);
    await panel.page.goto(`${server.url}/app.html`, { waitUntil: 'load' });
    await panel.page.waitForFunction(CONNECTED_SHOWN, { timeout: 30_000 });
    for (const section of ['agents', 'tasks', 'schedules', 'pipelines', 'webhooks', 'terminal', 'history', 'files', 'settings']) {
      const requestsBefore = panel.failed.length;
      await panel.page.evaluate(`location.hash = ${JSON.stringify(section)}`);
      await panel.page.waitForFunction(`document.getElementById(${JSON.stringify(section)})?.classList.contains('active') === true`, {
        timeout: 30_000,
      });
      // Each section's load is its requests to /api: wait until none is in flight.
      await panel.page.waitForNetworkIdle({ idleTime: 300, timeout: 30_000 });
      expect([section, panel.failed.slice(requestsBefore).filter((failed) => !(keyOf(failed) in NOT_MET_YET))]).toEqual([section, []]);
    }
    await panel.page.click('#notification-bell');
    await panel.page.waitForNetworkIdle({ idleTime: 300, timeout: 30_000 });
    expect(await unexplained(panel)).toEqual({ requests: [], consoleErrors: [], errorToasts: [] });
    // Still connected after the tour: the socket was never dropped.
    expect(panel.sockets).toHaveLength(1);
    await panel.page.close();
  });

  it('shows our notifications in the bell and marks them all read (rows 44, 46); opens a report as the WebSocket would (row 70)', async () => {
    const { db } = server.resources.database;
    await server.resources.database.pool.query('DELETE FROM notifications');
    const kept = server.resources.config.orchestration.limits.notifications;
    await raiseNotification(db, { kind: 'execution.completed', title: 'Execução concluída', message: 'Revisor finished' }, kept);
    await raiseNotification(db, { kind: 'execution.error', title: 'Execução falhou', message: 'exit 1' }, kept);
    const { dataDir, reportsDir } = server.resources.config.orchestration;
    const reportFile = await writeExecutionReport(REPORT, { dataDir, reportsDir }, server.resources.config.orchestration.limits.reports);

    const panel = await openPanelPage(browser, server.url);
    await panel.page.goto(`${server.url}/app.html`, { waitUntil: 'load' });
    await panel.page.waitForFunction(`document.getElementById('notification-badge')?.textContent === '2'`, { timeout: 30_000 });
    await panel.page.click('#notification-bell');
    await panel.page.waitForFunction(`document.querySelectorAll('#notification-list .notification-item.unread').length === 2`, {
      timeout: 30_000,
    });
    const items = `[...document.querySelectorAll('#notification-list .notification-item')].map((item) => [item.querySelector('.notification-item-icon').className, item.querySelector('.notification-item-title').textContent, item.querySelector('.notification-item-time').textContent])`;
    expect(await panel.page.evaluate(items)).toEqual([
      ['notification-item-icon error', 'Execução falhou', 'agora'],
      ['notification-item-icon success', 'Execução concluída', 'agora'],
    ]);
    await panel.page.click('#mark-all-read');
    await panel.page.waitForFunction(`document.querySelectorAll('#notification-list .notification-item.unread').length === 0`, {
      timeout: 30_000,
    });
    expect(await panel.page.evaluate(`document.getElementById('notification-badge').classList.contains('hidden')`)).toBe(true);
    expect(
      (
        await until(
          'all read in MySQL',
          async (): Promise<any> => (await fetch(`${server.url}/api/notifications`)).json(),
          (body) => body.unreadCount === 0,
        )
      ).notifications,
    ).toHaveLength(2);

    await panel.page.evaluate(`App._openReport(${JSON.stringify(reportFile)})`);
    await panel.page.waitForFunction(
      `document.querySelector('#execution-detail-content .report-markdown')?.textContent.includes('# Execução de agente: Painel')`,
      { timeout: 30_000 },
    );
    expect(await panel.page.evaluate(`document.querySelector('#execution-detail-content .report-markdown').textContent`)).toBe(
      fs.readFileSync(`${dataDir}/reports/${reportFile}`, 'utf8'),
    );
    expect(await unexplained(panel)).toEqual({ requests: [], consoleErrors: [], errorToasts: [] });
    await panel.page.close();
    await server.resources.database.pool.query('DELETE FROM notifications');
  });
});

/** A report of an execution, as the workflow writes it. */
const REPORT: ReportRecord = {
  id: '7a7a7a7a-0000-4000-8000-000000000000',
  kind: 'agent',
  agentName: 'Painel',
  status: 'completed',
  source: 'manual',
  model: 'sonnet',
  workingDirectory: '/home/projetos',
  sessionId: null,
  costUsd: 0,
  durationMs: 1000,
  turns: 1,
  task: 'Say <b>hi</b>',
  instructions: '',
  output: 'hi',
  outputTruncated: false,
  error: null,
  createdAt: new Date('2026-04-01T10:00:00.000Z'),
  startedAt: new Date('2026-04-01T10:00:00.000Z'),
  finishedAt: new Date('2026-04-01T10:00:01.000Z'),
};
