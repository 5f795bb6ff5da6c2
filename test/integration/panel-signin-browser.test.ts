import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { SESSION_COOKIE, SESSION_LIFETIME_SECONDS } from '../../api/orchestration/security';
import { SIGN_IN_MESSAGES } from '../../api/sign-in-page';
import { launchBrowser, openPanelPage, panelDirForTests, screenshotPath, type TestBrowser } from '../support/browser';
import { startTestServer, type TestServer } from '../support/server';
import { until } from '../support/waiting';

/**
 * The admin panel in Chromium with AUTH_TOKEN set (docs/orchestration-security.md, "Signing in to the
 * panel"): the panel cannot send the token (contract 1.1), so /app.html leads to the service's
 * sign-in page; the token typed there gives a session cookie with which the panel's /api calls and
 * its WebSocket are accepted; signing out makes /api refuse again.
 */

const TOKEN = 'browser-token-0123456789abcdef';

/** The panel's header indicator (app.js updateWsStatus) says the socket is open. Page code is a string: no DOM types here. */
const CONNECTED_SHOWN = `document.getElementById('ws-label')?.textContent === 'Conectado'`;
/**
 * What `GET /api/agents` answers to a script of our origin with the browser's cookies, as the panel's
 * own fetch: from another tab on `/api/health` (JSON, open), since the sign-in pages' CSP lets no
 * script connect anywhere.
 */
async function apiStatusInBrowser(): Promise<number> {
  const tab = await browser.browser.newPage();
  try {
    await tab.goto(`${server.url}/api/health`, { waitUntil: 'load' });
    return (await tab.evaluate(
      `fetch('/api/agents', { headers: { 'Content-Type': 'application/json' } }).then((response) => response.status)`,
    )) as number;
  } finally {
    await tab.close();
  }
}

let server: TestServer;
let browser: TestBrowser;

beforeAll(async () => {
  const dir = panelDirForTests();
  server = await startTestServer((config) => ({
    ...config,
    // Sessions and sign-in budgets of this file's own.
    redis: { ...config.redis, keyPrefix: `${config.redis.keyPrefix}signin-browser-${randomUUID()}:` },
    panel: { dir },
    orchestration: { ...config.orchestration, authToken: TOKEN },
  }));
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the admin panel in Chromium with AUTH_TOKEN set', () => {
  it('asks for the token on the sign-in page, opens the panel with the session (socket connected, Agents loaded), and signs out', async () => {
    const panel = await openPanelPage(browser, server.url);
    const { page } = panel;

    // /app.html without a session: the sign-in page.
    const first = await page.goto(`${server.url}/app.html`, { waitUntil: 'load' });
    expect([first?.status(), new URL(page.url()).pathname]).toEqual([200, '/sign-in']);
    const file = screenshotPath('panel-sign-in.png');
    await page.screenshot({ path: file });
    expect(fs.readFileSync(file).subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(await apiStatusInBrowser()).toBe(401);

    // A wrong token: the form again with its message, and no cookie.
    await page.type('#token', 'not-the-token-at-all');
    const [wrong] = await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#sign-in-submit')]);
    expect([wrong?.status(), new URL(page.url()).pathname]).toEqual([401, '/sign-in']);
    expect(await page.evaluate(`document.getElementById('sign-in-message')?.textContent`)).toBe(SIGN_IN_MESSAGES.invalid);
    expect(await page.cookies()).toEqual([]);
    await page.screenshot({ path: screenshotPath('panel-sign-in-refused.png') });

    // The token: on to the panel, the session cookie set (HttpOnly: no script of the page sees it).
    await page.type('#token', TOKEN);
    const [signedIn] = await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#sign-in-submit')]);
    expect([signedIn?.status(), new URL(page.url()).pathname]).toEqual([200, '/app.html']);
    const failedBeforeSignedIn = panel.failed.length;
    const cookies = await page.cookies();
    expect(cookies.map(({ name, httpOnly, sameSite, secure, path }) => ({ name, httpOnly, sameSite, secure, path }))).toEqual([
      { name: SESSION_COOKIE, httpOnly: true, sameSite: 'Strict', secure: false, path: '/' },
    ]);
    expect(cookies[0]!.value).not.toContain(TOKEN);
    expect(cookies[0]!.expires * 1000 - Date.now()).toBeLessThanOrEqual(SESSION_LIFETIME_SECONDS * 1000);
    expect(await page.evaluate('document.cookie')).toBe('');
    expect(await apiStatusInBrowser()).toBe(200);

    // The panel's own socket at / is accepted with the cookie: the header says so.
    await page.waitForFunction(CONNECTED_SHOWN, { timeout: 30_000 });
    await until(
      "the greeting on the page's socket",
      async () => panel.sockets[0]?.received.length ?? 0,
      (count) => count > 0,
      30_000,
    );
    const clientId = await page.evaluate(`sessionStorage.getItem('clientId')`);
    expect(panel.sockets[0]!.received.map((frame) => JSON.parse(frame) as unknown)).toEqual([{ type: 'connected', clientId }]);

    // The Agents page loads its list from /api with the cookie, and shows no error toast.
    const agentsAnswer = page.waitForResponse(
      (response) => new URL(response.url()).pathname === '/api/agents' && response.request().method() === 'GET',
    );
    await page.evaluate(`location.hash = 'agents'`);
    await page.waitForFunction(`document.getElementById('agents')?.classList.contains('active') === true`, { timeout: 30_000 });
    expect((await agentsAnswer).status()).toBe(200);
    await page.waitForNetworkIdle({ idleTime: 300, timeout: 30_000 });
    const agentsShown = (await page.evaluate(`({
      loaded: Array.isArray(AgentsUI.agents),
      cards: document.querySelectorAll('#agents-grid .agent-card').length,
      listed: AgentsUI.agents.length,
    })`)) as { loaded: boolean; cards: number; listed: number };
    expect(agentsShown.loaded).toBe(true);
    expect(agentsShown.cards).toBe(agentsShown.listed);
    expect((await panel.toasts()).filter((toast) => toast.kind === 'error')).toEqual([]);
    // Nothing on our origin was refused for want of the token while signed in.
    expect(panel.failed.slice(failedBeforeSignedIn).filter((failed) => failed.status === 401 || failed.status === 403)).toEqual([]);
    await page.screenshot({ path: screenshotPath('panel-signed-in.png') });

    // Sign out at /sign-out: back on the sign-in page, the cookie gone, /api refuses again.
    await page.goto(`${server.url}/sign-out`, { waitUntil: 'load' });
    const [signedOut] = await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#sign-out-submit')]);
    expect([signedOut?.status(), new URL(page.url()).pathname]).toEqual([200, '/sign-in']);
    expect(await page.cookies()).toEqual([]);
    expect(await apiStatusInBrowser()).toBe(401);
    // The sign-in page's CSP lets no script of it connect anywhere (default-src 'none').
    expect(await page.evaluate(`fetch('/api/health').then(() => 'fetched', (error) => error.name)`)).toBe('TypeError');
    const again = await page.goto(`${server.url}/app.html`, { waitUntil: 'load' });
    expect([again?.status(), new URL(page.url()).pathname]).toEqual([200, '/sign-in']);
    await page.close();
  });
});
