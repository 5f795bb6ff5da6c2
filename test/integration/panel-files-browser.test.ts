import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { config } from '../../lib/config';
import { sitesDirectory } from '../../services/files';
import { agentWorkspace } from '../support/agent-workspace';
import { launchBrowser, openPanelPage, panelDirForTests, screenshotPath, type PanelPage, type TestBrowser } from '../support/browser';
import { startTestServer, type TestServer } from '../support/server';
import { until } from '../support/waiting';

/**
 * The panel's Projects page (contract 3.15, rows 64-68) in Chromium, signed in with AUTH_TOKEN set
 * (the session cookie is what a published page must not be able to use): browse into a folder,
 * download a file, delete an entry through the confirm dialog, publish a folder and open its site,
 * whose script tries the panel's API and storage. Page code is a string: no DOM types here.
 */

jest.setTimeout(120_000);

const TOKEN = `files-browser-${randomUUID()}`;

/** The published page's probe: what its script could reach of the panel, written into the page. */
const PROBE_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Loja</title><link rel="stylesheet" href="css/site.css"></head>
<body><h1>Loja publicada</h1>
<p id="origin"></p><p id="storage"></p><p id="api">pendente</p>
<script>
  document.getElementById('origin').textContent = 'origin=' + window.origin;
  try { window.localStorage.getItem('x'); document.getElementById('storage').textContent = 'storage=readable'; }
  catch (error) { document.getElementById('storage').textContent = 'storage=' + error.name; }
  fetch('/api/agents', { credentials: 'include' })
    .then((response) => response.text().then((text) => { document.getElementById('api').textContent = 'api=' + response.status + ' ' + text.slice(0, 80); }))
    .catch((error) => { document.getElementById('api').textContent = 'api=' + error.name; });
</script></body></html>`;

let server: TestServer;
let browser: TestBrowser;
let area: string;
let downloads: string;

beforeAll(async () => {
  area = agentWorkspace('files-browser-');
  downloads = fs.mkdtempSync(path.join(os.tmpdir(), 'files-downloads-'));
  const files: Record<string, string> = {
    'loja/index.html': PROBE_PAGE,
    'loja/css/site.css': 'h1 { color: #2563eb; }',
    'loja/docs/nota.txt': `nota ${randomUUID()}`,
    'rascunho.txt': 'apagar',
  };
  for (const [relative, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(area, relative)), { recursive: true });
    fs.writeFileSync(path.join(area, relative), content);
  }
  server = await startTestServer((current) => ({
    ...current,
    redis: { ...current.redis, keyPrefix: `${current.redis.keyPrefix}files-browser-${randomUUID()}:` },
    panel: { dir: panelDirForTests() },
    orchestration: { ...current.orchestration, authToken: TOKEN, workdirRoots: [area] },
  }));
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  fs.rmSync(area, { recursive: true, force: true });
  fs.rmSync(downloads, { recursive: true, force: true });
  fs.rmSync(path.join(sitesDirectory(config.orchestration.dataDir), 'loja'), { recursive: true, force: true });
});

/** The names in the Projects table, as shown. */
async function rows(panel: PanelPage): Promise<string[]> {
  return (await panel.page.evaluate(
    `[...document.querySelectorAll('#files-container .files-row .files-td-name')].map((cell) => cell.textContent.trim())`,
  )) as string[];
}

async function untilRows(panel: PanelPage, expected: string[]): Promise<void> {
  await until(
    `the rows ${expected.join(', ')}`,
    () => rows(panel),
    (shown) => JSON.stringify(shown) === JSON.stringify(expected),
    30_000,
  );
}

async function click(panel: PanelPage, selector: string): Promise<void> {
  await panel.page.waitForSelector(selector, { visible: true, timeout: 30_000 });
  await panel.page.evaluate(`document.querySelector(${JSON.stringify(selector)}).click()`);
}

async function confirmDialog(panel: PanelPage): Promise<string> {
  await panel.page.waitForSelector('#confirm-modal-overlay.active #confirm-modal-confirm-btn', { visible: true, timeout: 10_000 });
  const message = (await panel.page.evaluate(`document.getElementById('confirm-modal-message').textContent`)) as string;
  await panel.page.click('#confirm-modal-confirm-btn');
  return message;
}

it('browses into a folder, downloads a file, deletes an entry, publishes a folder whose sandboxed site cannot use the session', async () => {
  const panel = await openPanelPage(browser, server.url);
  const { page } = panel;
  const cdp = await page.createCDPSession();
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });

  // Signed in: the session cookie (HttpOnly, SameSite=Strict) authorises /api and the downloads.
  await page.goto(`${server.url}/app.html`, { waitUntil: 'load' });
  await page.type('#token', TOKEN);
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#sign-in-submit')]);
  expect(new URL(page.url()).pathname).toBe('/app.html');

  // The Projects page: directories first, then files; the top-level folder has a publish button.
  await page.goto(`${server.url}/app.html#files`, { waitUntil: 'load' });
  await untilRows(panel, ['loja', 'rascunho.txt']);
  expect(await page.$('[data-action="publish-project"][data-path="loja"]')).not.toBeNull();
  await page.screenshot({ path: screenshotPath('panel-files.png') });

  // Into loja, then docs: the breadcrumb follows.
  await click(panel, '#files-container a.files-entry-dir[data-path="loja"]');
  await untilRows(panel, ['css', 'docs', 'index.html']);
  await click(panel, '#files-container a.files-entry-dir[data-path="loja/docs"]');
  await untilRows(panel, ['nota.txt']);
  const crumbs = (await page.evaluate(
    `[...document.querySelectorAll('.files-breadcrumb-link')].map((link) => link.textContent.trim())`,
  )) as string[];
  expect(crumbs).toEqual(['projetos', 'loja', 'docs']);

  // Download: the anchor navigation with the cookie; the browser saves the file.
  await click(panel, '[data-action="download-file"][data-path="loja/docs/nota.txt"]');
  const saved = path.join(downloads, 'nota.txt');
  await until(
    'the downloaded file',
    async () => (fs.existsSync(saved) ? fs.readFileSync(saved, 'utf8') : ''),
    (content) => content.length > 0,
    30_000,
  );
  expect(fs.readFileSync(saved, 'utf8')).toBe(fs.readFileSync(path.join(area, 'loja/docs/nota.txt'), 'utf8'));

  // Back to the root through the breadcrumb; delete rascunho.txt through the confirm dialog.
  await click(panel, '.files-breadcrumb-link[data-path=""]');
  await untilRows(panel, ['loja', 'rascunho.txt']);
  await click(panel, '[data-action="delete-entry"][data-path="rascunho.txt"]');
  expect(await confirmDialog(panel)).toContain('"rascunho.txt"');
  await untilRows(panel, ['loja']);
  expect(fs.existsSync(path.join(area, 'rascunho.txt'))).toBe(false);

  // Publish loja: confirm, then the result modal with the site's address.
  await click(panel, '[data-action="publish-project"][data-path="loja"]');
  await confirmDialog(panel);
  await page.waitForSelector('#execution-detail-modal-overlay.active .publish-result', { visible: true, timeout: 30_000 });
  const siteUrl = (await page.evaluate(
    `[...document.querySelectorAll('.publish-result a')].map((link) => link.getAttribute('href')).filter(Boolean)[0]`,
  )) as string;
  expect(siteUrl).toBe(`${server.url}/sites/loja/`);
  expect(await page.evaluate(`document.querySelector('.publish-result .badge').textContent`)).toBe('Publicado');
  await page.screenshot({ path: screenshotPath('panel-files-published.png') });
  expect((await panel.toasts()).filter((toast) => toast.kind === 'error')).toEqual([]);
  expect((await panel.toasts()).map((toast) => toast.text)).toEqual(
    expect.arrayContaining(['Arquivo excluído', 'Projeto publicado com sucesso!']),
  );
  // Nothing failed on our origin but the favicon the panel does not have (contract 1.1).
  expect(panel.failed.filter((failed) => failed.path !== '/favicon.ico')).toEqual([]);

  // The site, in the same browser (the session cookie is there): its script runs in an opaque origin.
  const site = await browser.browser.newPage();
  const siteCdp = await site.createCDPSession();
  await siteCdp.send('Network.enable');
  // What the network stack really sent and received (cookies included), by request.
  const apiIds = new Set<string>();
  const sentHeaders = new Map<string, Record<string, unknown>>();
  const statuses = new Map<string, number>();
  siteCdp.on('Network.requestWillBeSent', (event) => {
    if (new URL(event.request.url).pathname === '/api/agents') apiIds.add(event.requestId);
  });
  siteCdp.on('Network.requestWillBeSentExtraInfo', (event) => sentHeaders.set(event.requestId, event.headers));
  siteCdp.on('Network.responseReceivedExtraInfo', (event) => statuses.set(event.requestId, event.statusCode));
  const opened = await site.goto(siteUrl, { waitUntil: 'load' });
  expect(opened?.status()).toBe(200);
  expect(opened?.headers()['content-security-policy']).toBe('sandbox allow-scripts');
  await until(
    'the probe has its answer',
    () => site.evaluate(`document.getElementById('api').textContent`),
    (text) => text !== 'pendente',
    30_000,
  );
  const probe = (await site.evaluate(`['origin', 'storage', 'api'].map((id) => document.getElementById(id).textContent)`)) as string[];
  // Not the panel's origin; no storage of the panel; the API call fails (no CORS grant for an opaque origin).
  expect(probe).toEqual(['origin=null', 'storage=SecurityError', 'api=TypeError']);
  await site.screenshot({ path: screenshotPath('panel-files-site.png') });
  // The request reached the service without the session cookie, and was refused.
  const [apiId] = [...apiIds];
  expect(apiIds.size).toBe(1);
  await until(
    'the API answer seen by the browser',
    () => Promise.resolve(statuses.get(apiId!)),
    (status) => status !== undefined,
    10_000,
  );
  expect(statuses.get(apiId!)).toBe(401);
  const cookieSent = Object.entries(sentHeaders.get(apiId!) ?? {}).some(([name]) => name.toLowerCase() === 'cookie');
  expect(cookieSent).toBe(false);
  // The panel's own requests did carry it: the cookie exists in this browser.
  expect((await page.cookies()).length).toBe(1);
  // The stylesheet, a relative file of the snapshot, was served too.
  expect(await site.evaluate(`getComputedStyle(document.querySelector('h1')).color`)).toBe('rgb(37, 99, 235)');
  await site.close();
  await page.close();
});
