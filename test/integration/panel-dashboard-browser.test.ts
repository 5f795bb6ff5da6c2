import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createExecution, finishExecution, markExecutionRunning, type ExecutionResult } from '../../db/executions-store';
import { openPanelPage, screenshotPath, startPanelSession, type PanelPage, type PanelSession } from '../support/browser';
import { until } from '../support/waiting';

/**
 * The panel's dashboard charts in Chromium (contract row 43, 3.9): with records of known dates,
 * statuses and costs, each Chart.js chart holds the values GET /api/stats/charts answered, and the
 * period select 7 → 30 asks again and redraws. Page code is a string: the project's tsconfig has no DOM library.
 */

let session: PanelSession;

const DAY = 86_400_000;
const now = new Date();
const TODAY = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
const at = (daysAgo: number, time: string) => new Date(`${new Date(TODAY - daysAgo * DAY).toISOString().slice(0, 10)}T${time}Z`);
/** The label as the panel shows it: dd/mm of the UTC day. */
const shown = (daysAgo: number) => {
  const [, month, day] = new Date(TODAY - daysAgo * DAY).toISOString().slice(0, 10).split('-');
  return `${day}/${month}`;
};

async function seed(
  agentId: string,
  agentName: string,
  createdAt: Date,
  outcome: Partial<ExecutionResult> & { status: ExecutionResult['status'] },
): Promise<void> {
  const db = session.server.resources.database.db;
  const record = await createExecution(db, {
    kind: 'agent',
    agentId,
    agentName,
    source: 'manual',
    task: 't',
    instructions: '',
    workingDirectory: '/tmp',
    model: 'sonnet',
    createdAt,
  });
  await markExecutionRunning(db, record.id, new Date(createdAt.getTime() + 500));
  await finishExecution(db, record.id, { finishedAt: new Date(createdAt.getTime() + 1000), ...outcome });
}

beforeAll(async () => {
  session = await startPanelSession();
  await session.server.resources.database.pool.query('DELETE FROM executions');
  const reviewer = randomUUID();
  const writer = randomUUID();
  await seed(reviewer, 'Revisor', at(0, '10:00:00.000'), { status: 'completed', costUsd: 0.5 });
  await seed(reviewer, 'Revisor', at(0, '11:00:00.000'), { status: 'error', costUsd: 0.25 });
  await seed(writer, 'Documentador longo', at(2, '09:00:00.000'), { status: 'completed', costUsd: 0.125 });
  await seed(reviewer, 'Revisor', at(10, '09:00:00.000'), { status: 'completed', costUsd: 2 });
}, 60_000);

afterAll(() => session?.close());

/** What each of the dashboard's charts holds (Chart.getChart of its canvas). */
async function charts(panel: PanelPage): Promise<Record<string, { labels: unknown[]; data: unknown[][] }>> {
  return (await panel.page.evaluate(`Object.fromEntries(
    ['executions-chart', 'cost-chart', 'status-chart', 'agents-chart', 'success-rate-chart'].map((id) => {
      const chart = Chart.getChart(document.getElementById(id));
      return [id, chart ? { labels: chart.data.labels, data: chart.data.datasets.map((set) => set.data) } : null];
    }),
  )`)) as Record<string, { labels: unknown[]; data: unknown[][] }>;
}

const labelsShown = (panel: PanelPage) =>
  panel.page.evaluate(`Chart.getChart(document.getElementById('executions-chart'))?.data.labels.length ?? 0`) as Promise<number>;

it('draws the charts with the values of the window, and the period select 7 → 30 asks again and redraws', async () => {
  const panel = await openPanelPage(session.browser, session.server.url);
  const asked: string[] = [];
  panel.page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname === '/api/stats/charts') asked.push(url.search);
  });
  await panel.page.goto(`${session.server.url}/app.html`, { waitUntil: 'load' });
  await until(
    'the 7-day charts',
    () => labelsShown(panel),
    (count) => count === 7,
    30_000,
  );

  const week = [6, 5, 4, 3, 2, 1, 0];
  expect(await charts(panel)).toEqual({
    'executions-chart': {
      labels: week.map(shown),
      data: [
        [0, 0, 0, 0, 1, 0, 1],
        [0, 0, 0, 0, 0, 0, 1],
      ],
    },
    'cost-chart': { labels: week.map(shown), data: [[0, 0, 0, 0, 0.125, 0, 0.75]] },
    'status-chart': { labels: ['Completed', 'Error'], data: [[2, 1]] },
    // Names over 15 characters are cut by the panel.
    'agents-chart': { labels: ['Revisor', 'Documentador lo\u2026'], data: [[2, 1]] },
    // 2 of 3 completed: 67 %.
    'success-rate-chart': { labels: ['Sucesso', 'Outros'], data: [[67, 33]] },
  });
  const file = screenshotPath('panel-dashboard-charts.png');
  await panel.page.evaluate(`document.getElementById('chart-period').scrollIntoView({ block: 'center' })`);
  await panel.page.screenshot({ path: file });
  expect(fs.statSync(file).size).toBeGreaterThan(0);

  await panel.page.select('#chart-period', '30');
  await until(
    'the 30-day charts',
    () => labelsShown(panel),
    (count) => count === 30,
    30_000,
  );
  const month = await charts(panel);
  expect(month['executions-chart']!.labels[0]).toBe(shown(29));
  expect(month['cost-chart']!.data[0]![19]).toBe(2);
  expect(month['cost-chart']!.data[0]!.slice(-7)).toEqual([0, 0, 0, 0, 0.125, 0, 0.75]);
  expect(month['status-chart']).toEqual({ labels: ['Completed', 'Error'], data: [[3, 1]] });
  expect(month['agents-chart']).toEqual({ labels: ['Revisor', 'Documentador lo\u2026'], data: [[3, 1]] });
  expect(month['success-rate-chart']!.data).toEqual([[75, 25]]);
  expect(asked).toEqual(['?days=7', '?days=30']);

  // Nothing failed on our origin but the favicon the panel does not have (panel-browser.test.ts, row 1.1).
  expect(panel.failed.filter((failed) => failed.path !== '/favicon.ico')).toEqual([]);
  expect(
    panel.consoleErrors.filter(({ url }) => (url === null || url.startsWith(panel.origin)) && url !== `${panel.origin}/favicon.ico`),
  ).toEqual([]);
  await panel.page.close();
});
