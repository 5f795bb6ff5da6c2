import {
  clickOn,
  openPanelPage,
  screenshotPath,
  startPanelSession,
  type PanelPage,
  type PanelSession,
  typeInto,
  type TestBrowser,
} from '../support/browser';
import type { TestServer } from '../support/server';
import { until } from '../support/waiting';

/**
 * The panel's Agents page in Chromium against our answers (contract rows 1-8, 12-16): create and edit
 * an agent through its form, add a secret, list the versions and restore one, duplicate, export,
 * import and delete, each with the panel's own code, success toasts only. Page code is a string: the
 * project's tsconfig has no DOM library.
 */

jest.setTimeout(180_000);

let session: PanelSession;
let server: TestServer;
let browser: TestBrowser;

beforeAll(async () => {
  session = await startPanelSession();
  ({ server, browser } = session);
});

afterAll(() => session?.close());

const api: PanelSession['api'] = (method, route, body) => session.api(method, route, body);

/** Waits for the `count`-th toast and answers them all. */
async function toastsUntil(panel: PanelPage, count: number) {
  return until(
    `toast ${count}`,
    () => panel.toasts(),
    (list) => list.length >= count,
    30_000,
  );
}

/** The agent card's button for `action`. */
const cardButton = (id: string, action: string) => `.agent-card[data-agent-id="${id}"] [data-action="${action}"]`;

/**
 * Clicks a card's button in the page itself: the grid is re-rendered after each change (the panel
 * reloads the list), so a handle taken from the page may be detached by the time it is clicked.
 */
/** Clicks an element in the page itself (the modals animate: a click by coordinates may land beside it). */
async function clickCard(panel: PanelPage, id: string, action: string): Promise<void> {
  await clickOn(panel, cardButton(id, action));
}

async function agentNamed(name: string) {
  const list = (await api('GET', '/api/agents')).body as any[];
  return list.find((agent) => agent.agent_name === name);
}

it('creates, edits, keeps a secret, restores a version, duplicates, exports, imports and deletes an agent through the Agents page', async () => {
  const name = `Revisor ${Date.now()}`;
  const panel = await openPanelPage(browser, server.url);
  const { page } = panel;
  // Chromium reports a fetch answered 204 as a failed request too (net::ERR_ABORTED) once it has its answer.
  const answered204 = new Set<string>();
  page.on('response', (response) => {
    if (response.status() === 204) answered204.add(`${response.request().method()} ${new URL(response.url()).pathname}`);
  });
  await page.goto(`${server.url}/app.html#agents`, { waitUntil: 'load' });
  await page.waitForSelector('#new-agent-btn', { visible: true, timeout: 30_000 });

  // Create through the form: its defaults (workdir /home/projetos/, 0 turns, '' permission mode) and what we type.
  await clickOn(panel, '#new-agent-btn');
  await page.waitForSelector('#agent-name', { visible: true });
  // Modal.open focuses the form's first input 50 ms after opening: type once it has.
  await page.waitForFunction(`document.activeElement?.id === 'agent-name'`, { timeout: 30_000 });
  await typeInto(panel, '#agent-name', name);
  await typeInto(panel, '#agent-description', 'Revisa pull requests');
  await typeInto(panel, '#agent-system-prompt', 'Você é um revisor.');
  await page.select('#agent-model', 'claude-opus-4-6');
  await typeInto(panel, '#agent-allowed-tools', 'Bash,Read');
  await page.type('#agent-tags-input', 'review');
  await page.keyboard.press('Enter');
  await clickOn(panel, '#agent-form-submit');
  expect((await toastsUntil(panel, 1))[0]).toEqual({ kind: 'success', text: 'Agente criado com sucesso' });
  await page
    .waitForFunction(
      `[...document.querySelectorAll('.agent-card .agent-name')].some((el) => el.textContent.trim() === ${JSON.stringify(name)})`,
      { timeout: 30_000 },
    )
    .catch(async (error: unknown) => {
      // Seen once in a full run and never alone: say what the page went through when the card does not show.
      const cards = await page.evaluate(`document.querySelectorAll('.agent-card').length`);
      const stored = (await agentNamed(name)) !== undefined;
      const alike = ((await api('GET', '/api/agents')).body as any[])
        .map((agent) => agent.agent_name)
        .filter((n) => n.startsWith('Revisor'));
      throw new Error(
        `${(error as Error).message}; cards shown: ${String(cards)}; stored: ${stored}; names alike: ${JSON.stringify(alike)}; toasts: ${JSON.stringify(await panel.toasts())}; ` +
          `failed: ${JSON.stringify(panel.failed)}; console errors: ${JSON.stringify(panel.consoleErrors)}`,
      );
    });

  const created = await agentNamed(name);
  expect(created).toMatchObject({
    description: 'Revisa pull requests',
    tags: ['review'],
    status: 'active',
    config: {
      systemPrompt: 'Você é um revisor.',
      model: 'claude-opus-4-6',
      workingDirectory: '/home/projetos',
      allowedTools: 'Bash,Read',
      maxTurns: 0,
      permissionMode: '',
      retryOnFailure: false,
      maxRetries: 3,
      delegateTo: '',
    },
    version: 1,
  });
  const card = await page.evaluate(`(() => {
    const card = document.querySelector('.agent-card[data-agent-id="${created.id}"]');
    return { badge: card.querySelector('.badge').textContent.trim(), meta: card.querySelector('.agent-meta-item').textContent.trim(), tags: [...card.querySelectorAll('.tag-chip')].map((el) => el.textContent.trim()) };
  })()`);
  expect(card).toEqual({ badge: 'Ativo', meta: 'claude-opus-4-6', tags: ['review'] });

  // Edit: the form shows what GET /agents/{id} answered; a secret is added from it; the save writes version 2.
  await clickCard(panel, created.id, 'edit');
  await page.waitForFunction(`document.getElementById('agent-form-id').value === ${JSON.stringify(created.id)}`, { timeout: 30_000 });
  const form = await page.evaluate(`({
    name: document.getElementById('agent-name').value,
    prompt: document.getElementById('agent-system-prompt').value,
    model: document.getElementById('agent-model').value,
    workdir: document.getElementById('agent-workdir').value,
    tools: document.getElementById('agent-allowed-tools').value,
    tags: document.getElementById('agent-tags').value,
    active: document.getElementById('agent-status-toggle').checked,
  })`);
  expect(form).toEqual({
    name,
    prompt: 'Você é um revisor.',
    model: 'claude-opus-4-6',
    workdir: '/home/projetos',
    tools: 'Bash,Read',
    tags: '["review"]',
    active: true,
  });

  // The panel's Modal.open focuses the form's first input 50 ms after opening: typed before that, the
  // secret's name would land in the agent's name on a loaded machine (seen in CI).
  await page.waitForFunction(`document.activeElement?.closest('#agent-modal-overlay') != null`, { timeout: 30_000 });
  // Seen once in CI: keys landed elsewhere (the warning 'Nome do secret é obrigatório').
  await typeInto(panel, '#agent-secret-name', 'API_TOKEN');
  await typeInto(panel, '#agent-secret-value', 's3cr3t');
  await clickOn(panel, '#agent-secret-add-btn');
  expect((await toastsUntil(panel, 2))[1]).toEqual({ kind: 'success', text: 'Secret "API_TOKEN" salvo' });
  await page.waitForFunction(
    `[...document.querySelectorAll('#agent-secrets-list .secret-name')].map((el) => el.textContent.trim()).join() === 'API_TOKEN'`,
    { timeout: 30_000 },
  );

  await page.evaluate(`document.getElementById('agent-system-prompt').value = 'Só leia os testes.'`);
  await clickOn(panel, '#agent-form-submit');
  expect((await toastsUntil(panel, 3))[2]).toEqual({ kind: 'success', text: 'Agente atualizado com sucesso' });
  expect((await api('GET', `/api/agents/${created.id}`)).body).toMatchObject({
    version: 2,
    config: { systemPrompt: 'Só leia os testes.', model: 'claude-opus-4-6' },
  });
  expect((await api('GET', `/api/agents/${created.id}/secrets`)).body).toEqual([{ name: 'API_TOKEN', created_at: expect.any(String) }]);

  // Versions: v2 (current, "System Prompt" changed) over v1; restoring v1 brings the first prompt back as v3.
  await page.waitForFunction(`!document.querySelector('#agent-modal-overlay:not([hidden])')`, { timeout: 30_000 });
  await clickCard(panel, created.id, 'versions');
  await page.waitForFunction(`document.querySelectorAll('#agent-versions-content .version-item').length === 2`, { timeout: 30_000 });
  const versions = await page.evaluate(`[...document.querySelectorAll('#agent-versions-content .version-item')].map((item) => ({
    number: item.querySelector('.version-number').textContent.trim(),
    current: item.querySelector('.badge-active')?.textContent.trim() ?? null,
    badges: [...item.querySelectorAll('.version-field-badge')].map((el) => el.textContent.trim()),
    changelog: item.querySelector('.version-changelog')?.textContent.trim() ?? null,
    date: item.querySelector('.version-date').textContent.trim(),
  }))`);
  expect(versions).toEqual([
    {
      number: 'v2',
      current: 'Atual',
      badges: ['System Prompt'],
      changelog: 'Atualizado: systemPrompt',
      date: expect.not.stringMatching(/—|Invalid/),
    },
    { number: 'v1', current: null, badges: [], changelog: 'Criado', date: expect.not.stringMatching(/—|Invalid/) },
  ]);
  await page.screenshot({ path: screenshotPath('panel-agent-versions.png') });
  await clickOn(panel, '[data-restore-version="1"]');
  await clickOn(panel, '#confirm-modal-confirm-btn');
  expect((await toastsUntil(panel, 4))[3]).toEqual({ kind: 'success', text: 'Versão v1 restaurada' });
  expect((await api('GET', `/api/agents/${created.id}`)).body).toMatchObject({
    version: 3,
    config: { systemPrompt: 'Você é um revisor.' },
  });

  // Duplicate: a card "<name> (cópia)".
  await clickCard(panel, created.id, 'duplicate');
  expect((await toastsUntil(panel, 5))[4]).toEqual({ kind: 'success', text: 'Agente duplicado com sucesso' });
  const copy = await until(
    'the copy',
    () => agentNamed(`${name} (cópia)`),
    (agent) => agent !== undefined,
  );
  await page.waitForSelector(`.agent-card[data-agent-id="${copy.id}"]`, { timeout: 30_000 });

  // Export shows the contract's object; pasting it in the import modal creates "<name> (importado)".
  await clickCard(panel, created.id, 'export');
  await page.waitForFunction(`document.getElementById('export-code-content').textContent.length > 0`, { timeout: 30_000 });
  const exported = JSON.parse((await page.evaluate(`document.getElementById('export-code-content').textContent`)) as string);
  expect(exported).toEqual({
    agent_name: name,
    description: 'Revisa pull requests',
    tags: ['review'],
    config: expect.objectContaining({ systemPrompt: 'Você é um revisor.' }),
    status: 'active',
  });
  await page.evaluate(`Modal.close('export-modal-overlay')`);
  await clickOn(panel, '#import-agent-btn');
  await page.waitForSelector('#import-json-content', { visible: true });
  await page.evaluate(`document.getElementById('import-json-content').value = ${JSON.stringify(JSON.stringify(exported))}`);
  await clickOn(panel, '#import-confirm-btn');
  expect((await toastsUntil(panel, 6))[5]).toEqual({ kind: 'success', text: 'Agente importado com sucesso' });
  const imported = await until(
    'the import',
    () => agentNamed(`${name} (importado)`),
    (agent) => agent !== undefined,
  );
  expect(imported.config).toEqual(exported.config);

  // Delete the copy (204: the panel reads no body).
  await clickCard(panel, copy.id, 'delete');
  await clickOn(panel, '#confirm-modal-confirm-btn');
  expect((await toastsUntil(panel, 7))[6]).toEqual({ kind: 'success', text: 'Agente excluído com sucesso' });
  expect((await api('GET', `/api/agents/${copy.id}`)).status).toBe(404);

  expect((await panel.toasts()).filter((toast) => toast.kind !== 'success')).toEqual([]);
  const failed = panel.failed.filter((entry) => !(entry.status === 0 && answered204.has(`${entry.method} ${entry.path}`)));
  expect(failed.filter((entry) => entry.path.startsWith('/api/agents'))).toEqual([]);
  await page.close();
  for (const agent of [created, imported]) await api('DELETE', `/api/agents/${agent.id}`);
});

it('imports a Codex agent through the Import dialog and saves it from the unchanged form: still a Codex agent, its model and mode kept (docs/agents.md, "Which CLI an agent runs")', async () => {
  const name = `Codex ${Date.now()}`;
  const panel = await openPanelPage(browser, server.url);
  const { page } = panel;
  await page.goto(`${server.url}/app.html#agents`, { waitUntil: 'load' });
  await page.waitForSelector('#import-agent-btn', { visible: true, timeout: 30_000 });

  // An export of a Codex agent, pasted in the panel's import modal.
  const exported = {
    agent_name: name,
    description: 'Revisa com o Codex',
    tags: ['codex'],
    status: 'active',
    config: {
      cli: 'codex',
      systemPrompt: 'Seja breve.',
      model: 'gpt-5.5',
      workingDirectory: '/home/projetos',
      permissionMode: 'read-only',
    },
  };
  await clickOn(panel, '#import-agent-btn');
  await page.waitForSelector('#import-json-content', { visible: true });
  await page.evaluate(`document.getElementById('import-json-content').value = ${JSON.stringify(JSON.stringify(exported))}`);
  await clickOn(panel, '#import-confirm-btn');
  expect((await toastsUntil(panel, 1))[0]).toEqual({ kind: 'success', text: 'Agente importado com sucesso' });
  const agent = await until(
    'the import',
    () => agentNamed(name),
    (found) => found !== undefined,
  );
  expect(agent.config).toMatchObject({ cli: 'codex', model: 'gpt-5.5', permissionMode: 'read-only', maxTurns: 0, allowedTools: '' });
  await page.waitForSelector(`.agent-card[data-agent-id="${agent.id}"]`, { timeout: 30_000 });

  // The form cannot show gpt-5.5 nor read-only: its selects hold nothing, and its save falls back to a Claude model and ''.
  // The import modal closes (hidden 200 ms after its toast) before the edit modal opens.
  await page.waitForFunction(`document.getElementById('import-modal-overlay').hidden === true`, { timeout: 30_000 });
  await clickCard(panel, agent.id, 'edit');
  await page.waitForFunction(`document.getElementById('agent-form-id').value === ${JSON.stringify(agent.id)}`, { timeout: 30_000 });
  const form = await page.evaluate(`({
    model: document.getElementById('agent-model').value,
    mode: document.getElementById('agent-permission-mode').value,
    turns: document.getElementById('agent-max-turns').value,
    tools: document.getElementById('agent-allowed-tools').value,
  })`);
  expect(form).toEqual({ model: '', mode: '', turns: '0', tools: '' });
  await page.waitForFunction(`document.activeElement?.closest('#agent-modal-overlay') != null`, { timeout: 30_000 });
  await page.evaluate(`document.getElementById('agent-system-prompt').value = 'Revise só os testes.'`);
  await clickOn(panel, '#agent-form-submit');
  expect((await toastsUntil(panel, 2))[1]).toEqual({ kind: 'success', text: 'Agente atualizado com sucesso' });
  expect((await api('GET', `/api/agents/${agent.id}`)).body).toMatchObject({
    version: 2,
    config: {
      cli: 'codex',
      systemPrompt: 'Revise só os testes.',
      model: 'gpt-5.5',
      permissionMode: 'read-only',
      maxTurns: 0,
      allowedTools: '',
    },
  });

  // A turn limit typed in the form: refused with the reason in the panel's toast, the agent unchanged.
  await page.waitForFunction(`!document.querySelector('#agent-modal-overlay:not([hidden])')`, { timeout: 30_000 });
  await clickCard(panel, agent.id, 'edit');
  await page.waitForFunction(`document.getElementById('agent-system-prompt').value === 'Revise só os testes.'`, { timeout: 30_000 });
  await page.evaluate(`document.getElementById('agent-max-turns').value = '5'`);
  await clickOn(panel, '#agent-form-submit');
  expect((await toastsUntil(panel, 3))[2]).toEqual({
    kind: 'error',
    text: 'Erro ao salvar agente: config.maxTurns: o CLI codex (OpenAI Codex CLI) não tem limite de turnos: use 0 (sem limite)',
  });
  // The modals and toasts animate: a screenshot taken at once shows the frames before them.
  await new Promise((resolve) => setTimeout(resolve, 600));
  await page.screenshot({ path: screenshotPath('panel-agent-codex-refused.png') });
  expect((await api('GET', `/api/agents/${agent.id}`)).body).toMatchObject({ version: 2, config: { cli: 'codex', maxTurns: 0 } });

  await page.close();
  await api('DELETE', `/api/agents/${agent.id}`);
});
