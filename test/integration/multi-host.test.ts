import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { config as baseConfig, type Config } from '../../lib/config';
import { logger } from '../../lib/logger';
import { repoRoot } from '../../lib/paths';
import { createFollowUpActivities } from '../../activities/agents/follow-ups';
import { createScheduleActivities } from '../../activities/schedules/scheduled-run';
import { startAgentsWorker } from '../../workers/agents';
import type { QueueWorker } from '../../workers/queue-worker';
import { promptsOf } from '../support/stand-in-model';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import { startTestServer, type TestServer } from '../support/server';
import { until } from '../support/waiting';
import { jsonCall } from '../support/json-api';

/**
 * Agents on more than one machine (docs/multi-host.md), on the real stack with the real CLI: two
 * agents workers with their own host names and their own roots (host A holds only rootA, host B only
 * rootB), and an API whose files area is both roots. A run that went to the wrong host would be refused
 * there (its directory is not under that worker's roots, and its record is pinned elsewhere): every
 * run below completes only if it reached the host that holds its directory.
 */

const CLAUDE_CLI = path.join(repoRoot, 'node_modules/.bin/claude');
const FINAL = ['completed', 'error', 'canceled', 'rejected'];

describe('agents on two hosts', () => {
  const suffix = `${process.pid}-${Date.now()}`;
  const hostA = `mh-a-${suffix}`;
  const hostB = `mh-b-${suffix}`;
  let agents: RealAgents;
  let server: TestServer;
  let workerB: QueueWorker | undefined;
  let rootA: string;
  let rootB: string;
  const pipelines: string[] = [];

  const workerConfig = (host: string, root: string): Partial<Config['orchestration']> => ({ host, workdirRoots: [root] });

  beforeAll(async () => {
    // The suite's area (under the first configured root) holds the two hosts' roots.
    const area = path.join(baseConfig.orchestration.workdirRoots[0]!, `test-multi-host-${suffix}`);
    rootA = path.join(area, 'host-a');
    rootB = path.join(area, 'host-b');
    agents = await startRealAgents({
      name: 'multi-host',
      maxConcurrent: 4,
      orchestration: workerConfig(hostA, rootA),
      serve: async () => {
        const started = await startTestServer((config) => ({
          ...config,
          orchestration: { ...config.orchestration, workdirRoots: [rootA, rootB] },
        }));
        return { server: started, close: () => started.close() };
      },
    });
    ({ server } = agents);
    workerB = await startAgentsWorker(
      { ...baseConfig, orchestration: { ...baseConfig.orchestration, ...workerConfig(hostB, rootB), agentCommand: CLAUDE_CLI } },
      logger,
    );
  }, 90_000);

  afterAll(async () => {
    for (const id of pipelines) await call('DELETE', `/api/pipelines/${id}`);
    await workerB?.stop();
    await agents?.close();
    fs.rmSync(path.dirname(rootA), { recursive: true, force: true });
  });

  const call = (method: string, route: string, body?: unknown) => jsonCall(server.url, method, route, body);

  async function hostState(host: string): Promise<{ draining: number; live: boolean }> {
    const [rows] = await server.resources.database.pool.query<any[]>('SELECT draining, seen_at FROM agent_hosts WHERE name = ?', [host]);
    return { draining: Number(rows[0]?.draining), live: Date.now() - new Date(rows[0]?.seen_at).getTime() < 60_000 };
  }

  const finished = (id: string) =>
    until(
      `execution ${id} ends`,
      () => call('GET', `/api/executions/history/${id}`),
      (view) => FINAL.includes(view.body?.status),
      120_000,
    ).then((view) => view.body);

  async function execute(agentId: string, body: Record<string, unknown>): Promise<any> {
    const answer = await call('POST', `/api/agents/${agentId}/execute`, { instructions: '', ...body });
    expect(answer.status).toBe(202);
    return finished(answer.body.executionId);
  }

  it('registers both hosts with their roots, alive', async () => {
    const [rows] = await server.resources.database.pool.query<any[]>(
      'SELECT name, roots, seen_at FROM agent_hosts WHERE name IN (?, ?) ORDER BY name',
      [hostA, hostB],
    );
    expect(rows.map((row) => ({ name: row.name, roots: JSON.parse(row.roots) }))).toEqual([
      { name: hostA, roots: [rootA] },
      { name: hostB, roots: [rootB] },
    ]);
    for (const row of rows) expect(Date.now() - new Date(row.seen_at).getTime()).toBeLessThan(60_000);
  });

  it('runs each agent on the host that holds its directory, and the files listing shows what both wrote', async () => {
    const onA = await agents.standInAgent('em-a', { workingDirectory: path.join(rootA, 'projeto-a') });
    const onB = await agents.standInAgent('em-b', { workingDirectory: path.join(rootB, 'projeto-b') });
    const [ranA, ranB] = await Promise.all([
      execute(onA.id, { task: 'stand-in:write-file path=saida/a.txt content=escrito-em-a' }),
      execute(onB.id, { task: 'stand-in:write-file path=saida/b.txt content=escrito-em-b' }),
    ]);
    expect(ranA).toMatchObject({ status: 'completed', host: hostA, result: 'Wrote the file: escrito-em-a' });
    expect(ranB).toMatchObject({ status: 'completed', host: hostB, result: 'Wrote the file: escrito-em-b' });
    expect(fs.readFileSync(path.join(rootA, 'projeto-a/saida/a.txt'), 'utf8')).toBe('escrito-em-a\n');
    expect(fs.readFileSync(path.join(rootB, 'projeto-b/saida/b.txt'), 'utf8')).toBe('escrito-em-b\n');
    expect(fs.existsSync(path.join(rootA, 'projeto-b'))).toBe(false);

    // The API's area is both roots: one top level, and each project's own files.
    const top = await call('GET', '/api/files');
    expect(top.status).toBe(200);
    expect(top.body.entries.map((entry: any) => `${entry.type}:${entry.name}`)).toEqual(
      expect.arrayContaining(['directory:projeto-a', 'directory:projeto-b']),
    );
    const listedB = await call('GET', '/api/files?path=projeto-b/saida');
    expect(listedB.body).toMatchObject({
      path: 'projeto-b/saida',
      parent: 'projeto-b',
      entries: [{ name: 'b.txt', type: 'file', size: 13, extension: 'txt' }],
    });
    const download = await fetch(`${server.url}/api/files/download?path=${encodeURIComponent('projeto-b/saida/b.txt')}`);
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('escrito-em-b\n');
  }, 240_000);

  it('a continuation goes to the host of the run it continues and resumes its session there', async () => {
    const agent = await agents.standInAgent('conversa', { workingDirectory: path.join(rootB, 'conversa') });
    const first = await execute(agent.id, { task: 'stand-in:write-file path=nota.txt content=primeira' });
    expect(first).toMatchObject({ status: 'completed', host: hostB });
    expect(first.sessionId).toEqual(expect.any(String));
    const answer = await call('POST', `/api/agents/${agent.id}/continue`, {
      sessionId: first.sessionId,
      message: 'E depois? stand-in:text',
    });
    expect(answer.status).toBe(202);
    const continued = await finished(answer.body.executionId);
    expect(continued).toMatchObject({ status: 'completed', source: 'continue', host: hostB, parentSessionId: first.sessionId });
    // The CLI resumed the stored session: the model is sent the first run's turns with the new message.
    const request = agents.model
      .messages()
      .filter((recorded) => promptsOf(recorded.body).includes('E depois? stand-in:text'))
      .at(-1);
    expect(promptsOf(request?.body)).toEqual(
      expect.arrayContaining([expect.stringContaining('stand-in:write-file path=nota.txt'), 'E depois? stand-in:text']),
    );
  }, 240_000);

  it('a pipeline runs all its steps, and its run, on the host of its working directory', async () => {
    // The steps run in the pipeline's directory, whatever the agent's own is.
    const writer = await agents.standInAgent('passo', { workingDirectory: path.join(rootA, 'passo') });
    const created = await call('POST', '/api/pipelines', {
      name: `multi-host ${suffix}`,
      workingDirectory: path.join(rootB, 'esteira'),
      steps: [
        { agentId: writer.id, inputTemplate: 'stand-in:write-file path=um.txt content=passo-um' },
        { agentId: writer.id, inputTemplate: 'stand-in:write-file path=dois.txt content=passo-dois' },
        { agentId: writer.id, inputTemplate: 'stand-in:write-file path=tres.txt content=passo-tres' },
      ],
    });
    expect(created.status).toBe(201);
    pipelines.push(created.body.id);
    const started = await call('POST', `/api/pipelines/${created.body.id}/execute`, { input: 'x' });
    expect(started.status).toBe(202);
    const run = await finished(started.body.executionId);
    expect(run).toMatchObject({ status: 'completed', host: hostB });
    expect(run.steps.map((step: any) => step.status)).toEqual(['completed', 'completed', 'completed']);
    const stepHosts = await Promise.all(
      run.steps.map(async (step: any) => (await call('GET', `/api/executions/history/${step.executionId}`)).body.host),
    );
    expect(stepHosts).toEqual([hostB, hostB, hostB]);
    expect(['um.txt', 'dois.txt', 'tres.txt'].map((name) => fs.readFileSync(path.join(rootB, 'esteira', name), 'utf8'))).toEqual([
      'passo-um\n',
      'passo-dois\n',
      'passo-tres\n',
    ]);
  }, 300_000);

  it('a retry goes to the host of the run it retries', async () => {
    const agent = await agents.standInAgent('falha', { workingDirectory: path.join(rootB, 'falha') });
    const failed = await execute(agent.id, { task: 'stand-in:error status=401' });
    expect(failed).toMatchObject({ status: 'error', host: hostB });
    const retried = await call('POST', `/api/executions/${failed.id}/retry`);
    expect(retried.status).toBe(200);
    expect(await finished(retried.body.executionId)).toMatchObject({ source: 'retry', parentExecutionId: failed.id, host: hostB });
  }, 240_000);

  it('a resumed pipeline run goes to the host of the run it resumes', async () => {
    const agent = await agents.standInAgent('retomada', { workingDirectory: path.join(rootA, 'retomada') });
    const created = await call('POST', '/api/pipelines', {
      name: `multi-host resume ${suffix}`,
      workingDirectory: path.join(rootB, 'retomada'),
      steps: [
        { agentId: agent.id, inputTemplate: 'stand-in:write-file path=um.txt content=antes' },
        { agentId: agent.id, inputTemplate: 'stand-in:error status=401' },
      ],
    });
    pipelines.push(created.body.id);
    const started = await call('POST', `/api/pipelines/${created.body.id}/execute`, { input: 'x' });
    const failed = await finished(started.body.executionId);
    expect(failed).toMatchObject({ status: 'error', failedAtStep: 1, host: hostB });
    const resumed = await call('POST', `/api/pipelines/resume/${failed.id}`);
    expect(resumed.status).toBe(202);
    const again = await finished(resumed.body.executionId);
    expect(again).toMatchObject({ source: 'resume', resumedFrom: failed.id, resumedAtStep: 1, host: hostB });
    const resumedStep = again.steps.find((step: any) => step.stepIndex === 1);
    expect((await call('GET', `/api/executions/history/${resumedStep.executionId}`)).body.host).toBe(hostB);
  }, 240_000);

  it('an upload reaches the run that reads it on the other host', async () => {
    const agent = await agents.standInAgent('leitor', { workingDirectory: path.join(rootB, 'leitor') });
    const form = new FormData();
    form.append('files', new Blob(['conteudo-para-b']), 'entrada.txt');
    const uploaded = await fetch(`${server.url}/api/uploads`, { method: 'POST', body: form });
    expect(uploaded.status).toBe(200);
    const { files } = (await uploaded.json()) as { files: Array<{ path: string }> };
    const ran = await execute(agent.id, { task: 'stand-in:read-files', contextFiles: files });
    expect(ran).toMatchObject({ status: 'completed', host: hostB, result: 'Read the files: conteudo-para-b' });
  }, 240_000);

  it("host A's worker stores a schedule's firing and a delegated run of host B's directory: any worker of the shared queue takes them", async () => {
    const { db } = server.resources.database;
    const deps = { db, redis: server.resources.redis, temporal: server.resources.temporal.client, logger };
    const stored: string[] = [];
    try {
      // A schedule's firing: the workflow's first activity, on whichever worker polls the shared queue first (here: host A's, with rootA only).
      const onB = await agents.standInAgent('agendado-b', { workingDirectory: path.join(rootB, 'agendado') });
      const schedule = await call('POST', '/api/schedules', {
        agentId: onB.id,
        taskDescription: 'stand-in:text',
        cronExpression: '0 9 * * *',
      });
      expect(schedule.status).toBe(201);
      const firing = randomUUID();
      await expect(
        createScheduleActivities({ ...deps, workdirRoots: [rootA] }).createScheduledExecution({
          scheduleId: schedule.body.id,
          executionId: firing,
        }),
      ).resolves.toEqual({ executionId: firing });
      stored.push(firing);
      expect((await call('GET', `/api/executions/history/${firing}`)).body).toMatchObject({
        source: 'schedule',
        workingDirectory: path.join(rootB, 'agendado'),
      });

      // A delegation: a run of host B's directory hands its result on, stored by host A's follow-up activity.
      const delegating = await agents.standInAgent('delega-b', { workingDirectory: path.join(rootB, 'delega') });
      const ran = await execute(delegating.id, { task: 'stand-in:text' });
      expect(ran).toMatchObject({ status: 'completed', host: hostB });
      expect((await call('PUT', `/api/agents/${delegating.id}`, { config: { delegateTo: onB.id } })).status).toBe(200);
      const followUps = createFollowUpActivities({
        ...deps,
        config: { orchestration: { ...baseConfig.orchestration, ...workerConfig(hostA, rootA) } },
      });
      const delegated = await followUps.storeDelegatedRun(ran.id);
      expect(delegated).toMatchObject({ agentId: onB.id });
      stored.push(delegated!.executionId);
      expect((await call('GET', `/api/executions/history/${delegated!.executionId}`)).body).toMatchObject({
        source: 'delegation',
        workingDirectory: path.join(rootB, 'delega'),
      });
    } finally {
      // Stored without their workflows: removed, so no reconciler pass has them to end.
      if (stored.length > 0) await server.resources.database.pool.query('DELETE FROM executions WHERE id IN (?)', [stored]);
    }
  }, 240_000);

  it('a run of a directory only a draining host holds does not start there: it waits until the host serves again', async () => {
    const agent = await agents.standInAgent('drenando', { workingDirectory: path.join(rootB, 'drenando') });
    // Host B drains as its worker does after SIGTERM: alive, still polling its host queue for its runs' follow-ups.
    await server.resources.database.pool.query('UPDATE agent_hosts SET draining = TRUE WHERE name = ?', [hostB]);
    try {
      const answer = await call('POST', `/api/agents/${agent.id}/execute`, {
        instructions: '',
        task: 'stand-in:write-file path=x.txt content=esperou',
      });
      expect(answer.status).toBe(202);
      const id = answer.body.executionId as string;
      await until(
        'the run is pinned to host B',
        () => call('GET', `/api/executions/history/${id}`),
        (view) => view.body?.host === hostB,
        60_000,
      );
      // Host B's worker polls its queue: the run would have completed in about a second had it been sent there.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect((await call('GET', `/api/executions/history/${id}`)).body).toMatchObject({ status: 'running', host: hostB, output: '' });
      expect(fs.existsSync(path.join(rootB, 'drenando', 'x.txt'))).toBe(false);

      await server.resources.database.pool.query('UPDATE agent_hosts SET draining = FALSE WHERE name = ?', [hostB]);
      expect(await finished(id)).toMatchObject({ status: 'completed', host: hostB, result: 'Wrote the file: esperou' });
    } finally {
      await server.resources.database.pool.query('UPDATE agent_hosts SET draining = FALSE WHERE name = ?', [hostB]);
    }
  }, 240_000);

  it("a run of a directory only a stopped host holds waits for that host's next worker, then runs there", async () => {
    const agent = await agents.standInAgent('reinicio', { workingDirectory: path.join(rootB, 'reinicio') });
    // Host B's worker stops as in a rolling restart: its host stays registered, draining, not gone.
    await workerB?.stop();
    workerB = undefined;
    expect(await hostState(hostB)).toEqual({ draining: 1, live: true });
    const answer = await call('POST', `/api/agents/${agent.id}/execute`, {
      instructions: '',
      task: 'stand-in:write-file path=depois.txt content=reiniciado',
    });
    expect(answer.status).toBe(202);
    const id = answer.body.executionId as string;
    // Granted host B (the only one holding the directory), the run waits: no agent starts on the draining host.
    const waiting = await until(
      'the run is pinned to host B',
      () => call('GET', `/api/executions/history/${id}`),
      (view) => view.body?.host === hostB,
      60_000,
    );
    expect(waiting.body).toMatchObject({ status: 'running', host: hostB, error: null });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(fs.existsSync(path.join(rootB, 'reinicio', 'depois.txt'))).toBe(false);
    expect((await call('GET', `/api/executions/history/${id}`)).body.status).toBe('running');

    // Its next worker registers the host again, not draining: the run starts there and completes.
    workerB = await startAgentsWorker(
      { ...baseConfig, orchestration: { ...baseConfig.orchestration, ...workerConfig(hostB, rootB), agentCommand: CLAUDE_CLI } },
      logger,
    );
    expect(await finished(id)).toMatchObject({ status: 'completed', host: hostB, error: null, result: 'Wrote the file: reiniciado' });
    expect(fs.readFileSync(path.join(rootB, 'reinicio', 'depois.txt'), 'utf8')).toBe('reiniciado\n');
    expect(await hostState(hostB)).toEqual({ draining: 0, live: true });
  }, 240_000);

  it('a run whose directory no live host holds fails at once and says which hosts there are', async () => {
    const agent = await agents.standInAgent('orfao', { workingDirectory: path.join(rootA, 'orfao') });
    // Host A's worker stops and no next one comes: a minute later its host is no longer live (here the
    // minute is the registry's clock set back) and takes no new run (host B's worker runs the workflows now).
    await agents.stopWorker();
    // So for every host but B: a host whose worker another suite of this process stopped stays live (draining) for a minute too.
    await server.resources.database.pool.query('UPDATE agent_hosts SET seen_at = ? WHERE name <> ?', [
      new Date(Date.now() - 120_000),
      hostB,
    ]);
    const ran = await execute(agent.id, { task: 'stand-in:text' });
    expect(ran).toMatchObject({ status: 'error', host: null });
    expect(ran.error).toMatch(
      new RegExp(`^nenhuma máquina de agentes ativa atende ao diretório de trabalho ${path.join(rootA, 'orfao')} \\(máquinas de agentes: `),
    );
    expect(ran.error).toContain(`${hostA} (sem sinal há mais de um minuto: ${rootA})`);
    expect(ran.error).toContain(`${hostB} (ativa: ${rootB})`);
  }, 240_000);
});
