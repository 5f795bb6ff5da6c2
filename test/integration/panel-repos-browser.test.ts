import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { config as baseConfig, type Config } from '../../lib/config';
import {
  clickOn,
  openExecuteModal,
  openPanelPage,
  screenshotPath,
  startPanelSession,
  type PanelPage,
  type PanelSession,
} from '../support/browser';
import { bareRepository, gitIn } from '../support/git-repos';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import { until } from '../support/waiting';

/**
 * The execute modal's repository and branch selects in Chromium (contract 3.1, 3.14;
 * docs/repositories.md), with the real Claude Code CLI against the stand-in model: the repository
 * list and its branches come from git, the run's change is committed and pushed to the chosen
 * branch of a real bare repository, and the terminal shows the git line. Page code is a string: the
 * project's tsconfig has no DOM library.
 */

jest.setTimeout(240_000);

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'panel-repos-'));
fs.chmodSync(scratch, 0o755);
const reposDir = path.join(scratch, 'repos');
const REPO = `loja-${randomUUID().slice(0, 6)}`;
const repositories: Config['orchestration']['repositories'] = {
  dir: reposDir,
  remotes: [],
  credentials: null,
  mirrorsDir: path.join(scratch, 'mirrors'),
  publishDir: null,
};
const bareGit = (...args: string[]) => gitIn(scratch, '--git-dir', path.join(reposDir, `${REPO}.git`), ...args);

let agents: RealAgents<PanelSession>;
let session: PanelSession;

beforeAll(async () => {
  fs.mkdirSync(reposDir);
  bareRepository(scratch, reposDir, `${REPO}.git`, ['main', 'vitrine'], 'A loja virtual');
  agents = await startRealAgents({
    name: 'panel-repos',
    orchestration: { repositories },
    serve: () => startPanelSession((config) => ({ ...config, orchestration: { ...config.orchestration, repositories } })),
  });
  ({ service: session } = agents);
}, 90_000);

afterAll(async () => {
  await agents?.close();
  fs.rmSync(path.join(baseConfig.orchestration.workdirRoots[0]!, REPO), { recursive: true, force: true });
  fs.rmSync(scratch, { recursive: true, force: true });
});

const optionsOf = (panel: PanelPage, selector: string) =>
  panel.page.evaluate(
    `[...document.querySelectorAll(${JSON.stringify(`${selector} option`)})].map((option) => [option.value, option.textContent])`,
  ) as Promise<[string, string][]>;

it('executes in a repository and branch chosen in the modal; the commit is in the bare repository and the terminal says so', async () => {
  const { id: agentId } = await agents.standInAgent('Vitrinista', { maxTurns: 0 });
  const panel = await openPanelPage(session.browser, session.server.url);
  const { page } = panel;
  await openExecuteModal(panel, agentId, 'Crie a vitrine. stand-in:write-file path=vitrine.html content=ofertas');

  // The select loads GET /api/repos when it gets the focus; choosing one loads its branches.
  await page.focus('#execute-repo');
  const repos = await until(
    'the repositories listed',
    () => optionsOf(panel, '#execute-repo'),
    (options) => options.length > 1,
    15_000,
  );
  expect(repos).toContainEqual([REPO, `${REPO} — A loja virtual`]);
  await page.select('#execute-repo', REPO);
  const branches = await until(
    'the branches listed',
    () => optionsOf(panel, '#execute-repo-branch'),
    (options) => options.length > 1,
    15_000,
  );
  expect(branches).toEqual([
    ['', 'Branch padrão'],
    ['main', 'main'],
    ['vitrine', 'vitrine'],
  ]);
  await page.select('#execute-repo-branch', 'vitrine');
  expect(await page.evaluate(`getComputedStyle(document.getElementById('execute-workdir-group')).display`)).toBe('none');
  await page.screenshot({ path: screenshotPath('panel-repos-modal.png') });
  await clickOn(panel, '#execute-form-submit');

  const gitLine = await until(
    'the git line in the terminal',
    async () =>
      (
        (await page.evaluate(
          `[...document.querySelectorAll('#terminal-output .terminal-line .content')].map((line) => line.textContent.trim())`,
        )) as string[]
      ).find((line) => line.startsWith('Git: commit')),
    (line) => line !== undefined,
    90_000,
  );
  const head = bareGit('rev-parse', 'refs/heads/vitrine');
  expect(gitLine).toBe(`Git: commit ${head.slice(0, 7)} pushed para ${REPO} (1 arquivos) → ${path.join(reposDir, `${REPO}.git`)}`);
  expect(bareGit('show', 'vitrine:vitrine.html')).toBe('ofertas');
  expect(bareGit('rev-list', '--count', 'refs/heads/main')).toBe('1');
  expect(bareGit('log', '-1', '--format=%s', 'vitrine')).toMatch(/^Vitrinista [0-9a-f]{8}: Crie a vitrine\./);
  await page.screenshot({ path: screenshotPath('panel-repos-terminal.png') });

  const toasts = await panel.toasts();
  expect(toasts.filter((toast) => toast.kind === 'error')).toEqual([]);
  // Only the favicon the panel does not have may fail (contract 1.1): /api/tasks exists.
  const tolerated = ['/favicon.ico'];
  expect(panel.failed.filter((failed) => !tolerated.includes(failed.path.split('?')[0]!))).toEqual([]);
});
