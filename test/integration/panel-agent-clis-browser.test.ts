import fs from 'node:fs';
import path from 'node:path';
import {
  clickOn,
  openExecuteModal,
  openPanelPage,
  screenshotPath,
  startPanelSession,
  terminalLines,
  untilLine,
  untilReportShown,
  type PanelSession,
} from '../support/browser';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import { standInSecretsFor } from '../support/stand-in-model/cli-secrets';
import { until } from '../support/waiting';

/**
 * A Codex CLI agent and a Gemini CLI agent in the unchanged panel in Chromium (issue 42; contract rows
 * 7, 9, 10, 50, 53; WebSocket 4.3/4.4), with the real pinned CLIs against the stand-in: imported through
 * the Import dialog, executed from the card with the terminal showing the CLI's live output, continued
 * from the terminal's chat (the CLI resumes its session), found in the history with the cost the service
 * priced from the tokens (neither CLI reports one). Page code is a string: the tsconfig has no DOM library.
 */

jest.setTimeout(300_000);

let agents: RealAgents<PanelSession>;
let session: PanelSession;

beforeAll(async () => {
  agents = await startRealAgents({ name: 'panel-agent-clis', serve: startPanelSession });
  session = agents.service;
}, 60_000);

afterAll(async () => {
  await agents?.close();
});

const api: PanelSession['api'] = (method, route, body) => session.api(method, route, body);

/** How each CLI's run shows in the terminal (docs/codex-cli.md, docs/gemini-cli.md: the output mappers). */
const CASES = [
  {
    cli: 'codex',
    label: 'Codex',
    model: 'gpt-5.5',
    permissionMode: 'workspace-write',
    // Codex prints its command as `/bin/bash -lc '<cmd>'`; the adapter shows the command.
    toolLine: "▸ Shell: mkdir -p 'out' && printf '%s\\n' 'ola-codex' > 'out/ola.txt' && cat 'out/ola.txt'",
  },
  {
    cli: 'gemini',
    label: 'Gemini',
    model: 'gemini-2.5-flash',
    permissionMode: 'yolo',
    // Gemini names its shell tool run_shell_command; the adapter shows the tool's own name.
    toolLine: "▸ run_shell_command: mkdir -p 'out' && printf '%s\\n' 'ola-gemini' > 'out/ola.txt' && cat 'out/ola.txt'",
  },
] as const;

describe.each(CASES)('a $label agent in the panel', ({ cli, label, model, permissionMode, toolLine }) => {
  it('is imported, executed from its card with live output, continued in the chat and found in the history with its cost', async () => {
    const name = `${label} ${Date.now()}`;
    const workdir = path.join(agents.workArea, cli);
    const panel = await openPanelPage(session.browser, session.server.url);
    const { page } = panel;

    // Imported through the panel's Import dialog: an export of an agent of that CLI, pasted.
    await page.goto(`${session.server.url}/app.html#agents`, { waitUntil: 'load' });
    await clickOn(panel, '#import-agent-btn');
    await page.waitForSelector('#import-json-content', { visible: true });
    const exported = {
      agent_name: name,
      description: `Escreve com o ${label}`,
      tags: [cli],
      status: 'active',
      config: { cli, model, permissionMode, systemPrompt: 'Seja breve.', workingDirectory: workdir },
    };
    await page.evaluate(`document.getElementById('import-json-content').value = ${JSON.stringify(JSON.stringify(exported))}`);
    await clickOn(panel, '#import-confirm-btn');
    const agent = await until(
      'the import',
      async () => ((await api('GET', '/api/agents')).body as any[]).find((found) => found.agent_name === name),
      (found) => found !== undefined,
      30_000,
    );
    expect(agent.config).toMatchObject({ cli, model, permissionMode, maxTurns: 0, allowedTools: '' });
    // Its secrets point its CLI at the stand-in (the Secrets dialog is covered by panel-agents-browser).
    for (const [secret, value] of Object.entries(standInSecretsFor(cli, agents.model))) {
      expect((await api('POST', `/api/agents/${agent.id}/secrets`, { name: secret, value })).status).toBe(201);
    }
    await page.waitForFunction(`document.getElementById('import-modal-overlay').hidden === true`, { timeout: 30_000 });

    // Executed from its card: the terminal shows the CLI's tool line and its answer as they come.
    await openExecuteModal(panel, agent.id, `Crie o arquivo. stand-in:write-file path=out/ola.txt content=ola-${cli}`);
    await clickOn(panel, '#execute-form-submit');
    await untilLine(panel, 'the cost line', (line) => line.startsWith('Custo: $'));
    const lines = await terminalLines(panel);
    expect(lines).toContain(toolLine);
    expect(lines).toContain(`Wrote the file: ola-${cli}`);
    expect(lines).toContain('── Turno 1 ──');
    expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/^Resultado: 2 turnos \| .*sessão: /)]));
    expect(fs.readFileSync(path.join(workdir, 'out/ola.txt'), 'utf8')).toBe(`ola-${cli}\n`);
    const first = await until(
      'the run is completed',
      async () =>
        ((await api('GET', '/api/executions/history?limit=50&offset=0')).body.items as any[]).find((item) => item.agentId === agent.id),
      (item) => item?.status === 'completed',
      30_000,
    );
    // The service priced the tokens (lib/model-prices.json); the panel prints that cost and the turns.
    expect(first).toMatchObject({ type: 'agent', agentName: name, cli, model });
    expect(first.costUsd).toBeGreaterThan(0);
    expect(lines).toContain(`Custo: $${(first.costUsd as number).toFixed(4)} | Turnos: 2`);
    await page.waitForSelector('#terminal-input-bar:not([hidden])', { timeout: 30_000 });
    // The panel opens the run's report when its line arrives: closed, the terminal is seen.
    await until(
      "the run's report in the modal",
      () => page.evaluate(`document.getElementById('execution-detail-content').textContent`) as Promise<string>,
      (text) => text.includes(first.id),
      30_000,
    );
    const report = (await page.evaluate(`document.getElementById('execution-detail-content').textContent`)) as string;
    expect(report).toContain(`| CLI | ${cli === 'codex' ? 'OpenAI Codex CLI (codex)' : 'Google Gemini CLI (gemini)'} |`);
    expect(report).toMatch(/\| Duração \| \d+(\.\d+)? s \|/);
    await clickOn(panel, '[data-modal-close="execution-detail-modal-overlay"]');
    await page.waitForSelector('#execution-detail-modal-overlay[hidden]', { timeout: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 400));
    await page.screenshot({ path: screenshotPath(`panel-${cli}-run.png`) });

    // Continued in the chat: the CLI resumes its session by id, in the same working directory.
    await page.type('#terminal-input', 'E agora? stand-in:text');
    await clickOn(panel, '#terminal-send-btn');
    await untilLine(panel, 'the continued answer', (line) => line === 'Stand-in answer in four parts.');
    const runs = await until(
      'the continued run is completed',
      async () =>
        ((await api('GET', '/api/executions/history?limit=50&offset=0')).body.items as any[]).filter((item) => item.agentId === agent.id),
      (items) => items.length === 2 && items[0].status === 'completed',
      30_000,
    );
    expect(runs[0]).toMatchObject({ source: 'continue', cli, parentSessionId: first.sessionId, sessionId: first.sessionId });
    // Its own tokens only (one request of 10 input tokens), priced apart.
    expect(runs[0].inputTokens).toBe(10);
    expect(runs[0].costUsd).toBeGreaterThan(0);
    // The report line of each run, and the panel opening the second report, before the history is opened.
    await untilReportShown(panel, runs[0].id, 2);
    await page.screenshot({ path: screenshotPath(`panel-${cli}-chat.png`) });
    await clickOn(panel, '[data-modal-close="execution-detail-modal-overlay"]');
    await page.waitForSelector('#execution-detail-modal-overlay[hidden]', { timeout: 10_000 });

    // The history: both runs' cards with their costs, the first one's detail with its task and result.
    await page.goto(`${session.server.url}/app.html#history`, { waitUntil: 'load' });
    await page.waitForSelector(`[data-action="view-execution"][data-id="${first.id}"]`, { visible: true, timeout: 30_000 });
    const cards = (await page.evaluate(
      `[...document.querySelectorAll('.history-card')].filter((card) => card.querySelector('.history-card-name').textContent === ${JSON.stringify(name)}).map((card) => card.querySelector('.history-card-cost')?.textContent.trim() ?? '')`,
    )) as string[];
    expect(cards.sort()).toEqual([`$${(first.costUsd as number).toFixed(4)}`, `$${(runs[0].costUsd as number).toFixed(4)}`].sort());
    await page.screenshot({ path: screenshotPath(`panel-${cli}-history.png`) });
    await clickOn(panel, `[data-action="view-execution"][data-id="${first.id}"]`);
    await page.waitForSelector('#execution-detail-modal-overlay:not([hidden])', { timeout: 30_000 });
    const detail = (await page.evaluate(`document.getElementById('execution-detail-content').textContent`)) as string;
    expect(detail).toContain(name);
    expect(detail).toContain(`content=ola-${cli}`);
    expect(detail).toContain(`Wrote the file: ola-${cli}`);
    expect(detail).toContain(`$${(first.costUsd as number).toFixed(4)}`);
    await page.screenshot({ path: screenshotPath(`panel-${cli}-history-detail.png`) });

    expect((await panel.toasts()).filter((toast) => toast.kind === 'error')).toEqual([]);
    const tolerated = ['/favicon.ico'];
    expect(panel.failed.filter((failed) => !tolerated.includes(failed.path.split('?')[0]!))).toEqual([]);
    expect(panel.external.filter((request) => request.answer === 'blocked')).toEqual([]);
    await page.close();
  });
});
