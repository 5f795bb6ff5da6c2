import { openApiDocuments } from '../../api/openapi/catalog';
import { launchBrowser, openPanelPage, screenshotPath, type TestBrowser } from '../support/browser';
import { startTestServer, type TestServer } from '../support/server';

/**
 * The reference pages (docs/openapi.md) in Chromium: each renders every operation of its document,
 * with no request off the service's origin (no CDN, no fonts, no validator badge) and none failing.
 */
describe('the OpenAPI reference pages, in Chromium', () => {
  let server: TestServer;
  let browser: TestBrowser;

  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const [service, page] of [
    ['orchestration', '/api/docs'],
    ['ranking', '/api/v1/docs'],
  ] as const) {
    it(`renders every operation of the ${service} document at ${page}, fetching nothing elsewhere`, async () => {
      const document = openApiDocuments()[service];
      const operations = Object.values(document.paths).reduce((total, item) => total + Object.keys(item).length, 0);
      const opened = await openPanelPage(browser, server.url);
      await opened.page.goto(`${server.url}${page}`, { waitUntil: 'networkidle0' });
      await opened.page.waitForFunction(`document.querySelectorAll('.opblock').length === ${operations}`, { timeout: 30_000 });
      const shown = (await opened.page.evaluate(
        `[...document.querySelectorAll('.opblock-summary-operation-id')].map((element) => element.textContent.trim())`,
      )) as string[];
      const described = Object.values(document.paths).flatMap((item) => Object.values(item).map((operation) => operation.operationId));
      expect([...shown].sort()).toEqual([...described].sort());
      expect(await opened.page.evaluate(`document.querySelector('.info .title').textContent`)).toContain(
        String((document.info as { title: string }).title),
      );
      await opened.page.screenshot({ path: screenshotPath(`openapi-${service}.png`), fullPage: false });
      expect(opened.external).toEqual([]);
      expect(opened.failed).toEqual([]);
      expect(opened.consoleErrors).toEqual([]);
      await opened.page.close();
    }, 90_000);
  }
});
