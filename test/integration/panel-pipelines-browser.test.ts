import { randomUUID } from 'node:crypto';
import {
  clickOn,
  openPanelPage,
  screenshotPath,
  startPanelSession,
  terminalLines,
  typeInto,
  type PanelPage,
  type PanelSession,
} from '../support/browser';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import { until } from '../support/waiting';

/**
 * The panel's pipelines in Chromium with the real Claude Code CLI against the stand-in model
 * (contract rows 26-31, 33; WebSocket 4.3): create a pipeline of two agents with an approval gate in
 * the pipeline modal, run it from its card, approve in the banner, see it complete in the terminal.
 * Page code is a string: the project's tsconfig has no DOM library.
 */

jest.setTimeout(240_000);

let agents: RealAgents<PanelSession>;
let session: PanelSession;

beforeAll(async () => {
  agents = await startRealAgents({ name: 'panel-pipelines', serve: startPanelSession });
  session = agents.service;
}, 60_000);

afterAll(async () => {
  await agents?.close();
});

const api: PanelSession['api'] = (method, route, body) => session.api(method, route, body);

const standInAgent = (name: string) => agents.standInAgent(name, { workingDirectory: '', maxTurns: 0 });

it('creates a two-agent pipeline with an approval gate, runs it, approves in the banner and sees it complete', async () => {
  const reviewer = await standInAgent('Revisor');
  const writer = await standInAgent('Redator');
  const name = `Revisão ${randomUUID().slice(0, 8)}`;

  const panel = await openPanelPage(session.browser, session.server.url);
  const { page } = panel;
  await page.goto(`${session.server.url}/app.html#pipelines`, { waitUntil: 'load' });
  // The page loads its agents list once; a modal opened before that has steps without agent options
  // (seen under load in CI: the form then saved nothing). A person waits for the page as well.
  await page.waitForFunction(`PipelinesUI.agents.some((agent) => agent.id === ${JSON.stringify(writer.id)})`, { timeout: 30_000 });
  await clickOn(panel, '#pipelines-new-btn');
  await page.waitForSelector('#pipeline-modal-overlay:not([hidden]) #pipeline-name', { visible: true });
  await typeInto(panel, '#pipeline-name', name);
  await page.select('select[data-step-field="agentId"][data-step-index="0"]', reviewer.id);
  await page.select('select[data-step-field="agentId"][data-step-index="1"]', writer.id);
  expect(
    await page.$$eval('select[data-step-field="agentId"]', (selects) =>
      selects.map((select) => (select as unknown as { value: string }).value),
    ),
  ).toEqual([reviewer.id, writer.id]);
  await page.type('textarea[data-step-field="description"][data-step-index="0"]', 'Revise stand-in:text');
  await page.type('textarea[data-step-field="description"][data-step-index="1"]', 'Resuma');
  // A DOM click, as clickOn does everywhere: under load Chromium has reported the checkbox inside
  // the scrolling modal body as "not clickable" while the modal still laid out.
  await clickOn(panel, 'input[data-step-field="requiresApproval"][data-step-index="1"]');
  expect(await page.$eval('input[data-step-field="requiresApproval"][data-step-index="1"]', (box) => (box as any).checked)).toBe(true);
  await clickOn(panel, '#pipeline-form-submit');

  // The card shows both agents, the second with its approval icon.
  const pipeline = await until(
    'the pipeline is stored',
    async () => ((await api('GET', '/api/pipelines')).body as any[]).find((item) => item.name === name),
    (found) => found !== undefined,
    30_000,
  );
  expect(pipeline.steps.map((step: any) => [step.agentId, step.agentName, step.inputTemplate, step.requiresApproval])).toEqual([
    [reviewer.id, reviewer.name, 'Revise stand-in:text\n\n{{input}}', false],
    [writer.id, writer.name, 'Resuma\n\nResultado do passo anterior:\n{{input}}', true],
  ]);
  await page.waitForSelector(`.pipeline-card[data-pipeline-id="${pipeline.id}"]`, { visible: true, timeout: 30_000 });
  await page.screenshot({ path: screenshotPath('panel-pipeline-card.png') });

  // Run it from its card.
  await clickOn(panel, `[data-action="execute-pipeline"][data-id="${pipeline.id}"]`);
  await page.waitForSelector('#pipeline-execute-input', { visible: true });
  await new Promise((resolve) => setTimeout(resolve, 500));
  await page.click('#pipeline-execute-input');
  await page.type('#pipeline-execute-input', 'o módulo de login');
  await clickOn(panel, '#pipeline-execute-submit');

  // The banner: step 2 waits, the previous agent named; approve there.
  await page.waitForSelector('#approval-approve-btn', { visible: true, timeout: 90_000 });
  const banner = (await page.evaluate(`document.getElementById('approval-notification').textContent`)) as string;
  expect(banner).toContain(`Passo 2 (${reviewer.name}) aguardando autorização`);
  await page.screenshot({ path: screenshotPath('panel-pipeline-approval.png') });
  const waiting = ((await api('GET', '/api/executions/history?type=pipeline&limit=20&offset=0')).body.items as any[]).find(
    (item) => item.pipelineId === pipeline.id,
  );
  expect(waiting).toMatchObject({ status: 'awaiting_approval', pipelineName: name, input: 'o módulo de login' });
  await clickOn(panel, '#approval-approve-btn');

  const lines = await until(
    'the pipeline completes in the terminal',
    () => terminalLines(panel),
    (shown) => shown.includes('Pipeline concluído com sucesso.'),
    90_000,
  );
  expect(lines).toContain(`Pipeline passo 1/2: Executando agente "${reviewer.name}"...`);
  expect(lines).toContain('Passo 2 requer aprovação antes de executar.');
  expect(lines).toContain('Passo aprovado. Continuando pipeline...');
  expect(lines).toContain(`Pipeline passo 2/2: Executando agente "${writer.name}"...`);
  expect(lines).toContain('Stand-in answer in four parts.');
  expect(lines).toContain('OK');
  expect(await page.evaluate(`document.getElementById('approval-notification').hidden`)).toBe(true);
  await page.screenshot({ path: screenshotPath('panel-pipeline-complete.png') });

  const record = (await api('GET', `/api/executions/history/${waiting.id}`)).body;
  expect(record).toMatchObject({ status: 'completed', type: 'pipeline', result: 'OK' });
  expect(record.steps.map((step: any) => [step.agentName, step.status])).toEqual([
    [reviewer.name, 'completed'],
    [writer.name, 'completed'],
  ]);

  const toasts = await panel.toasts();
  expect(toasts.filter((toast) => toast.kind === 'error')).toEqual([]);
  expect(toasts.map((toast) => toast.text)).toEqual(expect.arrayContaining(['Pipeline criado com sucesso', 'Pipeline concluído']));
  // Only the favicon the panel does not have may fail (contract 1.1): /api/repos and /api/tasks exist.
  const tolerated = ['/favicon.ico'];
  expect(panel.failed.filter((failed) => !tolerated.includes(failed.path.split('?')[0]!))).toEqual([]);
  expect(panel.external.filter((request) => request.answer === 'blocked')).toEqual([]);
});

/** Runs pipeline `pipelineId` from its card with `input`, as the user does. */
async function runFromCard(panel: PanelPage, pipelineId: string, input: string): Promise<void> {
  const { page } = panel;
  await page.goto(`${session.server.url}/app.html#pipelines`, { waitUntil: 'load' });
  await clickOn(panel, `[data-action="execute-pipeline"][data-id="${pipelineId}"]`);
  await page.waitForSelector('#pipeline-execute-input', { visible: true });
  await new Promise((resolve) => setTimeout(resolve, 500));
  await page.click('#pipeline-execute-input');
  await page.type('#pipeline-execute-input', input);
  await clickOn(panel, '#pipeline-execute-submit');
}

async function latestRun(pipelineId: string): Promise<any> {
  return ((await api('GET', '/api/executions/history?type=pipeline&limit=20&offset=0')).body.items as any[]).find(
    (item) => item.pipelineId === pipelineId,
  );
}

it('rejects another run in the banner: the run ends rejected and the banner goes away', async () => {
  const reviewer = await standInAgent('Revisor');
  const writer = await standInAgent('Redator');
  const created = await api('POST', '/api/pipelines', {
    name: `Rejeitar ${randomUUID().slice(0, 8)}`,
    description: '',
    workingDirectory: '',
    steps: [
      { agentId: reviewer.id, inputTemplate: '', description: '', requiresApproval: false },
      { agentId: writer.id, inputTemplate: '', description: '', requiresApproval: true },
    ],
  });
  expect(created.status).toBe(201);
  const panel = await openPanelPage(session.browser, session.server.url);
  await runFromCard(panel, created.body.id, 'não siga');
  await panel.page.waitForSelector('#approval-reject-btn', { visible: true, timeout: 90_000 });
  await clickOn(panel, '#approval-reject-btn');
  await until(
    'the rejection in the terminal',
    () => terminalLines(panel),
    (shown) => shown.includes('Pipeline rejeitado no passo 2.'),
    90_000,
  );
  expect(await panel.page.evaluate(`document.getElementById('approval-notification').hidden`)).toBe(true);
  const run = await until(
    'the run is rejected',
    () => latestRun(created.body.id),
    (found) => found?.status === 'rejected',
    30_000,
  );
  expect((await api('GET', `/api/executions/history/${run.id}`)).body.steps).toHaveLength(1);
  await panel.page.screenshot({ path: screenshotPath('panel-pipeline-rejected.png') });
  expect((await panel.toasts()).filter((toast) => toast.kind === 'error')).toEqual([]);
});

it('resumes a failed run from the history: the run goes on from the failed step and completes', async () => {
  const reviewer = await standInAgent('Revisor');
  const writer = await standInAgent('Redator');
  const created = await api('POST', '/api/pipelines', {
    name: `Retomar ${randomUUID().slice(0, 8)}`,
    description: '',
    workingDirectory: '',
    steps: [
      { agentId: reviewer.id, inputTemplate: 'stand-in:text {{input}}', description: '', requiresApproval: false },
      { agentId: writer.id, inputTemplate: 'stand-in:error status=401 {{input}}', description: '', requiresApproval: false },
    ],
  });
  const pipelineId = created.body.id as string;
  const panel = await openPanelPage(session.browser, session.server.url);
  await runFromCard(panel, pipelineId, 'falhe no passo 2');
  await until(
    'the failure in the terminal',
    () => terminalLines(panel),
    (shown) => shown.some((line) => line.startsWith('Erro no passo 2:')),
    90_000,
  );
  const failed = await until(
    'the run failed',
    () => latestRun(pipelineId),
    (found) => found?.status === 'error',
    30_000,
  );
  expect(failed.failedAtStep).toBe(1);

  // The step fixed, resume from the history's Resume button.
  const stored = (await api('GET', `/api/pipelines/${pipelineId}`)).body;
  const steps = stored.steps.map((step: any, index: number) => ({
    ...step,
    inputTemplate: index === 1 ? 'Corrigido: {{input}}' : step.inputTemplate,
  }));
  expect((await api('PUT', `/api/pipelines/${pipelineId}`, { steps })).status).toBe(200);
  await panel.page.goto(`${session.server.url}/app.html#history`, { waitUntil: 'load' });
  await clickOn(panel, `[data-action="resume-pipeline"][data-id="${failed.id}"]`);
  const lines = await until(
    'the resumed run completes',
    () => terminalLines(panel),
    (shown) => shown.includes('Pipeline concluído com sucesso.'),
    90_000,
  );
  expect(lines).toContain('(retomando execução anterior)');
  const resumed = await until(
    'the resumed run is completed',
    () => latestRun(pipelineId),
    (found) => found?.id !== failed.id && found?.status === 'completed',
    30_000,
  );
  const detail = (await api('GET', `/api/executions/history/${resumed.id}`)).body;
  expect(detail).toMatchObject({ source: 'resume', resumedFrom: failed.id, resumedAtStep: 1 });
  expect(detail.steps.map((step: any) => [step.stepIndex, step.status])).toEqual([
    [0, 'completed'],
    [1, 'completed'],
  ]);
  await panel.page.screenshot({ path: screenshotPath('panel-pipeline-resumed.png') });
  const errors = (await panel.toasts()).filter((toast) => toast.kind === 'error').map((toast) => toast.text);
  // The failure's own toast ("Erro no pipeline") is the only error the user sees.
  expect(errors.every((text) => text === 'Erro no pipeline')).toBe(true);
});

it('pauses a run whose step agent is past its daily budget: the banner shows the budget, approving completes the run', async () => {
  const spender = await agents.standInAgent('Gastador', { workingDirectory: '', maxTurns: 0, dailyBudgetUsd: 0.0001 });
  // One run spends more than the budget (a stand-in:text run costs US$ 0.00015).
  const first = await api('POST', `/api/agents/${spender.id}/execute`, { task: 'stand-in:text', instructions: '' });
  expect(first.status).toBe(202);
  await until(
    'the first run',
    async () => (await api('GET', `/api/executions/history/${first.body.executionId}`)).body,
    (found) => found.status === 'completed',
    90_000,
  );
  const created = await api('POST', '/api/pipelines', {
    name: `Orçamento ${randomUUID().slice(0, 8)}`,
    description: '',
    workingDirectory: '',
    steps: [{ agentId: spender.id, inputTemplate: 'stand-in:text {{input}}', description: '', requiresApproval: false }],
  });
  expect(created.status).toBe(201);

  const panel = await openPanelPage(session.browser, session.server.url);
  await runFromCard(panel, created.body.id, 'além do orçamento');
  await panel.page.waitForSelector('#approval-approve-btn', { visible: true, timeout: 90_000 });
  const banner = (await panel.page.evaluate(`document.getElementById('approval-notification').textContent`)) as string;
  expect(banner).toContain(`Passo 1 (${spender.name}) aguardando autorização`);
  const lines = await terminalLines(panel);
  expect(lines.some((line) => line.includes(`O orçamento diário do agente ${spender.name} de US$ 0.0001 foi atingido`))).toBe(true);
  await panel.page.screenshot({ path: screenshotPath('panel-pipeline-budget.png') });
  expect(await latestRun(created.body.id)).toMatchObject({ status: 'awaiting_approval' });

  await clickOn(panel, '#approval-approve-btn');
  await until(
    'the pipeline completes in the terminal',
    () => terminalLines(panel),
    (shown) => shown.includes('Pipeline concluído com sucesso.'),
    90_000,
  );
  expect(await panel.page.evaluate(`document.getElementById('approval-notification').hidden`)).toBe(true);
  const run = await until(
    'the run completes',
    () => latestRun(created.body.id),
    (found) => found?.status === 'completed',
    30_000,
  );
  expect((await api('GET', `/api/executions/history/${run.id}`)).body.steps.map((step: any) => step.status)).toEqual(['completed']);
  expect((await panel.toasts()).filter((toast) => toast.kind === 'error')).toEqual([]);
});
