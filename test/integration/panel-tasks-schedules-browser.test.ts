import path from 'node:path';
import { config as baseConfig } from '../../lib/config';
import { logger } from '../../lib/logger';
import { reconcileSchedules } from '../../services/schedules';
import { agentScheduleId } from '../../temporal/agent-schedules';
import { clickOn, openPanelPage, screenshotPath, startPanelSession, type PanelPage, type PanelSession } from '../support/browser';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import { until } from '../support/waiting';

/**
 * The panel's Tasks and Schedules pages in Chromium against our answers (contract rows 17-25): create
 * a task and run it (its card's execute button opens the execute modal prefilled with name and
 * description; the real CLI answers through the stand-in), edit and delete it; create, edit and delete a
 * schedule through its modal, see its next run, a refused cron's toast, and a triggered firing in the
 * schedule history. Page code is a string: the project's tsconfig has no DOM library.
 */

jest.setTimeout(240_000);

let agents: RealAgents<PanelSession>;
let session: PanelSession;

beforeAll(async () => {
  agents = await startRealAgents({
    name: 'panel-tasks',
    serve: startPanelSession,
    // Before the worker, whose start reconciles the schedules' rows with Temporal.
    beforeWorker: async (server) => {
      await server.resources.database.pool.query('DELETE FROM schedules');
      await server.resources.database.pool.query('DELETE FROM tasks');
    },
  });
  session = agents.service;
}, 60_000);

afterAll(async () => {
  if (session) {
    await session.server.resources.database.pool.query('DELETE FROM schedules');
    const { resources } = session.server;
    await reconcileSchedules({
      db: resources.database.db,
      temporal: resources.temporal.client,
      logger,
      timezone: baseConfig.orchestration.scheduleTimezone,
    }).catch(() => undefined);
  }
  await agents?.close();
});

const api: PanelSession['api'] = (method, route, body) => session.api(method, route, body);

async function toastsUntil(panel: PanelPage, count: number) {
  return until(
    `toast ${count}`,
    () => panel.toasts(),
    (list) => list.length >= count,
    30_000,
  );
}

/** Sets a form field's value as typing would, in the page (the modals animate: typing may race the focus). */
async function fill(panel: PanelPage, selector: string, value: string): Promise<void> {
  await panel.page.waitForSelector(selector, { visible: true, timeout: 30_000 });
  await panel.page.evaluate(
    `(() => { const el = document.querySelector(${JSON.stringify(selector)}); el.value = ${JSON.stringify(value)}; el.dispatchEvent(new Event('input', { bubbles: true })); el.dispatchEvent(new Event('change', { bubbles: true })); })()`,
  );
}

const standInAgent = () => agents.standInAgent('Agendado', { workingDirectory: path.join(agents.workArea, 'agente'), maxTurns: 0 });

it('creates a task, runs it from its card, edits and deletes it through the Tasks page', async () => {
  const agent = await standInAgent();
  const panel = await openPanelPage(session.browser, session.server.url);
  const { page } = panel;
  await page.goto(`${session.server.url}/app.html#tasks`, { waitUntil: 'load' });
  // The (empty) list rendered: a later render would remove the inline form.
  await page.waitForFunction(`document.getElementById('tasks-empty-state').style.display === 'flex'`, { timeout: 30_000 });

  await clickOn(panel, '#tasks-new-btn');
  await fill(panel, '#task-inline-name', 'Resumo do projeto');
  await page.select('#task-inline-category', 'docs');
  await fill(panel, '#task-inline-description', 'Resuma o README. stand-in:text');
  await clickOn(panel, '#btn-save-inline-task');
  expect((await toastsUntil(panel, 1))[0]).toEqual({ kind: 'success', text: 'Tarefa criada com sucesso' });
  const [task] = (await api('GET', '/api/tasks')).body as any[];
  expect(task).toMatchObject({ name: 'Resumo do projeto', category: 'docs', description: 'Resuma o README. stand-in:text' });
  await page.waitForSelector(`.task-card[data-task-id="${task.id}"]`, { timeout: 30_000 });
  const card = await page.evaluate(`(() => {
    const card = document.querySelector('.task-card[data-task-id="${task.id}"]');
    return { name: card.querySelector('.task-card-name').textContent.trim(), badge: card.querySelector('.badge').textContent.trim(), date: card.querySelector('.task-card-date').textContent.trim() };
  })()`);
  expect(card).toEqual({ name: 'Resumo do projeto', badge: 'docs', date: new Date(task.createdAt).toLocaleDateString('pt-BR') });

  // Execute: the modal is prefilled with name + blank line + description; the agent is chosen in it.
  await clickOn(panel, `[data-action="execute-task"][data-id="${task.id}"]`);
  await page.waitForSelector('#execute-modal-overlay:not([hidden])', { timeout: 30_000 });
  await until(
    'the agent select is filled',
    () => page.evaluate(`[...document.querySelectorAll('#execute-agent-select option')].map((o) => o.value)`),
    (values) => (values as string[]).includes(agent.id),
    30_000,
  );
  expect(await page.$eval('#execute-task-desc', (element) => (element as unknown as { value: string }).value)).toBe(
    'Resumo do projeto\n\nResuma o README. stand-in:text',
  );
  await page.select('#execute-agent-select', agent.id);
  await clickOn(panel, '#execute-form-submit');
  const run = await until(
    'the task run completes',
    async () =>
      ((await api('GET', '/api/executions/history?limit=20&offset=0')).body.items as any[]).find((item) => item.agentId === agent.id),
    (item) => item?.status === 'completed',
    90_000,
  );
  expect(run).toMatchObject({
    task: 'Resumo do projeto\n\nResuma o README. stand-in:text',
    source: 'manual',
    result: 'Stand-in answer in four parts.',
  });
  await page.screenshot({ path: screenshotPath('panel-task-run.png') });

  // Edit, then delete through the confirmation modal. A fresh page, its list loaded: a reload of the
  // list re-renders the grid, which removes an inline form opened meanwhile.
  await page.goto(`${session.server.url}/app.html#tasks`, { waitUntil: 'load' });
  await page.reload({ waitUntil: 'load' });
  await page.waitForSelector(`.task-card[data-task-id="${task.id}"]`, { timeout: 30_000 });
  const before = (await panel.toasts()).length;
  await clickOn(panel, `[data-action="edit-task"][data-id="${task.id}"]`);
  await fill(panel, '#task-inline-name', 'Resumo curto');
  await clickOn(panel, '#btn-save-inline-task');
  expect((await toastsUntil(panel, before + 1))[before]).toEqual({ kind: 'success', text: 'Tarefa atualizada com sucesso' });
  expect((await api('GET', '/api/tasks')).body).toEqual([expect.objectContaining({ id: task.id, name: 'Resumo curto', category: 'docs' })]);
  await page.waitForFunction(
    `document.querySelector('.task-card[data-task-id="${task.id}"] .task-card-name')?.textContent.trim() === 'Resumo curto'`,
    { timeout: 30_000 },
  );
  await clickOn(panel, `[data-action="delete-task"][data-id="${task.id}"]`);
  await clickOn(panel, '#confirm-modal-confirm-btn');
  expect((await toastsUntil(panel, before + 2))[before + 1]).toEqual({ kind: 'success', text: 'Tarefa excluída com sucesso' });
  expect((await api('GET', '/api/tasks')).body).toEqual([]);
  expect((await panel.toasts()).filter((toast) => toast.kind === 'error')).toEqual([]);
  await page.close();
});

it('creates, edits and deletes a schedule through the Schedules page, and shows a firing in its history', async () => {
  const agent = await standInAgent();
  const panel = await openPanelPage(session.browser, session.server.url);
  const { page } = panel;
  await page.goto(`${session.server.url}/app.html#schedules`, { waitUntil: 'load' });

  await clickOn(panel, '#schedules-new-btn');
  await page.waitForSelector('#schedule-modal-overlay:not([hidden])', { timeout: 30_000 });
  await until(
    'the agent select is filled',
    () => page.evaluate(`[...document.querySelectorAll('#schedule-agent option')].map((o) => o.value)`),
    (values) => (values as string[]).includes(agent.id),
    30_000,
  );
  await page.select('#schedule-agent', agent.id);
  await fill(panel, '#schedule-task', 'Verifique o build. stand-in:text');
  // Every minute is refused (the minimum interval): the toast says why, nothing is stored.
  await fill(panel, '#schedule-cron', '* * * * *');
  await clickOn(panel, '#schedule-form-submit');
  const [refused] = await toastsUntil(panel, 1);
  expect(refused).toEqual({
    kind: 'error',
    text: 'Erro ao salvar agendamento: A expressão cron * * * * * dispara a cada 1 minuto: o intervalo mínimo é de 5 minutos',
  });
  expect((await api('GET', '/api/schedules')).body).toEqual([]);

  await fill(panel, '#schedule-cron', '0 9 * * 1');
  await clickOn(panel, '#schedule-form-submit');
  expect((await toastsUntil(panel, 2))[1]).toEqual({ kind: 'success', text: 'Agendamento criado com sucesso' });
  const [schedule] = (await api('GET', '/api/schedules')).body as any[];
  expect(schedule).toMatchObject({
    agentId: agent.id,
    agentName: agent.name,
    taskDescription: 'Verifique o build. stand-in:text',
    cronExpression: '0 9 * * 1',
    active: true,
  });
  const rowOf = () =>
    page.evaluate(`[...document.querySelectorAll('#schedules-tbody tr td')].map((cell) => cell.textContent.trim()).slice(0, 5)`);
  const nextRunText = (iso: string) => page.evaluate(`new Date(${JSON.stringify(iso)}).toLocaleString('pt-BR')`);
  expect(await until('the row', rowOf, (cells) => (cells as string[])[0] === agent.name, 30_000)).toEqual([
    agent.name,
    'Verifique o build. stand-in:text',
    '0 9 * * 1',
    await nextRunText(schedule.nextRun),
    'Ativo',
  ]);

  // Edit: the modal is prefilled from the list; a new cron is saved and its next run shown.
  await clickOn(panel, `[data-action="edit-schedule"][data-id="${schedule.id}"]`);
  await page.waitForFunction(`document.getElementById('schedule-form-id').value === ${JSON.stringify(schedule.id)}`, { timeout: 30_000 });
  expect(
    await page.evaluate(
      `[document.getElementById('schedule-agent').value, document.getElementById('schedule-task').value, document.getElementById('schedule-cron').value]`,
    ),
  ).toEqual([agent.id, 'Verifique o build. stand-in:text', '0 9 * * 1']);
  await fill(panel, '#schedule-cron', '30 18 * * 1-5');
  await clickOn(panel, '#schedule-form-submit');
  expect((await toastsUntil(panel, 3))[2]).toEqual({ kind: 'success', text: 'Agendamento atualizado com sucesso' });
  const [edited] = (await api('GET', '/api/schedules')).body as any[];
  expect(edited).toMatchObject({ id: schedule.id, cronExpression: '30 18 * * 1-5' });
  expect(await until('the edited row', rowOf, (cells) => (cells as string[])[2] === '30 18 * * 1-5', 30_000)).toEqual([
    agent.name,
    'Verifique o build. stand-in:text',
    '30 18 * * 1-5',
    await nextRunText(edited.nextRun),
    'Ativo',
  ]);

  // A firing now (rather than at 18:30): the history section lists it once the page reloads.
  await session.server.resources.temporal.client.schedule.getHandle(agentScheduleId(schedule.id)).trigger();
  const fired = await until(
    'the firing completes',
    async () => ((await api('GET', '/api/schedules/history')).body as any[]).filter((item) => item.scheduleId === schedule.id),
    (items) => items[0]?.status === 'completed',
    90_000,
  );
  expect(fired).toHaveLength(1);
  expect(fired[0]).toMatchObject({
    agentId: agent.id,
    source: 'schedule',
    scheduleId: schedule.id,
    task: 'Verifique o build. stand-in:text',
  });
  await page.reload({ waitUntil: 'load' });
  const historyRow = await until(
    'the history row',
    () =>
      page.evaluate(
        `[...document.querySelectorAll('#schedules-history tbody tr:first-child td')].map((cell) => cell.textContent.trim()).slice(0, 3)`,
      ),
    (cells) => (cells as string[]).length === 3,
    30_000,
  );
  expect(historyRow).toEqual([agent.name, 'Verifique o build. stand-in:text', 'Concluído']);
  await page.screenshot({ path: screenshotPath('panel-schedules.png') });

  const before = (await panel.toasts()).length;
  await clickOn(panel, `[data-action="delete-schedule"][data-id="${schedule.id}"]`);
  await clickOn(panel, '#confirm-modal-confirm-btn');
  expect((await toastsUntil(panel, before + 1))[before]).toEqual({ kind: 'success', text: 'Agendamento removido com sucesso' });
  expect((await api('GET', '/api/schedules')).body).toEqual([]);
  await page.waitForFunction(`document.querySelector('#schedules-tbody .table-empty-row') !== null`, { timeout: 30_000 });
  // The page was reloaded after the refused cron: no error since.
  expect((await panel.toasts()).filter((toast) => toast.kind === 'error')).toEqual([]);
  await page.close();
});
