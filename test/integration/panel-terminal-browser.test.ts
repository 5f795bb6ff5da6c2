import fs from 'node:fs';
import path from 'node:path';
import { promptsOf, type StandInModel } from '../support/stand-in-model';
import {
  clickOn,
  openExecuteModal,
  openPanelPage,
  screenshotPath,
  startPanelSession,
  terminalLines,
  untilLine,
  untilReportShown,
  type PanelPage,
  type PanelSession,
} from '../support/browser';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import { until } from '../support/waiting';

/**
 * The panel's terminal and history in Chromium with the real Claude Code CLI against the stand-in
 * model (contract rows 9, 10, 50, 53, 54; WebSocket 4.3/4.4): execute from an agent card, see the tool
 * line, the answer and the cost in the terminal, continue in the chat (the CLI resumes the real
 * session), open the run in the history. Page code is a string: the project's tsconfig has no DOM library.
 */

jest.setTimeout(240_000);

let agents: RealAgents<PanelSession>;
let session: PanelSession;
let model: StandInModel;
let workArea: string;

beforeAll(async () => {
  agents = await startRealAgents({ name: 'panel-terminal', serve: startPanelSession });
  ({ service: session, model, workArea } = agents);
}, 60_000);

afterAll(async () => {
  await agents?.close();
});

const api: PanelSession['api'] = (method, route, body) => session.api(method, route, body);

it('executes from the agent card, shows the tool line, the answer and the cost, continues in the chat and opens the run in the history', async () => {
  const workdir = path.join(workArea, 'escritor');
  // The stand-in's address and key reach the CLI as the agent's secrets (its process environment).
  const { id: agentId, name } = await agents.standInAgent(
    'Escritor',
    { systemPrompt: 'Seja breve.', workingDirectory: workdir, maxTurns: 0 },
    { description: 'Escreve arquivos', tags: ['docs'] },
  );

  const panel = await openPanelPage(session.browser, session.server.url);
  const { page } = panel;
  const task = 'Crie o arquivo. stand-in:write-file path=out/ola.txt content=ola-painel';
  await openExecuteModal(panel, agentId, task);
  expect(await page.$eval('#execute-task-desc', (element) => (element as unknown as { value: string }).value)).toBe(task);
  await clickOn(panel, '#execute-form-submit');

  // The terminal: the tool line, the answer, the cost line, then the chat opens.
  await untilLine(panel, 'the cost line', (line) => line.startsWith('Custo: $'));
  const lines = await terminalLines(panel);
  expect(lines).toContain("▸ Bash: mkdir -p 'out' && printf '%s\\n' 'ola-painel' > 'out/ola.txt' && cat 'out/ola.txt'");
  expect(lines).toContain('Wrote the file: ola-painel');
  expect(lines).toContain('── Turno 1 ──');
  const history = await api('GET', '/api/executions/history?limit=20&offset=0');
  const run = (history.body.items as any[]).find((item) => item.agentId === agentId);
  expect(run).toMatchObject({ status: 'completed', type: 'agent', agentName: name });
  expect(run.costUsd).toBeGreaterThan(0);
  expect(lines).toContain(`Custo: $${(run.costUsd as number).toFixed(4)} | Turnos: 2`);
  expect(fs.readFileSync(path.join(workdir, 'out/ola.txt'), 'utf8')).toBe('ola-painel\n');
  await page.waitForSelector('#terminal-input-bar:not([hidden])', { timeout: 30_000 });
  await page.screenshot({ path: screenshotPath('panel-terminal-run.png') });

  // Continue in the chat: the CLI resumes the session, so the stand-in sees the earlier turns.
  await page.type('#terminal-input', 'E agora? stand-in:text');
  await clickOn(panel, '#terminal-send-btn');
  await untilLine(panel, 'the continued answer', (line) => line === 'Stand-in answer in four parts.');
  const continued = model
    .messages()
    .filter((request) => request.answer === 'scenario:text')
    .at(-1);
  expect(promptsOf(continued?.body)).toEqual(
    expect.arrayContaining([expect.stringContaining('stand-in:write-file path=out/ola.txt'), 'E agora? stand-in:text']),
  );
  // The answer's line arrives before the record is closed: wait for it.
  const runs = await until(
    'the continued run is completed',
    async () =>
      ((await api('GET', '/api/executions/history?limit=20&offset=0')).body.items as any[]).filter((item) => item.agentId === agentId),
    (items) => items.length === 2 && items[0].status !== 'running',
    30_000,
  );
  expect(runs[0]).toMatchObject({
    source: 'continue',
    status: 'completed',
    parentSessionId: run.sessionId,
    task: 'E agora? stand-in:text',
  });
  // Its report line too: `report_generated` opens the report in the modal the history's detail uses (untilReportShown).
  await untilReportShown(panel, runs[0].id, 2);
  await page.screenshot({ path: screenshotPath('panel-terminal-chat.png') });

  await clickOn(panel, '[data-modal-close="execution-detail-modal-overlay"]');
  await page.waitForSelector('#execution-detail-modal-overlay[hidden]', { timeout: 10_000 });

  // The history lists both runs; the first one's detail shows its task and result.
  await page.goto(`${session.server.url}/app.html#history`, { waitUntil: 'load' });
  await clickOn(panel, `[data-action="view-execution"][data-id="${run.id}"]`);
  await page.waitForSelector('#execution-detail-modal-overlay:not([hidden])', { timeout: 30_000 });
  const detail = (await page.evaluate(`document.getElementById('execution-detail-content').textContent`)) as string;
  expect(detail).toContain(name);
  expect(detail).toContain('stand-in:write-file path=out/ola.txt');
  expect(detail).toContain('Wrote the file: ola-painel');
  await page.screenshot({ path: screenshotPath('panel-history-detail.png') });

  const toasts = await panel.toasts();
  expect(toasts.filter((toast) => toast.kind === 'error')).toEqual([]);
  expect(toasts.filter((toast) => toast.kind === 'success').length).toBeGreaterThanOrEqual(2);
  // Only the browser notification's icon, /favicon.ico, may fail (contract 1.1: the panel has none);
  // /api/repos and /api/tasks exist, so a failure there fails the test.
  const tolerated = ['/favicon.ico'];
  expect(panel.failed.filter((failed) => !tolerated.includes(failed.path.split('?')[0]!))).toEqual([]);
  expect(panel.consoleErrors.filter((error) => !tolerated.some((route) => (error.url ?? '').includes(route)))).toEqual([]);
  expect(panel.external.filter((request) => request.answer === 'blocked')).toEqual([]);
});

/** The terminal's lines with their style (`error`, `system`, ...): the panel renders each type as a class. */
async function styledLines(panel: PanelPage): Promise<Array<{ style: string; text: string }>> {
  return (await panel.page.evaluate(
    `[...document.querySelectorAll('#terminal-output .terminal-line')].filter((line) => line.querySelector('.content')).map((line) => ({ style: line.className.replace('terminal-line', '').trim(), text: line.querySelector('.content').textContent.trim() }))`,
  )) as Array<{ style: string; text: string }>;
}

it("stops a streaming run with the terminal's Stop button: no error toast, no error line of ours, the record canceled", async () => {
  const { id: agentId } = await agents.standInAgent('Interrompido');
  const panel = await openPanelPage(session.browser, session.server.url);
  const { page } = panel;
  await openExecuteModal(panel, agentId, 'Conte devagar. stand-in:lines count=600 every=100 tag=parar');
  await clickOn(panel, '#execute-form-submit');
  await untilLine(panel, 'a streamed line', (line) => line.startsWith('parar '));
  // The Stop button shows while the panel counts an active run.
  await page.waitForSelector('#terminal-stop-btn:not([hidden])', { timeout: 30_000 });
  await clickOn(panel, '#terminal-stop-btn');

  await untilLine(panel, 'the cancel line', (line) => line === 'Execução cancelada');
  const [run] = ((await api('GET', '/api/executions/history?limit=20&offset=0')).body.items as any[]).filter(
    (item) => item.agentId === agentId,
  );
  const ended = await until(
    'the record ends',
    async () => (await api('GET', `/api/executions/history/${run.id}`)).body,
    (view) => view.status !== 'running',
    30_000,
  );
  expect(ended).toMatchObject({ status: 'canceled', error: 'cancelada a pedido do usuário' });
  // The line comes once the record has ended: the panel's refresh of the active runs then finds none.
  await page.waitForSelector('#terminal-stop-btn[hidden]', { timeout: 10_000 });
  // Give a late message the time to arrive before looking: the final message follows the line.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await page.screenshot({ path: screenshotPath('panel-terminal-stopped.png') });

  const lines = await styledLines(panel);
  expect(lines).toContainEqual({ style: 'system', text: 'Execução cancelada' });
  // The only red line is the panel's own answer to its Stop button; nothing the service sent is an error.
  expect(lines.filter((line) => line.style === 'error')).toEqual([{ style: 'error', text: 'Todas as execuções foram interrompidas.' }]);
  const toasts = await panel.toasts();
  expect(toasts.filter((toast) => toast.kind === 'error')).toEqual([]);
  expect(toasts.map((toast) => toast.text)).toContain('Execuções interrompidas');
  expect(panel.failed.filter((failed) => failed.path.split('?')[0] !== '/favicon.ico')).toEqual([]);
});

it('shows the refusal of a run past its daily budget as an error toast, and starts nothing', async () => {
  const { id: agentId, name } = await agents.standInAgent('Sem verba', { maxTurns: 0, dailyBudgetUsd: 0.0001 });
  // One run spends more than the budget (a stand-in:text run costs US$ 0.00015).
  const first = await api('POST', `/api/agents/${agentId}/execute`, { task: 'stand-in:text', instructions: '' });
  expect(first.status).toBe(202);
  await until(
    'the first run',
    async () => (await api('GET', `/api/executions/history/${first.body.executionId}`)).body,
    (found) => found.status === 'completed',
    90_000,
  );

  const panel = await openPanelPage(session.browser, session.server.url);
  await openExecuteModal(panel, agentId, 'stand-in:text de novo');
  await clickOn(panel, '#execute-form-submit');
  const toasts = await until(
    'the refusal toast',
    () => panel.toasts(),
    (shown) => shown.some((toast) => toast.kind === 'error'),
    30_000,
  );
  expect(toasts.find((toast) => toast.kind === 'error')!.text).toContain(
    `O orçamento diário do agente ${name} de US$ 0.0001 foi atingido: US$ 0.00015 gastos hoje`,
  );
  await panel.page.screenshot({ path: screenshotPath('panel-budget-refused.png') });
  const history = (await api('GET', '/api/executions/history?limit=50&offset=0')).body.items as any[];
  expect(history.filter((item) => item.agentId === agentId)).toHaveLength(1);
});
