import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { clickOn, openPanelPage, screenshotPath, startPanelSession, type PanelPage, type PanelSession } from '../support/browser';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import { until } from '../support/waiting';

/**
 * The panel's Webhooks page in Chromium against our answers (contract rows 36-41), with the real
 * Claude Code CLI against the stand-in model: create a webhook through its form, see its URL, test
 * it (a real run, broadcast to the page's socket), call the URL from outside as the sample curl
 * does, pause it, delete it; and one of a pipeline, whose test runs the pipeline; success toasts
 * only. Page code is a string: no DOM types here.
 */

jest.setTimeout(240_000);

let agents: RealAgents<PanelSession>;
let session: PanelSession;
let workArea: string;

beforeAll(async () => {
  agents = await startRealAgents({ name: 'panel-webhooks', serve: startPanelSession });
  ({ service: session, workArea } = agents);
}, 60_000);

afterAll(async () => {
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

const cardButton = (id: string, action: string) => `#webhooks-list [data-action="${action}"][data-id="${id}"]`;

/** The card of webhook `id` as the user reads it. */
async function cardText(panel: PanelPage, id: string): Promise<string> {
  return (await panel.page.evaluate(
    `document.querySelector(${JSON.stringify(cardButton(id, 'edit-webhook'))})?.closest('.webhook-card')?.textContent.replace(/\\s+/g, ' ').trim() ?? ''`,
  )) as string;
}

async function untilFinished(executionId: string) {
  return until(
    `the end of ${executionId}`,
    async () => (await api('GET', `/api/executions/history/${executionId}`)).body,
    (record) => ['completed', 'error', 'canceled'].includes(record.status),
    90_000,
  );
}

it('creates a webhook in the form, shows its URL, tests it, is called from outside, pauses and deletes it', async () => {
  const { id: agentId, name: agentName } = await agents.standInAgent('Gancho', {
    workingDirectory: path.join(workArea, 'gancho'),
    maxTurns: 0,
  });

  const panel = await openPanelPage(session.browser, session.server.url);
  const { page } = panel;
  const answered204 = new Set<string>();
  page.on('response', (response) => {
    if (response.status() === 204) answered204.add(`${response.request().method()} ${new URL(response.url()).pathname}`);
  });
  await page.goto(`${session.server.url}/app.html#webhooks`, { waitUntil: 'load' });
  await page.waitForFunction(`document.getElementById('ws-label')?.textContent === 'Conectado'`, { timeout: 30_000 });

  // Create through the form: name, the agent type (default) and the agent chosen in the select.
  const name = `Deploy ${randomUUID().slice(0, 8)}`;
  await clickOn(panel, '#webhooks-new-btn');
  await page.waitForSelector(`#webhook-target-id option[value="${agentId}"]`, { timeout: 30_000 });
  await page.type('#webhook-name', name);
  await page.select('#webhook-target-id', agentId);
  await clickOn(panel, '#webhook-form-submit');
  expect((await toastsUntil(panel, 1))[0]).toEqual({ kind: 'success', text: 'Webhook criado com sucesso' });

  const webhook = ((await api('GET', '/api/webhooks')).body as any[]).find((item) => item.name === name);
  expect(webhook).toMatchObject({
    targetType: 'agent',
    targetId: agentId,
    active: true,
    triggerCount: 0,
    token: expect.stringMatching(/^[0-9a-f]{48}$/),
  });
  const hookUrl = `${session.server.url}/hook/${webhook.token}`;
  await page.waitForSelector(cardButton(webhook.id, 'test-webhook'), { visible: true, timeout: 30_000 });
  const card = await cardText(panel, webhook.id);
  // The target's name resolved from the agents list, the URL built from the token, never triggered.
  expect(card).toContain(name);
  expect(card).toContain('Agente');
  expect(card).toContain('Ativo');
  expect(card).toContain(agentName);
  expect(card).toContain(hookUrl);
  expect(card).toContain('0 disparos');
  expect(card).toContain('Último: Nunca');
  await page.screenshot({ path: screenshotPath('panel-webhooks.png') });

  // Test: a real run, whose messages reach this page (broadcast), then the panel opens the terminal.
  await clickOn(panel, cardButton(webhook.id, 'test-webhook'));
  expect((await toastsUntil(panel, 2))[1]).toEqual({ kind: 'success', text: 'Webhook disparado com sucesso' });
  await page.waitForFunction(`location.hash === '#terminal'`, { timeout: 30_000 });
  const heard = () => panel.sockets[0]!.received.map((frame) => JSON.parse(frame));
  const complete = await until(
    "the test run's execution_complete on the page's socket",
    async () => heard().find((message) => message.type === 'execution_complete' && message.agentId === agentId),
    (message) => message !== undefined,
    90_000,
  );
  expect(complete).toMatchObject({ status: 'completed', data: { result: 'OK' } });
  expect(await untilFinished(complete.executionId)).toMatchObject({
    source: 'webhook-test',
    task: 'Teste de webhook',
    status: 'completed',
  });

  // Called from outside, as the panel's sample curl does: JSON {task, instructions}.
  const response = await fetch(hookUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ task: 'Publique a versão', instructions: 'Seja breve' }),
  });
  expect(response.status).toBe(202);
  const triggered = (await response.json()) as any;
  expect(triggered).toEqual({ executionId: expect.any(String), status: 'started', webhook: name });
  expect(await untilFinished(triggered.executionId)).toMatchObject({ source: 'webhook', task: 'Publique a versão', status: 'completed' });
  await until(
    'its broadcast on the page',
    async () => heard().some((message) => message.type === 'execution_complete' && message.executionId === triggered.executionId),
    (seen) => seen,
    30_000,
  );

  // Back on the page: counted once (the test is not a trigger), with its time.
  await page.goto(`${session.server.url}/app.html#webhooks`, { waitUntil: 'load' });
  await page.waitForSelector(cardButton(webhook.id, 'toggle-webhook'), { visible: true, timeout: 30_000 });
  // The hash change re-renders the list from a new GET: the card shown before may still be there a moment.
  const counted = await until(
    'the card counts the call',
    () => cardText(panel, webhook.id),
    (text) => text.includes('1 disparos'),
    30_000,
  );
  expect(counted).toContain('1 disparos');
  expect(counted).not.toContain('Último: Nunca');

  // Pause: the card says so and the URL answers 403.
  const toastsBefore = (await panel.toasts()).length;
  await clickOn(panel, cardButton(webhook.id, 'toggle-webhook'));
  expect((await toastsUntil(panel, toastsBefore + 1))[toastsBefore]).toEqual({ kind: 'success', text: 'Webhook desativado' });
  await until(
    'the paused card',
    () => cardText(panel, webhook.id),
    (text) => text.includes('Inativo'),
    30_000,
  );
  const paused = await fetch(hookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect([paused.status, await paused.json()]).toEqual([403, { error: 'Webhook desativado' }]);

  // Delete, confirmed in the panel's dialog: the URL is gone.
  await clickOn(panel, cardButton(webhook.id, 'delete-webhook'));
  await clickOn(panel, '#confirm-modal-confirm-btn');
  expect((await toastsUntil(panel, toastsBefore + 2))[toastsBefore + 1]).toEqual({ kind: 'success', text: 'Webhook excluído' });
  const gone = await fetch(hookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect([gone.status, await gone.json()]).toEqual([404, { error: 'Webhook não encontrado' }]);

  expect((await panel.toasts()).filter((toast) => toast.kind === 'error')).toEqual([]);
  const failed = panel.failed.filter((entry) => !(entry.status === 0 && answered204.has(`${entry.method} ${entry.path}`)));
  expect(failed.filter((entry) => entry.path.startsWith('/api/'))).toEqual([]);
  // The panel has no favicon (panel-browser.test.ts: a harmless 404).
  const ours = panel.consoleErrors.filter(
    ({ url }) => (url === null || url.startsWith(session.server.url)) && url !== `${session.server.url}/favicon.ico`,
  );
  expect(ours).toEqual([]);
});

it('creates a webhook of a pipeline in the form and tests it: the pipeline runs', async () => {
  const agent = await agents.standInAgent('Etapa', { workingDirectory: path.join(workArea, 'etapa'), maxTurns: 0 });
  const pipelineName = `Publicação ${randomUUID().slice(0, 8)}`;
  const pipeline = await api('POST', '/api/pipelines', {
    name: pipelineName,
    description: '',
    workingDirectory: path.join(workArea, 'publicacao'),
    status: 'active',
    steps: [{ agentId: agent.id, inputTemplate: null, description: 'única', requiresApproval: false }],
  });
  expect(pipeline.status).toBe(201);
  const pipelineId = pipeline.body.id as string;

  const panel = await openPanelPage(session.browser, session.server.url);
  const { page } = panel;
  await page.goto(`${session.server.url}/app.html#webhooks`, { waitUntil: 'load' });
  await page.waitForFunction(`document.getElementById('ws-label')?.textContent === 'Conectado'`, { timeout: 30_000 });

  // The type select switches the target select to the pipelines (the panel's change handler).
  const name = `Pipeline ${randomUUID().slice(0, 8)}`;
  await clickOn(panel, '#webhooks-new-btn');
  await page.waitForSelector('#webhook-name', { visible: true });
  await page.type('#webhook-name', name);
  await page.select('#webhook-target-type', 'pipeline');
  await page.waitForSelector(`#webhook-target-id option[value="${pipelineId}"]`, { timeout: 30_000 });
  await page.select('#webhook-target-id', pipelineId);
  await clickOn(panel, '#webhook-form-submit');
  expect((await toastsUntil(panel, 1))[0]).toEqual({ kind: 'success', text: 'Webhook criado com sucesso' });

  const webhook = ((await api('GET', '/api/webhooks')).body as any[]).find((item) => item.name === name);
  expect(webhook).toMatchObject({ targetType: 'pipeline', targetId: pipelineId });
  await page.waitForSelector(cardButton(webhook.id, 'test-webhook'), { visible: true, timeout: 30_000 });
  const card = await cardText(panel, webhook.id);
  expect(card).toContain('Pipeline');
  expect(card).toContain(pipelineName);

  await clickOn(panel, cardButton(webhook.id, 'test-webhook'));
  expect((await toastsUntil(panel, 2))[1]).toEqual({ kind: 'success', text: 'Pipeline disparada com sucesso' });
  await page.waitForFunction(`location.hash === '#terminal'`, { timeout: 30_000 });
  const runs = await until(
    'the pipeline run of the test',
    async () => ((await api('GET', '/api/executions/recent?limit=20')).body as any[]).filter((item) => item.pipelineId === pipelineId),
    (list) => list.length > 0,
    30_000,
  );
  expect(await untilFinished(runs[0].id)).toMatchObject({ source: 'webhook-test', status: 'completed' });
  await page.screenshot({ path: screenshotPath('panel-webhooks-pipeline.png') });

  expect((await panel.toasts()).filter((toast) => toast.kind === 'error')).toEqual([]);
  expect(panel.failed.filter((entry) => entry.path.startsWith('/api/'))).toEqual([]);
});
