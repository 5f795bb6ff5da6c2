import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { openPanelPage, startPanelSession, type PanelSession, type TestBrowser } from '../support/browser';
import type { TestServer } from '../support/server';
import { until } from '../support/waiting';

/**
 * The panel's Settings page in Chromium against our answers (contract rows 49, 59, 60): it shows the
 * Node and installed Claude CLI versions and the stored default model, and saving shows no error.
 */

let session: PanelSession;
let server: TestServer;
let browser: TestBrowser;

beforeAll(async () => {
  session = await startPanelSession();
  ({ server, browser } = session);
});

afterAll(() => session?.close());

const api: PanelSession['api'] = (method, route, body) => session.api(method, route, body);

it('shows the versions and the stored settings, and saves the form without an error toast', async () => {
  // One of the models the panel's select lists, so the form can show it.
  // With a global budget the panel's form knows nothing of (docs/budgets.md): its save must keep it.
  expect(
    (
      await api('PUT', '/api/settings', {
        defaultModel: 'claude-opus-4-6',
        defaultWorkdir: '/home/projetos',
        maxConcurrent: 3,
        dailyBudgetUsd: 1000,
      })
    ).status,
  ).toBe(200);
  const installedCli = execFileSync(path.join(__dirname, '../../node_modules/.bin/claude'), ['--version'], { encoding: 'utf8' }).trim();

  const panel = await openPanelPage(browser, server.url);
  await panel.page.goto(`${server.url}/app.html#settings`, { waitUntil: 'load' });
  await panel.page.waitForFunction(`document.getElementById('info-node-version')?.textContent === ${JSON.stringify(process.version)}`, {
    timeout: 30_000,
  });
  const shown = await panel.page.evaluate(`({
    node: document.getElementById('info-node-version')?.textContent,
    claude: document.getElementById('info-claude-version')?.textContent,
    model: document.getElementById('settings-default-model')?.value,
    workdir: document.getElementById('settings-default-workdir')?.value,
    maxConcurrent: document.getElementById('settings-max-concurrent')?.value,
  })`);
  expect(shown).toEqual({
    node: process.version,
    claude: installedCli,
    model: 'claude-opus-4-6',
    workdir: '/home/projetos',
    maxConcurrent: '3',
  });

  // The panel's own save: its body, through the form's submit.
  await panel.page.evaluate(`(() => {
    document.getElementById('settings-max-concurrent').value = '4';
    document.getElementById('settings-default-workdir').value = '';
    document.getElementById('settings-form').requestSubmit();
  })()`);
  const toasts = await until(
    'the save toast',
    () => panel.toasts(),
    (list) => list.length > 0,
    30_000,
  );
  expect(toasts).toEqual([{ kind: 'success', text: expect.stringContaining('Configurações salvas com sucesso') }]);
  expect((await api('GET', '/api/settings')).body).toEqual({
    defaultModel: 'claude-opus-4-6',
    defaultWorkdir: '/home/projetos',
    maxConcurrent: 4,
    dailyBudgetUsd: 1000,
  });
  expect((await api('PUT', '/api/settings', { dailyBudgetUsd: null })).status).toBe(200);
  // Other rows (e.g. the dashboard's charts) are not this test's: only the settings' and system's requests.
  expect(panel.failed.filter((failed) => /^\/api\/(settings|system)/.test(failed.path))).toEqual([]);
  await panel.page.close();
});
