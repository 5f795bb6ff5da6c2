import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ElementHandle } from 'puppeteer-core';
import {
  clickOn,
  openExecuteModal,
  openPanelPage,
  screenshotPath,
  startPanelSession,
  terminalLines,
  type PanelSession,
} from '../support/browser';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import { until } from '../support/waiting';

/**
 * The execute modal's context files in Chromium (contract 3.1, 3.13; docs/uploads.md), with the real
 * Claude Code CLI against the stand-in model: two files put in the drop zone's file input are uploaded
 * (POST /api/uploads), their paths sent as contextFiles, and the agent, as its pool user, reads them
 * with its Bash tool; the terminal shows the tool line and what it read. Page code is a string: the
 * project's tsconfig has no DOM library.
 */

jest.setTimeout(240_000);

let agents: RealAgents<PanelSession>;
let session: PanelSession;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'panel-uploads-'));
const uploadedDirs = new Set<string>();

beforeAll(async () => {
  agents = await startRealAgents({ name: 'panel-uploads', serve: startPanelSession });
  ({ service: session } = agents);
}, 60_000);

afterAll(async () => {
  await agents?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
  for (const dir of uploadedDirs) fs.rmSync(dir, { recursive: true, force: true });
});

it('uploads two files dropped in the execute modal; the agent reads them and the terminal shows it', async () => {
  const { id: agentId } = await agents.standInAgent('Leitor de anexos', { maxTurns: 0 });
  const files = [
    { name: 'pauta.txt', content: 'pauta-da-reuniao-4b1' },
    { name: 'dados.csv', content: 'coluna;valor-9d2' },
  ].map((file) => {
    const local = path.join(scratch, file.name);
    fs.writeFileSync(local, file.content);
    return { ...file, local };
  });

  const panel = await openPanelPage(session.browser, session.server.url);
  const { page } = panel;
  await openExecuteModal(panel, agentId, 'Leia os anexos. stand-in:read-files');

  // The drop zone's hidden file input: what a drop or "selecione" fills (utils.js initDropzone).
  // No DOM library in the tsconfig: the handle's element type is left open.
  const input = (await page.$('#execute-files')) as ElementHandle<any> | null;
  expect(input).not.toBeNull();
  await input!.uploadFile(...files.map((file) => file.local));
  const listed = await until(
    'the drop zone lists both files',
    () =>
      page.evaluate(`[...document.querySelectorAll('#execute-file-list .dropzone-file-name')].map((name) => name.textContent)`) as Promise<
        string[]
      >,
    (names) => names.length === 2,
    10_000,
  );
  expect(listed).toEqual(['pauta.txt', 'dados.csv']);
  await page.evaluate(`document.getElementById('execute-dropzone').scrollIntoView({ block: 'center' })`);
  await page.screenshot({ path: screenshotPath('panel-uploads-modal.png') });
  await clickOn(panel, '#execute-form-submit');

  const lines = await until(
    'the answer',
    () => terminalLines(panel),
    (seen) => seen.some((line) => line.startsWith('Read the files:')),
    90_000,
  );
  const history = await session.api('GET', `/api/executions/history?agentId=${agentId}`);
  const [run] = history.body.items as any[];
  const stored = [...(run.task as string).matchAll(/^- (\/\S+) \((.+)\)$/gm)].map((match) => ({ path: match[1]!, name: match[2]! }));
  expect(stored.map((file) => file.name)).toEqual(['pauta.txt', 'dados.csv']);
  for (const file of stored) uploadedDirs.add(path.dirname(file.path));
  expect(stored.map((file) => fs.readFileSync(file.path, 'utf8'))).toEqual(files.map((file) => file.content));
  // The terminal shortens a long tool line: it starts with the first file.
  expect(lines.filter((line) => line.startsWith('▸ Bash: cat '))).toEqual([expect.stringContaining(`▸ Bash: cat '${stored[0]!.path}' '`)]);
  expect(lines).toContain('Read the files: pauta-da-reuniao-4b1coluna;valor-9d2');
  await until(
    'the run is completed',
    async () => (await session.api('GET', `/api/executions/history/${run.id}`)).body.status,
    (status) => status === 'completed',
    30_000,
  );
  await page.screenshot({ path: screenshotPath('panel-uploads-terminal.png') });

  const toasts = await panel.toasts();
  expect(toasts.filter((toast) => toast.kind === 'error')).toEqual([]);
  expect(toasts.map((toast) => toast.text)).toContain('Fazendo upload dos arquivos...');
  // Only the favicon the panel does not have may fail (contract 1.1): /api/tasks exists.
  const tolerated = ['/favicon.ico'];
  expect(panel.failed.filter((failed) => !tolerated.includes(failed.path.split('?')[0]!))).toEqual([]);
  expect(panel.external.filter((request) => request.answer === 'blocked')).toEqual([]);
});
