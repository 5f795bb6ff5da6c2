import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Page } from 'puppeteer-core';
import { config } from '../../lib/config';
import { pipelineExecutionWorkflowId } from '../../temporal/contracts/pipeline-execution';
import { launchBrowser, screenshotPath, type TestBrowser } from '../support/browser';
import { jsonCall } from '../support/json-api';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import { until } from '../support/waiting';

/**
 * The Temporal Web UI (the dev server's, config.temporal.uiUrl) in headless Chromium, as a person
 * finds a run there (docs/observability.md): the workflow list filtered by a search-attribute query in
 * its URL (`?query=`) shows the pipeline waiting for approval, with its PipelineName, RunStatus and
 * RunSource as columns; its page shows the history with the steps named by their summaries, and its
 * static summary and details. Screenshots in .data/test/screenshots/ (the docs' images are copies).
 */

describe('the Temporal Web UI finds a pipeline waiting for approval, in headless Chromium', () => {
  let agents: RealAgents;
  let browser: TestBrowser;
  let page: Page;
  let runId: string | undefined;
  const ui = config.temporal.uiUrl.replace(/\/$/, '');
  const namespace = config.temporal.namespace;

  beforeAll(async () => {
    agents = await startRealAgents({ name: 'temporal-ui', maxConcurrent: 4 });
    browser = await launchBrowser();
    page = await browser.browser.newPage();
    // Wide enough for the list's added columns and the history's summaries.
    await page.setViewport({ width: 1920, height: 1000 });
  }, 60_000);

  afterAll(async () => {
    // Nothing left waiting for a person in the shared namespace: cancelled, and ended by the worker before it stops.
    if (runId) {
      await call('POST', `/api/pipelines/${runId}/cancel`);
      await until(
        'the run canceled',
        async () => (await call('GET', `/api/executions/history/${runId}`)).body.status,
        (status) => status === 'canceled',
        60_000,
      );
    }
    await browser?.close();
    await agents?.close();
  });

  const call = (method: string, route: string, body?: unknown) => jsonCall(agents.server.url, method, route, body);

  // Run in the page (strings: this project's TypeScript has no DOM types).
  const bodyText = () => page.evaluate('document.body.innerText') as Promise<string>;

  /** The visible text of the page and its frames (the UI renders summaries' Markdown in iframes). */
  const allText = async () =>
    (await Promise.all(page.frames().map((frame) => frame.evaluate('document.body ? document.body.innerText : ""').catch(() => '')))).join(
      '\n',
    );

  /** The page's visible text, read until `done` holds (the UI loads its data after the page). */
  const pageText = (what: string, done: (text: string) => boolean) => until(what, allText, done, 30_000);

  /** Clicks the last button of the Configure Columns drawer's row `label`: add it, or remove it when in view. */
  async function toggleColumn(label: string): Promise<void> {
    const row = `[data-testid="orderable-list-item-${label}"]`;
    await page.waitForSelector(row, { visible: true, timeout: 10_000 });
    await page.evaluate(`[...document.querySelectorAll(${JSON.stringify(`${row} button`)})].at(-1).click()`);
  }

  it('lists it by RunStatus and PipelineName in the URL query, and opens its history with named steps', async () => {
    const writer = await agents.standInAgent('Writer', { workingDirectory: '' });
    const reviewer = await agents.standInAgent('Reviewer', { workingDirectory: '' });
    const name = `Release ${randomUUID().slice(0, 8)}`;
    const created = await call('POST', '/api/pipelines', {
      name,
      description: '',
      workingDirectory: path.join(agents.workArea, 'release'),
      steps: [
        { agentId: writer.id, inputTemplate: '{{input}}', description: 'draft the notes', requiresApproval: false },
        { agentId: reviewer.id, inputTemplate: 'Review:\n{{input}}', description: 'review them', requiresApproval: true },
      ],
    });
    expect(created.status).toBe(201);
    const started = await call('POST', `/api/pipelines/${created.body.id}/execute`, { input: 'the release notes of 2.4' });
    expect(started.status).toBe(202);
    runId = started.body.executionId as string;
    const workflowId = pipelineExecutionWorkflowId(runId);
    await until(
      'the run waits for approval',
      async () => (await call('GET', `/api/executions/history/${runId}`)).body.status,
      (status) => status === 'awaiting_approval',
      120_000,
    );

    // The list, filtered as a person types it in the UI's query box (here in its URL).
    const query = `RunStatus="awaiting_approval" AND PipelineName="${name}"`;
    const listUrl = `${ui}/namespaces/${namespace}/workflows?query=${encodeURIComponent(query)}`;
    // Visibility is eventually consistent: reloaded until the run is listed.
    await until(
      'the run listed in the Web UI',
      async () => {
        await page.goto(listUrl, { waitUntil: 'networkidle0', timeout: 30_000 });
        return bodyText();
      },
      (text) => text.includes(workflowId),
      30_000,
    );
    // The attributes as columns (Configure Columns, as a person adds them); Run ID, Start and End make room.
    await page.click('[data-testid="workflows-summary-table-configuration-button"]');
    for (const label of ['PipelineName', 'RunStatus', 'RunSource', 'Run ID', 'Start', 'End']) await toggleColumn(label);
    await page.click('[data-testid="drawer-close-button"]');
    await page.waitForSelector('[data-testid="drawer-close-button"]', { hidden: true, timeout: 10_000 });
    const rows = await until(
      'the columns shown',
      () =>
        page.evaluate(`[...document.querySelectorAll('table tbody tr')].map((tr) => tr.innerText.replace(/\\s+/g, ' ').trim())`) as Promise<
          string[]
        >,
      (found) => found.length === 1 && found[0]!.includes('awaiting_approval'),
      30_000,
    );
    expect(rows[0]).toContain(workflowId);
    expect(rows[0]).toContain(name);
    expect(rows[0]).toContain('manual');
    expect(rows[0]).toContain('pipelineExecutionWorkflow');
    expect(await bodyText()).toMatch(/\b1\s+Workflow\b/);
    // The drawer slides out: its last frames would show over the table.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await page.screenshot({ path: screenshotPath('temporal-ui-awaiting-approval.png') });

    // Its page opens on the timeline: the step's child workflow is named by its summary.
    await page.click(`a[href*="/workflows/${workflowId}/"]`);
    await pageText('the timeline with the named step', (text) => text.includes(`step 1 of 2: ${writer.name} (pipeline ${name})`));
    await page.screenshot({ path: screenshotPath('temporal-ui-pipeline-timeline.png') });
    // The Event History tab: every event's summary; the approval is asked for step 2. Oldest first,
    // in a window tall enough for the whole history (the table scrolls inside the page).
    await page.setViewport({ width: 1920, height: 1750 });
    await page.waitForSelector('[data-testid="history-tab"]', { visible: true });
    await page.click('[data-testid="history-tab"]');
    await pageText('the history tab', (text) => text.includes('Event Type') && text.includes('Descending'));
    await page.evaluate(`[...document.querySelectorAll('button')].find((button) => button.innerText.trim() === 'Descending').click()`);
    await pageText('the history oldest first', (text) => text.includes('Ascending'));
    const history = await pageText('the history with named steps', (text) =>
      text.includes(`ask approval for step 2 of 2: ${reviewer.name}`),
    );
    expect(history).toContain(`step 1 of 2: ${writer.name}`);
    expect(history).toContain(`budget of step 1 of 2: ${writer.name}`);
    expect(history).toContain('Upsert Workflow Search Attributes');
    expect(history).toContain('RUNNING');
    await page.screenshot({ path: screenshotPath('temporal-ui-pipeline-history.png') });
    await page.setViewport({ width: 1920, height: 1000 });

    // The workflow's own summary and details (User Metadata).
    await page.click('[data-testid="user-metadata-tab"]');
    const metadata = await pageText(
      'the summary, details and current details',
      (text) => text.includes(`2. ${reviewer.name}`) && text.includes('waiting for approval of'),
    );
    expect(metadata).toContain(`Pipeline ${name}: 2 steps (manual)`);
    expect(metadata).toContain(`1. ${writer.name}`);
    expect(metadata).toContain(`waiting for approval of step 2 of 2: ${reviewer.name}`);
    await page.screenshot({ path: screenshotPath('temporal-ui-pipeline-summary.png') });
  }, 240_000);
});
