import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pushRefusedError } from '../../domain/run-messages';
import { config as baseConfig, type Config } from '../../lib/config';
import { bareRepository as makeBare, gitIn } from '../support/git-repos';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import { startTestServer, type TestServer } from '../support/server';
import { until } from '../support/waiting';
import { openSocket } from '../support/websocket';
import { startGitHttpServer, type GitHttpServer } from '../support/git-http';
import { pipelineExecutionWorkflowId } from '../../temporal/contracts/pipeline-execution';
import { jsonCall } from '../support/json-api';

/**
 * Executions in a repository (docs/repositories.md) with the real Claude Code CLI against the
 * stand-in model: the agent writes a file in the working copy, the service commits and pushes it to
 * a real bare repository; unknown repositories and branches are refused at once; a refused push
 * fails the run and keeps the commit; a run that changes nothing pushes nothing; two runs on one
 * repository never run at once.
 */

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'repos-runs-'));
fs.chmodSync(scratch, 0o755);
const reposDir = path.join(scratch, 'repos');
const suffix = randomUUID().slice(0, 6);
const APP = `app-${suffix}`;
const GUARDED = `guarded-${suffix}`;
const repositories: Config['orchestration']['repositories'] = {
  dir: reposDir,
  remotes: [],
  credentials: null,
  mirrorsDir: path.join(scratch, 'mirrors'),
  publishDir: null,
};
// A remote over HTTP behind Basic authentication (git's own http-backend): its credentials are the service's.
const httpRoot = path.join(scratch, 'http');
const SECURE = `secure-${suffix}`;
const TOKEN = `s3cret-${randomUUID()}`;
let gitServer: GitHttpServer;
const projectsRoot = baseConfig.orchestration.workdirRoots[0]!;

const bareGit = (name: string, ...args: string[]) => gitIn(scratch, '--git-dir', path.join(reposDir, `${name}.git`), ...args);
const bareRepository = (name: string, branches: string[]) => makeBare(scratch, reposDir, `${name}.git`, branches);

let agents: RealAgents;
let server: TestServer;
let writer: { id: string; name: string };

beforeAll(async () => {
  fs.mkdirSync(reposDir);
  bareRepository(APP, ['main', 'feature']);
  bareRepository(GUARDED, ['main']);
  fs.writeFileSync(
    path.join(reposDir, `${GUARDED}.git`, 'hooks', 'pre-receive'),
    '#!/bin/sh\necho "pushes are closed by policy" >&2\nexit 1\n',
    { mode: 0o755 },
  );
  fs.mkdirSync(httpRoot);
  bareRepository(SECURE, ['main']);
  fs.renameSync(path.join(reposDir, `${SECURE}.git`), path.join(httpRoot, 'secure.git'));
  gitServer = await startGitHttpServer(httpRoot, 'robot', TOKEN);
  repositories.remotes.push({ name: SECURE, url: `${gitServer.url}/secure.git` });
  repositories.credentials = { username: 'robot', password: TOKEN };
  const withRepositories = (config: Config): Config => ({ ...config, orchestration: { ...config.orchestration, repositories } });
  agents = await startRealAgents({
    name: 'repos',
    maxConcurrent: 4,
    orchestration: { repositories },
    serve: async () => {
      const started = await startTestServer(withRepositories);
      return { server: started, close: () => started.close() };
    },
  });
  ({ server } = agents);
  writer = await agents.standInAgent('escritor');
}, 90_000);

afterAll(async () => {
  await agents?.close();
  await gitServer?.close();
  for (const name of [APP, GUARDED, SECURE]) fs.rmSync(path.join(projectsRoot, name), { recursive: true, force: true });
  fs.rmSync(scratch, { recursive: true, force: true });
});

const call = (method: string, route: string, body?: unknown) => jsonCall(server.url, method, route, body);

const detail = async (id: string) => (await call('GET', `/api/executions/history/${id}`)).body;
const finished = (id: string) =>
  until(
    `${id} final`,
    () => detail(id),
    (record) => !['queued', 'running'].includes(record.status),
    90_000,
  );

async function execute(body: Record<string, unknown>): Promise<string> {
  const answer = await call('POST', `/api/agents/${writer.id}/execute`, { instructions: '', ...body });
  expect(answer).toMatchObject({ status: 202, body: { status: 'queued' } });
  return answer.body.executionId;
}

async function storedRecord(id: string): Promise<Record<string, unknown>> {
  const [rows] = await server.resources.database.pool.query(
    'SELECT repo_name, repo_branch, repo_commit, working_directory, output FROM executions WHERE id = ?',
    [id],
  );
  return (rows as Record<string, unknown>[])[0]!;
}

describe('an execution in a repository', () => {
  it('works in <projects>/<repo> on the default branch; the change is committed and pushed, and the terminal says so', async () => {
    const id = await execute({ task: 'stand-in:write-file path=hello.txt content=ola', repoName: APP });
    const record = await finished(id);
    expect(record).toMatchObject({ status: 'completed', workingDirectory: path.join(projectsRoot, APP), error: null });
    const stored = await storedRecord(id);
    const head = bareGit(APP, 'rev-parse', 'refs/heads/main');
    expect(stored).toMatchObject({ repo_name: APP, repo_branch: 'main', repo_commit: head });
    expect(record).toMatchObject({ repoName: APP, repoBranch: 'main', repoCommit: head, contextFiles: [] });
    expect(bareGit(APP, 'show', 'main:hello.txt')).toBe('ola');
    const message = bareGit(APP, 'log', '-1', '--format=%B', 'main');
    expect(message).toContain(`Execução: ${id}`);
    expect(message).toContain(`Agente: ${writer.name}`);
    expect(message.split('\n')[0]).toBe(`${writer.name}: stand-in:write-file path=hello.txt content=ola`.slice(0, 72));
    expect(String(stored.output)).toContain(
      `Git: commit ${head.slice(0, 7)} pushed para ${APP} (1 arquivos) → ${path.join(reposDir, `${APP}.git`)}`,
    );
  });

  it('checks out the branch asked for and pushes to it only', async () => {
    const mainBefore = bareGit(APP, 'rev-parse', 'refs/heads/main');
    const id = await execute({ task: 'stand-in:write-file path=feature.txt content=nova', repoName: APP, repoBranch: 'feature' });
    expect(await finished(id)).toMatchObject({ status: 'completed' });
    expect(await storedRecord(id)).toMatchObject({ repo_branch: 'feature', repo_commit: bareGit(APP, 'rev-parse', 'refs/heads/feature') });
    expect(bareGit(APP, 'show', 'feature:feature.txt')).toBe('nova');
    expect(bareGit(APP, 'rev-parse', 'refs/heads/main')).toBe(mainBefore);
  });

  it('a run that changes nothing pushes nothing', async () => {
    const before = bareGit(APP, 'rev-parse', 'refs/heads/main');
    const id = await execute({ task: 'Just answer.', repoName: APP });
    expect(await finished(id)).toMatchObject({ status: 'completed' });
    expect(await storedRecord(id)).toMatchObject({ repo_commit: null });
    expect(bareGit(APP, 'rev-parse', 'refs/heads/main')).toBe(before);
  });

  it('refuses an unknown repository or branch, and a branch without a repository, at once and storing nothing', async () => {
    const count = async () => ((await server.resources.database.pool.query('SELECT COUNT(*) AS n FROM executions')) as any)[0][0].n;
    const before = await count();
    const refusals: [Record<string, unknown>, number, string][] = [
      [{ repoName: 'nope' }, 404, 'Repositório não encontrado: "nope"'],
      [{ repoName: APP, repoBranch: 'nope' }, 404, `Branch "nope" não encontrada no repositório "${APP}"`],
      [{ repoBranch: 'main' }, 400, 'repoBranch exige repoName'],
    ];
    for (const [fields, status, error] of refusals) {
      expect(await call('POST', `/api/agents/${writer.id}/execute`, { task: 'x', instructions: '', ...fields })).toEqual({
        status,
        body: { error },
      });
    }
    expect(await count()).toBe(before);
  });

  it('a refused push fails the run with the reason and keeps the commit in the working copy', async () => {
    const before = bareGit(GUARDED, 'rev-parse', 'refs/heads/main');
    const id = await execute({ task: 'stand-in:write-file path=work.txt content=trabalho', repoName: GUARDED });
    const record = await finished(id);
    expect(record.status).toBe('error');
    expect(record.error).toContain(pushRefusedError(GUARDED, ''));
    expect(record.error).toContain('pushes are closed by policy');
    const stored = await storedRecord(id);
    expect(stored.repo_commit).toMatch(/^[0-9a-f]{40}$/);
    expect(bareGit(GUARDED, 'rev-parse', 'refs/heads/main')).toBe(before);
    const workingCopy = path.join(projectsRoot, GUARDED);
    expect(gitIn(workingCopy, '-c', `safe.directory=${workingCopy}`, 'rev-parse', 'HEAD')).toBe(stored.repo_commit);
    expect(fs.readFileSync(path.join(workingCopy, 'work.txt'), 'utf8').trim()).toBe('trabalho');
  });

  it('two runs on one repository never run at once: the second starts when the first has ended', async () => {
    const first = await execute({ task: 'stand-in:write-file path=one.txt content=um', repoName: APP });
    const second = await execute({ task: 'stand-in:write-file path=two.txt content=dois', repoName: APP });
    const [a, b] = [await finished(first), await finished(second)];
    expect([a.status, b.status]).toEqual(['completed', 'completed']);
    expect(new Date(b.startedAt).getTime()).toBeGreaterThanOrEqual(new Date(a.endedAt).getTime());
    expect(bareGit(APP, 'show', 'main:one.txt')).toBe('um');
    expect(bareGit(APP, 'show', 'main:two.txt')).toBe('dois');
  });

  it('a pipeline in a repository: every step in the working copy, one commit and push after the last, announced without a step id', async () => {
    const reviewer = await agents.standInAgent('revisor');
    const created = await call('POST', '/api/pipelines', {
      name: `repo pipeline ${suffix}`,
      description: '',
      steps: [
        {
          agentId: writer.id,
          inputTemplate: 'stand-in:write-file path=step1.txt content=primeiro',
          description: '',
          requiresApproval: false,
        },
        {
          agentId: reviewer.id,
          inputTemplate: 'stand-in:write-file path=step2.txt content=segundo',
          description: '',
          requiresApproval: false,
        },
      ],
    });
    expect(created.status).toBe(201);
    const clientId = `painel-${randomUUID()}`;
    const probe = await openSocket(`${server.url.replace(/^http/, 'ws')}/?clientId=${clientId}`);
    try {
      expect(await probe.nextMessage()).toEqual({ type: 'connected', clientId });
      const before = bareGit(APP, 'rev-list', '--count', 'refs/heads/main');
      const response = await fetch(`${server.url}/api/pipelines/${created.body.id}/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-client-id': clientId },
        body: JSON.stringify({ input: 'Escreva', repoName: APP }),
      });
      expect(response.status).toBe(202);
      const runId = ((await response.json()) as { executionId: string }).executionId;
      const messages: any[] = [];
      for (;;) {
        const message: any = await probe.nextMessage();
        messages.push(message);
        if (message.type === 'pipeline_complete' || message.type === 'pipeline_error') break;
      }
      expect(messages[messages.length - 1].type).toBe('pipeline_complete');
      const head = bareGit(APP, 'rev-parse', 'refs/heads/main');
      // One commit for the whole run, with both steps' files.
      expect(Number(bareGit(APP, 'rev-list', '--count', 'refs/heads/main'))).toBe(Number(before) + 1);
      expect([bareGit(APP, 'show', 'main:step1.txt'), bareGit(APP, 'show', 'main:step2.txt')]).toEqual(['primeiro', 'segundo']);
      expect(bareGit(APP, 'log', '-1', '--format=%B', 'main')).toContain(`Execução: ${runId}`);
      const gitLine = messages.find((message) => message.type === 'pipeline_step_output' && message.data?.type === 'success');
      expect(gitLine).toEqual({
        type: 'pipeline_step_output',
        pipelineId: created.body.id,
        pipelineExecutionId: runId,
        stepIndex: 1,
        data: {
          type: 'success',
          content: `Git: commit ${head.slice(0, 7)} pushed para ${APP} (2 arquivos) → ${path.join(reposDir, `${APP}.git`)}`,
        },
      });
      expect(await storedRecord(runId)).toMatchObject({
        repo_name: APP,
        repo_branch: 'main',
        repo_commit: head,
        working_directory: path.join(projectsRoot, APP),
      });
    } finally {
      probe.socket.terminate();
    }
  });

  it('a remote with credentials: the service authenticates its own fetch and push; nothing of them reaches the working copy', async () => {
    expect(await call('GET', `/api/repos/${SECURE}/branches`)).toEqual({ status: 200, body: ['main'] });
    const id = await execute({ task: 'stand-in:write-file path=secure.txt content=seguro', repoName: SECURE });
    expect(await finished(id)).toMatchObject({ status: 'completed' });
    const remote = (...args: string[]) => gitIn(scratch, '--git-dir', path.join(httpRoot, 'secure.git'), ...args);
    expect(await storedRecord(id)).toMatchObject({ repo_commit: remote('rev-parse', 'refs/heads/main') });
    expect(remote('show', 'main:secure.txt')).toBe('seguro');
    // Every request that got through carried the service's credentials; the push among them.
    const pushes = gitServer.requests.filter(
      (request) => request.service === 'git-receive-pack' && request.credentials === `robot:${TOKEN}`,
    );
    expect(pushes.length).toBeGreaterThan(0);
    // Neither the working copy (its .git included) nor the mirror's configuration holds the secret or a URL with it.
    const workingCopy = path.join(projectsRoot, SECURE);
    const holding: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.isFile() && fs.readFileSync(full).includes(TOKEN)) holding.push(full);
      }
    };
    walk(workingCopy);
    expect(holding).toEqual([]);
    expect(fs.readFileSync(path.join(workingCopy, '.git', 'config'), 'utf8')).not.toContain('robot');
    const mirrorConfig = fs.readFileSync(path.join(repositories.mirrorsDir, `${SECURE}.git`, 'config'), 'utf8');
    expect(mirrorConfig).not.toContain(TOKEN);
    expect(mirrorConfig).toContain(`url = ${gitServer.url}/secure.git`);
  });

  it('a pipeline whose push is refused fails after its last step (the workflow too); a resume pushes once the remote accepts', async () => {
    const created = await call('POST', '/api/pipelines', {
      name: `guarded pipeline ${suffix}`,
      description: '',
      steps: [
        {
          agentId: writer.id,
          inputTemplate: 'stand-in:write-file path=guarded.txt content=guardado',
          description: '',
          requiresApproval: false,
        },
      ],
    });
    expect(created.status).toBe(201);
    const started = await call('POST', `/api/pipelines/${created.body.id}/execute`, { input: 'Escreva', repoName: GUARDED });
    expect(started.status).toBe(202);
    const runId = started.body.executionId as string;
    const failed = await finished(runId);
    expect(failed).toMatchObject({ status: 'error', failedAtStep: 1 });
    expect(failed.error).toContain(pushRefusedError(GUARDED, ''));
    const result = await server.resources.temporal.client.workflow.getHandle(pipelineExecutionWorkflowId(runId)).result();
    expect(result).toEqual({ runId, status: 'error' });

    fs.rmSync(path.join(reposDir, `${GUARDED}.git`, 'hooks', 'pre-receive'));
    const resumed = await call('POST', `/api/pipelines/resume/${runId}`);
    expect(resumed).toMatchObject({ status: 202, body: { resumedAtStep: 1 } });
    const done = await finished(resumed.body.executionId);
    expect(done).toMatchObject({ status: 'completed' });
    expect(bareGit(GUARDED, 'show', 'main:guarded.txt')).toBe('guardado');
    expect(done.repoCommit).toBe(bareGit(GUARDED, 'rev-parse', 'refs/heads/main'));
  });
});
