import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser, type HTTPRequest, type Page } from 'puppeteer-core';
import { config, type Config } from '../../lib/config';
import { repoRoot } from '../../lib/paths';
import { jsonCall, type JsonAnswer } from './json-api';
import { startTestServer, type TestServer } from './server';
import { until } from './waiting';

/**
 * Browser tests of the admin panel: Debian's Chromium (CHROMIUM_PATH, never downloaded) driven by
 * puppeteer-core, kept off the network, and a page that records what the panel did on our origin
 * (failed requests, console errors, toasts, its WebSocket) for the test to assert.
 */

/** The panel's directory for tests: PANEL_DIR when set, else the published copy beside the repository. */
export const DEFAULT_TEST_PANEL_DIR = path.resolve(repoRoot, '../shared/admin-panel/public');

/** The real path of the panel to serve; fails, saying where it looked, when it is absent. */
export function panelDirForTests(): string {
  const dir = config.panel.dir ?? DEFAULT_TEST_PANEL_DIR;
  if (!fs.existsSync(path.join(dir, 'app.html'))) {
    throw new Error(
      `the admin panel is not at ${dir} (no app.html): set PANEL_DIR to the panel's public/ directory (default ${DEFAULT_TEST_PANEL_DIR})`,
    );
  }
  return fs.realpathSync(dir);
}

/** A service that serves the panel (panelDirForTests) and a browser to open it in; `close` ends both. */
export interface PanelSession {
  server: TestServer;
  browser: TestBrowser;
  /** A JSON call to the service as the panel makes it (JSON content type even without a body); 204 has a null body. */
  api(method: string, route: string, body?: unknown): Promise<JsonAnswer>;
  close(): Promise<void>;
}

export async function startPanelSession(override: (config: Config) => Config = (config) => config): Promise<PanelSession> {
  const dir = panelDirForTests();
  const server = await startTestServer((current) => ({ ...override(current), panel: { dir } }));
  let browser: TestBrowser;
  try {
    browser = await launchBrowser();
  } catch (error) {
    await server.close();
    throw error;
  }
  return {
    server,
    browser,
    api: (method, route, body) => jsonCall(server.url, method, route, body),
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

/**
 * Flags that keep Chromium off the network and quiet: no background, component, sync or QUIC
 * traffic, and every host name but loopback fails to resolve, so a request the interception below
 * missed fails at once instead of hanging the page. Root (containers) needs --no-sandbox.
 */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1, EXCLUDE [::1]',
];

export interface TestBrowser {
  browser: Browser;
  close(): Promise<void>;
}

/** Launches headless Chromium with a fresh profile directory, removed at close. */
export async function launchBrowser(): Promise<TestBrowser> {
  const executablePath = config.pdf.chromiumPath;
  if (!fs.existsSync(executablePath)) {
    throw new Error(`Chromium is not at ${executablePath} (CHROMIUM_PATH): the stack installs Debian's chromium (scripts/stack/up.sh)`);
  }
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'panel-browser-'));
  const browser = await puppeteer.launch({
    executablePath,
    headless: true,
    userDataDir,
    // userDataDir becomes --user-data-dir: a fresh profile, nothing shared with another run.
    args: CHROMIUM_ARGS,
    defaultViewport: { width: 1440, height: 900 },
  });
  return {
    browser,
    async close() {
      await browser.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** The panel's one CDN script (contract section 9), answered from node_modules when the version matches. */
const CHART_JS = /^https:\/\/cdn\.jsdelivr\.net\/npm\/chart\.js@([^/]+)\/dist\/chart\.umd(?:\.min)?\.js$/;

function installedChartJs(): { version: string; file: string } {
  // chart.js's exports do not include its package.json: read it where npm installed it.
  const manifest = path.join(repoRoot, 'node_modules', 'chart.js', 'package.json');
  const { version } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string };
  return { version, file: path.join(path.dirname(manifest), 'dist', 'chart.umd.js') };
}

/** How an external request was answered: from node_modules, with an empty stylesheet, or blocked. */
export interface ExternalRequest {
  url: string;
  answer: 'node_modules' | 'empty-stylesheet' | 'blocked';
}

/** A request to our own origin that answered 4xx/5xx, or did not answer. */
export interface FailedRequest {
  method: string;
  /** Path and query on our origin. */
  path: string;
  /** 0 when no answer arrived (network failure). */
  status: number;
}

export interface PageSocket {
  url: string;
  /** Text frames received, in order. */
  received: string[];
}

/** A page of the panel and what it did since it was opened. */
export interface PanelPage {
  page: Page;
  origin: string;
  external: ExternalRequest[];
  failed: FailedRequest[];
  /** Console errors and uncaught exceptions, each with the URL it came from when Chromium gives one. */
  consoleErrors: Array<{ text: string; url: string | null }>;
  /** WebSockets the page opened (Chrome DevTools Protocol), with what they received. */
  sockets: PageSocket[];
  /** Texts of the toasts the panel showed, by kind (`error`, `success`, ...), kept even once they are gone. */
  toasts(): Promise<Array<{ kind: string; text: string }>>;
}

/**
 * Every toast the panel adds to the page is copied into `window.__toasts` as it appears: toasts go
 * away after a few seconds, and a test asserts on all of them. Runs before the panel's scripts.
 * Page-side code is a string: the project's tsconfig has no DOM library (it would change the
 * types of timers everywhere).
 */
const RECORD_TOASTS = `(() => {
  const seen = [];
  window.__toasts = seen;
  new MutationObserver((mutations) => {
    for (const mutation of mutations) {
      for (const node of mutation.addedNodes) {
        if (!(node instanceof HTMLElement) || !node.classList.contains('toast')) continue;
        const kind = [...node.classList].find((name) => name.startsWith('toast-'))?.slice('toast-'.length) ?? 'unknown';
        seen.push({ kind, text: node.querySelector('.toast-message')?.textContent?.trim() ?? '' });
      }
    }
  }).observe(document, { childList: true, subtree: true });
})()`;

/**
 * A new page on `origin` (the service under test) that may reach nothing else: the panel's external
 * resources (contract section 9) are answered locally (Chart.js from node_modules, Google Fonts with
 * an empty stylesheet, the browser then uses its fallback fonts) and any other request off the origin
 * is blocked, so the page never waits on the internet.
 */
export async function openPanelPage(testBrowser: TestBrowser, origin: string): Promise<PanelPage> {
  const page = await testBrowser.browser.newPage();
  const own = new URL(origin).origin;
  const chartJs = installedChartJs();
  const recorded: Omit<PanelPage, 'page' | 'origin' | 'toasts'> = { external: [], failed: [], consoleErrors: [], sockets: [] };

  await page.setRequestInterception(true);
  page.on('request', (request: HTTPRequest) => {
    const url = request.url();
    if (url.startsWith('data:') || url.startsWith('blob:') || new URL(url).origin === own) {
      void request.continue();
      return;
    }
    const chart = CHART_JS.exec(url);
    if (chart !== null && chart[1] === chartJs.version) {
      recorded.external.push({ url, answer: 'node_modules' });
      void request.respond({ status: 200, contentType: 'text/javascript; charset=utf-8', body: fs.readFileSync(chartJs.file) });
    } else if (new URL(url).hostname === 'fonts.googleapis.com') {
      recorded.external.push({ url, answer: 'empty-stylesheet' });
      void request.respond({ status: 200, contentType: 'text/css; charset=utf-8', body: '/* fonts are not fetched in tests */' });
    } else {
      recorded.external.push({ url, answer: 'blocked' });
      void request.abort('blockedbyclient');
    }
  });
  const ownPath = (url: string): string | null => {
    const parsed = new URL(url);
    return parsed.origin === own ? `${parsed.pathname}${parsed.search}` : null;
  };
  page.on('response', (response) => {
    const where = ownPath(response.url());
    if (where !== null && response.status() >= 400) {
      recorded.failed.push({ method: response.request().method(), path: where, status: response.status() });
    }
  });
  page.on('requestfailed', (request) => {
    const where = ownPath(request.url());
    if (where !== null) recorded.failed.push({ method: request.method(), path: where, status: 0 });
  });
  page.on('console', (message) => {
    if (message.type() === 'error') recorded.consoleErrors.push({ text: message.text(), url: message.location().url ?? null });
  });
  page.on('pageerror', (error) => {
    recorded.consoleErrors.push({ text: error instanceof Error ? `${error.name}: ${error.message}` : String(error), url: null });
  });

  // The page's WebSockets as the browser sees them: puppeteer has no API for them, the protocol does.
  const cdp = await page.createCDPSession();
  await cdp.send('Network.enable');
  const socketsById = new Map<string, PageSocket>();
  cdp.on('Network.webSocketCreated', (event) => {
    const socket = { url: event.url, received: [] };
    socketsById.set(event.requestId, socket);
    recorded.sockets.push(socket);
  });
  cdp.on('Network.webSocketFrameReceived', (event) => {
    socketsById.get(event.requestId)?.received.push(event.response.payloadData);
  });

  await page.evaluateOnNewDocument(RECORD_TOASTS);
  return {
    page,
    origin: own,
    ...recorded,
    toasts: () => page.evaluate('window.__toasts ?? []') as Promise<Array<{ kind: string; text: string }>>,
  };
}

/** A file under the test data area (AGENT_DATA_DIR) for screenshots, its directory created. */
export function screenshotPath(name: string): string {
  const dir = path.join(config.orchestration.dataDir, 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}

/** Clicks an element once it is visible, in the page (no pointer: an element under a toast is still clicked). */
export async function clickOn(panel: PanelPage, selector: string): Promise<void> {
  await panel.page.waitForSelector(selector, { visible: true, timeout: 30_000 });
  await panel.page.evaluate(`document.querySelector(${JSON.stringify(selector)}).click()`);
}

/**
 * Types `text` into the field and types it again while the field does not hold it: on a loaded machine
 * keys have been seen to land elsewhere while a modal opens, as a person would see and type again.
 */
export async function typeInto(panel: PanelPage, selector: string, text: string): Promise<void> {
  const value = () => panel.page.$eval(selector, (element) => (element as { value: string }).value);
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    await panel.page.$eval(selector, (element) => void ((element as { value: string }).value = ''));
    await panel.page.type(selector, text);
    if ((await value()) === text) return;
  }
  throw new Error(`${selector} holds ${JSON.stringify(await value())} after typing ${JSON.stringify(text)} three times`);
}

/** The terminal's lines once one of them matches (`what` names it in the timeout's message). */
export async function untilLine(
  panel: PanelPage,
  what: string,
  matches: (line: string) => boolean,
  timeoutMs = 120_000,
): Promise<string[]> {
  return until(
    what,
    () => terminalLines(panel),
    (lines) => lines.some(matches),
    timeoutMs,
  );
}

/**
 * Waits until the terminal shows `reports` "Relatório gerado" lines and the panel, which fetches the
 * newest report after printing its line and fills the detail modal with it, shows `executionId`'s report
 * there: a later detail opened before that would be covered by it.
 */
export async function untilReportShown(panel: PanelPage, executionId: string, reports: number): Promise<void> {
  await until(
    `report line ${reports}`,
    () => terminalLines(panel),
    (lines) => lines.filter((line) => line.includes('Relatório gerado')).length === reports,
    30_000,
  );
  await until(
    `the report of ${executionId} in the modal`,
    () => panel.page.evaluate(`document.getElementById('execution-detail-content').textContent`) as Promise<string>,
    (text) => text.includes(executionId),
    30_000,
  );
}

/** The terminal's lines as the user reads them. */
export async function terminalLines(panel: PanelPage): Promise<string[]> {
  return (await panel.page.evaluate(
    `[...document.querySelectorAll('#terminal-output .terminal-line .content')].map((line) => line.textContent.trim())`,
  )) as string[];
}

/** Opens the execute modal from the agent's card on the Agents page and types the task. */
export async function openExecuteModal(panel: PanelPage, agentId: string, task: string): Promise<void> {
  const { page } = panel;
  await page.goto(`${panel.origin}/app.html#agents`, { waitUntil: 'load' });
  await clickOn(panel, `[data-action="execute"][data-id="${agentId}"]`);
  await page.waitForSelector('#execute-task-desc', { visible: true });
  // The modal moves the focus while it opens (its saved-task select loads): type once it has settled.
  await until(
    'the execute modal settles',
    () => page.evaluate(`document.activeElement && document.activeElement.id`),
    (id) => id !== null,
    10_000,
  );
  await new Promise((resolve) => setTimeout(resolve, 500));
  await page.click('#execute-task-desc');
  await page.type('#execute-task-desc', task);
}
