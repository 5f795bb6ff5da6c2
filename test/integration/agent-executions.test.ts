import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { format } from 'mysql2';
import { config } from '../../lib/config';
import { logger } from '../../lib/logger';
import { startAgentsWorker } from '../../workers/agents';
import type { QueueWorker } from '../../workers/queue-worker';
import { processRunning } from '../../scripts/process-state';
import { WORKER_LOST_ERROR, WORKER_STOPPED_ERROR } from '../../workflows/agents/execution-errors';
import { startServiceProcess, waitForLog, type ServiceProcess } from '../support/processes';
import { unusedPort } from '../support/ports';
import { startTestServer, type TestServer } from '../support/server';
import { openSocket, type SocketProbe } from '../support/websocket';
import { agentWorkspace } from '../support/agent-workspace';
import { scheduleDepsOf } from '../../services/schedules';
import { agentDepsOf, createAgent as storeAgent, deleteAgent, setSecret, type AgentDataInput } from '../../services/agents';
import { until } from '../support/waiting';
import { FINAL_EXECUTION_MESSAGE_TYPES } from '../../lib/live-output';
import { agentExecutionWorkflowId } from '../../temporal/agent-execution';

const FAKE_AGENT = path.resolve(__dirname, '../fixtures/fake-agent/fake-agent.js');
const SECRET_VALUE = 'sk-test-3f9a8b7c6d5e4f30-never-answered';

let server: TestServer;
let worker: QueueWorker | null = null;
const children: ServiceProcess[] = [];
const agentPids: number[] = [];
// The agents (run as the pool's users) write their record files here: open to the pool's group.
const scratch = agentWorkspace('agent-executions-');
// Working directories must lie under the allowed roots (the projects area); the runs create them.
const workArea = path.join(config.orchestration.workdirRoots[0]!, `test-agent-executions-${process.pid}-${Date.now()}`);
const agentConfig = { ...config, orchestration: { ...config.orchestration, agentCommand: FAKE_AGENT } };

let deadTemporalPort: number;

beforeAll(async () => {
  deadTemporalPort = await unusedPort();
  server = await startTestServer();
  // Records left active by an interrupted earlier run would hold slots.
  await server.services.database.pool.query(
    "UPDATE executions SET status = 'error', finished_at = NOW(3), error = 'left by an earlier test run' WHERE status IN ('queued', 'running')",
  );
  // Other suites change the settings: fix the ones these tests depend on.
  await api('PUT', '/api/settings', { maxConcurrent: 2, defaultModel: 'sonnet', defaultWorkdir: config.orchestration.workdirRoots[0] });
  worker = await startAgentsWorker(agentConfig, logger);
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  for (const child of children) child.child.kill('SIGKILL');
  for (const pid of agentPids) killGroup(pid);
  await api('PUT', '/api/settings', { maxConcurrent: 2 }).catch(() => undefined);
  await server?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
  fs.rmSync(workArea, { recursive: true, force: true });
});

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

interface Answer {
  status: number;
  body: any;
  text: string;
}

async function api(method: string, urlPath: string, body?: unknown, clientId?: string): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (clientId) headers['x-client-id'] = clientId;
  const response = await fetch(server.url + urlPath, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON (a report's Markdown)
  }
  return { status: response.status, text, body: parsed };
}

/**
 * An agent whose fake CLI knobs (and any other secret) reach its process as secrets. Made through the
 * agent use case (the agents' own routes are tested in agents.test.ts); its instructions are the
 * system prompt.
 */
async function createAgent(name: string, secrets: Record<string, string>, data: Partial<AgentDataInput> = {}): Promise<string> {
  const deps = agentDepsOf(server.services);
  const created = await storeAgent(deps, {
    name: `${name} ${Date.now()}`,
    description: '',
    model: null,
    instructions: 'Be brief.',
    workingDirectory: path.join(workArea, name.replace(/\W+/g, '-')),
    permissionMode: 'bypassPermissions',
    maxTurns: 7,
    ...data,
  });
  for (const [secretName, value] of Object.entries(secrets)) await setSecret(deps, created.id, secretName, value);
  return created.id;
}

async function record(executionId: string): Promise<any> {
  const answer = await api('GET', `/api/executions/history/${executionId}`);
  expect(answer.status).toBe(200);
  return answer.body;
}

/** The record once final and its report written (the report follows the final status). */
const finished = (executionId: string, timeoutMs = 60_000) =>
  until(
    `execution ${executionId} finished`,
    () => record(executionId),
    (r) => !['queued', 'running', 'retrying'].includes(r.status) && r.reportFile !== null,
    timeoutMs,
  );

async function execute(agentId: string, body: Record<string, unknown>, clientId?: string): Promise<string> {
  const answer = await api('POST', `/api/agents/${agentId}/execute`, body, clientId);
  expect(answer.status).toBe(202);
  expect(answer.body).toEqual({ executionId: expect.any(String), status: 'queued' });
  return answer.body.executionId as string;
}

const readRecordFile = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as { argv: string[]; env: Record<string, string>; pid: number; stdin: string; cwd: string };


/** The notification of an execution (raised right after its report). */
async function notificationOf(executionId: string): Promise<any> {
  const items = await until(
    `notification of ${executionId}`,
    async () => (await api('GET', '/api/notifications?pageSize=100')).body.notifications as any[],
    (list) => list.some((item) => item.executionId === executionId),
  );
  return items.find((item) => item.executionId === executionId);
}

/** Each of `lines` appears in `output` exactly once, in this order. */
function expectLinesInOrder(output: string, lines: string[]): void {
  let from = 0;
  for (const line of lines) {
    expect(output.split(line).length - 1).toBe(1);
    const at = output.indexOf(line, from);
    expect(at).toBeGreaterThanOrEqual(from);
    from = at + line.length;
  }
}

async function executionCount(): Promise<number> {
  const [rows] = await server.services.database.pool.query('SELECT COUNT(*) AS n FROM executions');
  return Number((rows as Array<{ n: number }>)[0]?.n);
}

let completedSession: { agentId: string; executionId: string; sessionId: string; recordFile: string } | null = null;
let failedExecutionId = '';

describe('POST /agents/{id}/execute', () => {
  it('runs the agent and stores the outcome, the report and a notification; secrets reach only the process', async () => {
    const recordFile = path.join(scratch, 'complete.json');
    const agentId = await createAgent('complete', { FAKE_AGENT_RECORD: recordFile, SERVICE_TOKEN: SECRET_VALUE });
    // The panel's body: the task, its additional instructions (always sent, '' when none).
    const executionId = await execute(agentId, { task: 'Say hello', instructions: 'Answer in Portuguese.' }, 'client-complete');

    const done = await finished(executionId);
    expect(done).toMatchObject({
      id: executionId,
      executionId,
      type: 'agent',
      agentId,
      agentName: expect.stringMatching(/^complete \d+$/),
      status: 'completed',
      source: 'manual',
      task: 'Say hello',
      instructions: 'Answer in Portuguese.',
      workingDirectory: path.join(workArea, 'complete'),
      model: 'sonnet',
      costUsd: 0.0421,
      totalCostUsd: 0.0421,
      numTurns: 3,
      // The CLI's result event text, not the streamed text (contract 7.4), and the exit code.
      result: 'Done: Say hello\n\nInstruções adicionais:\nAnswer in Portuguese.',
      exitCode: 0,
      attempt: 1,
      error: null,
      outputTruncated: false,
      parentSessionId: null,
      delegatedFrom: null,
      sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(done.durationMs).toEqual(expect.any(Number));
    // The terminal's lines as stored (their format: docs/websocket.md); at least the three texts.
    expectLinesInOrder(done.output, ['Received prompt: Say hello', 'Working, step 2 of 3.', 'Working, step 3 of 3.']);
    expect(done.outputSeq).toBeGreaterThanOrEqual(3);
    expect(done.clientId).toBeUndefined();
    expect(done.waitingHeartbeatAt).toBeUndefined();
    expect(new Date(done.startedAt).getTime()).toBeLessThanOrEqual(new Date(done.endedAt).getTime());

    // The process: the prompt (task, then the additional instructions) on stdin, the agent's
    // instructions as the system prompt and its options as arguments, the secret in the environment only.
    const seen = readRecordFile(recordFile);
    expect(seen.stdin).toBe('Say hello\n\nInstruções adicionais:\nAnswer in Portuguese.');
    expect(seen.argv).toEqual(expect.arrayContaining(['--max-turns', '7', '--permission-mode', 'bypassPermissions', '--model', 'sonnet']));
    expect(seen.argv).toContain('--system-prompt=Be brief.');
    expect(seen.env.SERVICE_TOKEN).toBe(SECRET_VALUE);
    expect(seen.env.MYSQL_PASSWORD).toBeUndefined();
    expect(seen.cwd).toBe(path.join(workArea, 'complete'));

    // The report, in both directories.
    expect(done.reportFile).toMatch(/^\d{4}-\d{2}-\d{2}_\d{6}_complete-\d+_[0-9a-f]{8}\.md$/);
    const inData = fs.readFileSync(path.join(config.orchestration.dataDir, 'reports', done.reportFile), 'utf8');
    const external = fs.readFileSync(path.join(config.orchestration.reportsDir, done.reportFile), 'utf8');
    expect(external).toBe(inData);
    expect(inData).toContain('| Status | completed |');
    expect(inData).toContain(`| Session id | ${done.sessionId} |`);

    // Contract 3.10: "Execução concluída", a success.
    expect(await notificationOf(executionId)).toMatchObject({ type: 'success', kind: 'execution.completed', title: 'Execução concluída', message: `${done.agentName}: Say hello`, read: false });

    // No answer about the execution or the agent carries the secret.
    for (const urlPath of [
      `/api/executions/history/${executionId}`,
      '/api/executions/history',
      '/api/executions/recent',
      `/api/agents/${agentId}`,
      `/api/agents/${agentId}/secrets`,
      `/api/reports/${done.reportFile}`,
    ]) {
      const answer = await api('GET', urlPath);
      expect(answer.status).toBe(200);
      expect(answer.text).not.toContain(SECRET_VALUE);
    }
    completedSession = { agentId, executionId, sessionId: done.sessionId, recordFile };
  });

  it("runs an agent made with the panel's defaults (working directory /home/projetos/ or empty) in the projects area", async () => {
    const projects = config.orchestration.workdirRoots[0];
    expect(projects).toBe('/home/projetos');
    for (const [label, workingDirectory] of [['prefilled', '/home/projetos/'], ['empty', '']] as const) {
      const recordFile = path.join(scratch, `panel-${label}.json`);
      const agentId = await createAgent(`Panel ${label}`, { FAKE_AGENT_RECORD: recordFile }, { workingDirectory: workingDirectory === '' ? null : workingDirectory });
      // The panel sends no workingDirectory when its execute field is empty.
      const done = await finished(await execute(agentId, { task: `Panel ${label}`, instructions: '' }));
      expect({ status: done.status, workingDirectory: done.workingDirectory }).toEqual({ status: 'completed', workingDirectory: projects });
      expect(readRecordFile(recordFile).cwd).toBe(projects);
    }
  });

  it('answers 400 on bad bodies and 404 on an unknown agent, creating nothing', async () => {
    const agentId = await createAgent('refused', {});
    const before = await executionCount();
    const inactiveId = await createAgent('inactive', {}, { status: 'inactive' });
    const cases: Array<[string, unknown, number, string]> = [
      [agentId, {}, 400, 'body.task: task é obrigatório'],
      [agentId, { task: '   ' }, 400, 'body.task: task é obrigatório'],
      [agentId, { task: 'x', extra: 1 }, 400, 'body: Chave inválida: "extra"'],
      [agentId, { task: 'x', instructions: 5 }, 400, 'body.instructions'],
      [agentId, { task: 'x', workingDirectory: 'relative/dir' }, 400, 'body.workingDirectory: O diretório de trabalho deve ser um caminho absoluto (recebido "relative/dir")'],
      [agentId, { task: 'x', contextFiles: ['/data/uploads/a.txt'] }, 400, 'body.contextFiles.0'],
      [agentId, { task: 'x', contextFiles: [{ originalName: 'a', path: '../etc/passwd', size: 1 }] }, 400, 'body.contextFiles.0.path'],
      [agentId, { task: 'x', repoName: 'org/repo' }, 404, 'Repositório não encontrado: "org/repo"'],
      [agentId, { task: 'x', repoBranch: 'main' }, 400, 'repoBranch exige repoName'],
      [inactiveId, { task: 'x', instructions: '' }, 400, `O agente ${inactiveId} está inativo`],
      ['00000000-0000-4000-8000-000000000000', { task: 'x' }, 404, 'agent 00000000-0000-4000-8000-000000000000 not found'],
    ];
    try {
      for (const [id, body, status, message] of cases) {
        const answer = await api('POST', `/api/agents/${id}/execute`, body);
        expect({ status: answer.status, error: String(answer.body.error) }).toEqual({ status, error: expect.stringContaining(message) });
      }
      expect(await executionCount()).toBe(before);
    } finally {
      // Other suites count the agents by status: leave no inactive one behind.
      await deleteAgent({ ...agentDepsOf(server.services), schedules: scheduleDepsOf(server.services) }, inactiveId);
    }
  });

  it('lists the uploaded context files after the task, one "path (originalName)" line each', async () => {
    const recordFile = path.join(scratch, 'context-files.json');
    const agentId = await createAgent('context-files', { FAKE_AGENT_RECORD: recordFile });
    // Only this service's uploads are accepted (docs/uploads.md; test/integration/uploads.test.ts).
    const form = new FormData();
    form.append('files', new Blob(['some notes']), 'notes.md');
    form.append('files', new Blob(['%PDF']), 'spec.pdf');
    const uploaded = await fetch(`${server.url}/api/uploads`, { method: 'POST', body: form });
    expect(uploaded.status).toBe(200);
    const { files: contextFiles } = (await uploaded.json()) as { files: Array<{ originalName: string; path: string; size: number }> };
    try {
      const done = await finished(await execute(agentId, { task: 'Read these', instructions: '', contextFiles }));
      const task = `Read these\n\nArquivos de contexto:\n- ${contextFiles[0]!.path} (notes.md)\n- ${contextFiles[1]!.path} (spec.pdf)`;
      expect(done).toMatchObject({ status: 'completed', task, instructions: '' });
      expect(readRecordFile(recordFile).stdin).toBe(task);
    } finally {
      fs.rmSync(path.dirname(contextFiles[0]!.path), { recursive: true, force: true });
    }
  });

  it('answers 503 when the workflow engine refuses the start, and ends the record failed with why', async () => {
    const cut = await startTestServer((base) => ({ ...base, temporal: { ...base.temporal, address: `127.0.0.1:${deadTemporalPort}` } }));
    try {
      const agentId = await createAgent('no-engine', {});
      const answer = await fetch(`${cut.url}/api/agents/${agentId}/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-client-id': 'client-no-engine' },
        body: JSON.stringify({ task: 'Never runs' }),
      });
      expect(answer.status).toBe(503);
      expect(await answer.json()).toEqual({ error: 'A execução não pôde ser iniciada: o motor de workflows está indisponível' });
      const [latest] = (await api('GET', `/api/executions/history?agentId=${agentId}`)).body.items;
      // It never ran: its startedAt is when it was queued.
      expect(latest).toMatchObject({ status: 'error', error: 'a execução não pôde ser iniciada (motor de workflows indisponível)', endedAt: expect.any(String) });
      expect(latest.startedAt).toBe(latest.createdAt);
    } finally {
      await cut.close();
    }
  }, 120_000);

  it('fails an execution whose agent fails, keeping its error and what it reported', async () => {
    const agentId = await createAgent('failing', { FAKE_AGENT_FAIL: '1', FAKE_AGENT_CHUNKS: '1' });
    const executionId = await execute(agentId, { task: 'Break', instructions: '' });
    const done = await finished(executionId);
    expect(done).toMatchObject({
      status: 'error',
      error: 'claude-code terminou com o código 2: fake agent failure (FAKE_AGENT_FAIL=1)\nstderr: fake-agent: failing on purpose (FAKE_AGENT_FAIL=1)',
      costUsd: 0.0421,
      numTurns: 1,
      exitCode: 2,
      result: 'fake agent failure (FAKE_AGENT_FAIL=1)',
      reportFile: expect.any(String),
    });
    expect(done.output).toContain('Received prompt: Break');
    expect(await notificationOf(executionId)).toMatchObject({ type: 'error', kind: 'execution.error', title: 'Execução falhou', message: `${done.agentName}: ${done.error}` });
    failedExecutionId = executionId;
  });
});

describe('output the database refuses during the run', () => {
  it('is kept and stored once it is accepted again: every line once, in order', async () => {
    const agentId = await createAgent('refused-output', { FAKE_AGENT_CHUNKS: '30', FAKE_AGENT_DELAY_MS: '100' });
    const executionId = await execute(agentId, { task: 'Through an outage' });
    await until('output stored', () => record(executionId), (r) => r.status === 'running' && r.outputSeq >= 2);
    const pool = server.services.database.pool;
    // MariaDB itself refuses every change of this record's output, as it would when down.
    await pool.query(
      format(
        `CREATE TRIGGER refuse_test_output BEFORE UPDATE ON executions FOR EACH ROW
         BEGIN IF NEW.id = ? AND NOT (NEW.output <=> OLD.output) THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by the test'; END IF; END`,
        [executionId],
      ),
    );
    try {
      const refusedFrom = (await record(executionId)).outputSeq;
      await new Promise((resolve) => setTimeout(resolve, 1_500)); // ~15 lines printed meanwhile
      const during = await record(executionId);
      expect(during.status).toBe('running');
      expect(during.outputSeq).toBe(refusedFrom);
    } finally {
      await pool.query('DROP TRIGGER IF EXISTS refuse_test_output');
    }
    const done = await finished(executionId);
    expect(done.status).toBe('completed');
    expect(done.outputSeq).toBeGreaterThanOrEqual(30);
    expectLinesInOrder(done.output, ['Received prompt: Through an outage', ...Array.from({ length: 29 }, (_, i) => `Working, step ${i + 2} of 30.`)]);
  });
});

describe('live output', () => {
  it('reaches only the client that started the execution, numbered, as stored in the record', async () => {
    const agentId = await createAgent('live', { FAKE_AGENT_CHUNKS: '5', FAKE_AGENT_DELAY_MS: '30' });
    const wsBase = server.url.replace(/^http/, 'ws');
    const sockets: Record<string, SocketProbe> = {};
    for (const clientId of ['live-a', 'live-b']) {
      sockets[clientId] = await openSocket(`${wsBase}/ws?clientId=${clientId}`);
      expect(await sockets[clientId]!.nextMessage()).toEqual({ type: 'connected', clientId });
    }
    const ids = {
      'live-a': await execute(agentId, { task: 'Task of A' }, 'live-a'),
      'live-b': await execute(agentId, { task: 'Task of B' }, 'live-b'),
    };

    for (const clientId of ['live-a', 'live-b'] as const) {
      const executionId = ids[clientId];
      const received: any[] = [];
      for (;;) {
        const message: any = await sockets[clientId]!.nextMessage();
        received.push(message);
        if (FINAL_EXECUTION_MESSAGE_TYPES.includes(message.type)) break;
      }
      expect(received.every((message) => message.executionId === executionId)).toBe(true);
      const types = received.map((message) => message.type);
      expect(types.slice(0, 2)).toEqual(['execution_queued', 'execution_started']);
      expect(types.at(-1)).toBe('execution_complete');
      // Between them only output lines and the report's notice (its order: docs/websocket.md).
      expect(types.slice(2, -1).filter((type) => type !== 'execution_output')).toEqual(['report_generated']);
      const outputs = received.filter((message) => message.type === 'execution_output');
      expect(outputs.map((message) => message.seq)).toEqual(outputs.map((_message, index) => index + 1));
      const texts = outputs.map((message) => message.data.content).join('\n');
      expectLinesInOrder(texts, [`Received prompt: Task of ${clientId === 'live-a' ? 'A' : 'B'}`, 'Working, step 2 of 5.', 'Working, step 5 of 5.']);
      const stored = await record(executionId);
      expect(stored.outputSeq).toBe(outputs.length);
      expect(received.at(-1)).toMatchObject({
        status: 'completed', lastSeq: outputs.length, agentId, source: 'manual',
        data: { sessionId: stored.sessionId, result: stored.result, exitCode: 0, costUsd: stored.costUsd },
      });
    }
    for (const probe of Object.values(sockets)) probe.socket.close();
  });
});

describe('cancel, continue, retry', () => {
  it('cancels a running execution: the agent process is killed and the record ends cancelled', async () => {
    const recordFile = path.join(scratch, 'slow.json');
    const agentId = await createAgent('slow', { FAKE_AGENT_CHUNKS: '10000', FAKE_AGENT_DELAY_MS: '50', FAKE_AGENT_RECORD: recordFile });
    const executionId = await execute(agentId, { task: 'Take your time' });
    await until('output stored', () => record(executionId), (r) => r.status === 'running' && r.outputSeq >= 2);
    const { pid } = readRecordFile(recordFile);
    agentPids.push(pid);
    expect(processRunning(pid)).toBe(true);

    // A running execution cannot be retried; nothing is started.
    const executionsBefore = await executionCount();
    expect(await api('POST', `/api/executions/${executionId}/retry`)).toMatchObject({
      status: 400,
      body: { error: 'Só é possível reexecutar execuções que terminaram com erro ou foram canceladas (status atual: running)' },
    });
    expect(await executionCount()).toBe(executionsBefore);

    const answer = await api('POST', `/api/agents/${agentId}/cancel/${executionId}`);
    expect(answer).toMatchObject({ status: 200, body: { cancelled: true } });
    const done = await finished(executionId);
    expect(done).toMatchObject({ status: 'canceled', error: 'cancelada a pedido do usuário', reportFile: expect.any(String) });
    expect(done.output).toContain('Received prompt: Take your time');
    expect(done.output).toContain('Working, step 2 of 10000.');
    await until('agent process gone', async () => processRunning(pid), (alive) => !alive, 10_000);

    // Once finished, or unknown: 404 (contract 3.1).
    expect(await api('POST', `/api/agents/${agentId}/cancel/${executionId}`)).toMatchObject({
      status: 404,
      body: { error: `Execução ${executionId} do agente ${agentId} não encontrada ou já finalizada` },
    });
    const unknown = await api('POST', `/api/agents/${agentId}/cancel/00000000-0000-4000-8000-000000000000`);
    expect(unknown).toMatchObject({ status: 404, body: { error: `Execução 00000000-0000-4000-8000-000000000000 do agente ${agentId} não encontrada ou já finalizada` } });
    // A stop the user asked for raises no notification (contract 3.10: completion and final error only):
    // looked at once the workflow, which would raise it last, has ended.
    await server.services.temporal.client.workflow.getHandle(agentExecutionWorkflowId(executionId)).result().catch(() => undefined);
    expect((await api('GET', '/api/notifications?pageSize=100')).body.notifications.filter((item: any) => item.executionId === executionId)).toEqual([]);
  });

  it('cancels every active execution at once, running or queued', async () => {
    const agentId = await createAgent('many', { FAKE_AGENT_CHUNKS: '10000', FAKE_AGENT_DELAY_MS: '50' });
    const ids = [await execute(agentId, { task: 'One' }), await execute(agentId, { task: 'Two' }), await execute(agentId, { task: 'Three' })];
    // Limit 2: two run, the third waits.
    await until('two running', () => Promise.all(ids.map(record)), (records) => records.filter((r) => r.status === 'running').length === 2);
    const active = await api('GET', '/api/executions/active');
    const mine = active.body.filter((item: any) => ids.includes(item.id));
    expect(mine.map((item: any) => [item.executionId, item.status, item.agentConfig.agent_name])).toEqual([
      [ids[0], 'running', expect.stringMatching(/^many \d+$/)],
      [ids[1], 'running', expect.stringMatching(/^many \d+$/)],
      [ids[2], 'queued', expect.stringMatching(/^many \d+$/)],
    ]);
    expect(mine.every((item: any) => item.agentId === agentId && !Number.isNaN(new Date(item.startedAt).getTime()))).toBe(true);
    expect(active.body.every((item: any) => !('output' in item) && !('clientId' in item))).toBe(true);

    const answer = await api('POST', '/api/executions/cancel-all');
    expect(answer).toMatchObject({ status: 200, body: { cancelled: true, count: 3 } });
    for (const id of ids) expect(await finished(id)).toMatchObject({ status: 'canceled', error: 'cancelada a pedido do usuário' });
    // The queued one never ran: its startedAt is when it was queued.
    const neverRan = await record(ids[2]!);
    expect(neverRan.startedAt).toBe(neverRan.createdAt);
    expect((await api('POST', '/api/executions/cancel-all')).body).toEqual({ cancelled: true, count: 0 });
  });

  it('continues a session: a new execution that passes --resume <sessionId> and the message as the prompt', async () => {
    expect(completedSession).not.toBeNull();
    const { agentId, executionId: parentId, sessionId, recordFile } = completedSession!;
    const answer = await api('POST', `/api/agents/${agentId}/continue`, { sessionId, message: 'And then?' }, 'client-complete');
    expect(answer.status).toBe(202);
    const done = await finished(answer.body.executionId);
    expect(answer.body).toEqual({ executionId: expect.any(String), status: 'queued' });
    expect(done).toMatchObject({
      status: 'completed', source: 'continue', parentExecutionId: parentId, parentSessionId: sessionId, sessionId, task: 'And then?', instructions: '', result: 'Done: And then?',
    });
    expect(done.output).toContain(`Resumed session ${sessionId}. Received prompt: And then?`);
    const seen = readRecordFile(recordFile);
    expect(seen.argv.slice(seen.argv.indexOf('--resume'), seen.argv.indexOf('--resume') + 2)).toEqual(['--resume', sessionId]);
    expect(seen.stdin).toBe('And then?');

    const before = await executionCount();
    expect(await api('POST', `/api/agents/${agentId}/continue`, { sessionId: 'no-such-session', message: 'x' })).toMatchObject({
      status: 404,
      body: { error: `O agente ${agentId} não tem a sessão no-such-session` },
    });
    expect(await api('POST', `/api/agents/${agentId}/continue`, { sessionId })).toMatchObject({ status: 400, body: { error: 'body.message: message é obrigatório' } });
    expect(await api('POST', `/api/agents/${agentId}/continue`, { message: 'x' })).toMatchObject({ status: 400, body: { error: 'body.sessionId: sessionId é obrigatório' } });
    expect(await executionCount()).toBe(before);
  });

  it('retries a finished execution as a new one with the same input', async () => {
    const parent = await record(failedExecutionId);
    const answer = await api('POST', `/api/executions/${failedExecutionId}/retry`);
    expect(answer).toMatchObject({ status: 200, body: { success: true, message: 'Execução reiniciada', executionId: expect.any(String) } });
    const done = await finished(answer.body.executionId);
    expect(done).toMatchObject({
      source: 'retry',
      parentExecutionId: failedExecutionId,
      task: parent.task,
      instructions: parent.instructions,
      workingDirectory: parent.workingDirectory,
      status: 'error',
    });
    expect((await api('POST', '/api/executions/00000000-0000-4000-8000-000000000000/retry')).status).toBe(404);
    // A completed record is not retried.
    expect(await api('POST', `/api/executions/${completedSession!.executionId}/retry`)).toMatchObject({
      status: 400,
      body: { error: 'Só é possível reexecutar execuções que terminaram com erro ou foram canceladas (status atual: completed)' },
    });
  });
});

describe('concurrency', () => {
  it('never runs more than maxConcurrentExecutions at once and starts queued executions in FIFO order', async () => {
    const agentId = await createAgent('burst', { FAKE_AGENT_CHUNKS: '4', FAKE_AGENT_DELAY_MS: '100', FAKE_AGENT_STAMP: '1' });
    const ids: string[] = [];
    for (let index = 0; index < 10; index += 1) ids.push(await execute(agentId, { task: `Burst ${index}` }));

    const runningCounts: number[] = [];
    await until(
      'burst finished',
      async () => {
        const active = await api('GET', '/api/executions/active');
        expect(active.status).toBe(200);
        runningCounts.push(active.body.filter((item: any) => item.status === 'running').length);
        return active.body.filter((item: any) => ids.includes(item.id)).length;
      },
      (left) => left === 0,
      120_000,
    );
    expect(Math.max(...runningCounts)).toBeLessThanOrEqual(2);

    const records = await Promise.all(ids.map(record));
    expect(records.map((r) => r.status)).toEqual(Array(10).fill('completed'));
    // FIFO: slots are taken in submission order.
    const starts = records.map((r) => new Date(r.startedAt).getTime());
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
    // What the agents printed: first and last stamp of each run; never three runs printing at once.
    const spans = records.map((r) => {
      const stamps = [...String(r.output).matchAll(/\[printed-at (\d+)\]/g)].map((match) => Number(match[1]));
      expect(stamps).toHaveLength(4);
      return { from: Math.min(...stamps), to: Math.max(...stamps) };
    });
    for (const span of spans) {
      const overlapping = spans.filter((other) => other.from <= span.from && span.from <= other.to).length;
      expect(overlapping).toBeLessThanOrEqual(2);
    }
  }, 150_000);
});

describe('concurrency across workers', () => {
  it('holds the limit with two workers polling the queue, each able to run one agent', async () => {
    // With one run at a time per worker, two agents at once means both workers ran one.
    await worker?.stop();
    worker = null;
    const pair = [await startAgentsWorker(agentConfig, logger, { activitySlots: 1 }), await startAgentsWorker(agentConfig, logger, { activitySlots: 1 })];
    try {
      const agentId = await createAgent('two-workers', { FAKE_AGENT_CHUNKS: '4', FAKE_AGENT_DELAY_MS: '300', FAKE_AGENT_STAMP: '1' });
      const ids: string[] = [];
      for (let index = 0; index < 6; index += 1) ids.push(await execute(agentId, { task: `Shared ${index}` }));
      const records = await Promise.all(ids.map((id) => finished(id, 90_000)));
      expect(records.map((r) => r.status)).toEqual(Array(6).fill('completed'));
      const spans = records.map((r) => {
        const stamps = [...String(r.output).matchAll(/\[printed-at (\d+)\]/g)].map((match) => Number(match[1]));
        return { from: Math.min(...stamps), to: Math.max(...stamps) };
      });
      const overlaps = spans.map((span) => spans.filter((other) => other.from <= span.from && span.from <= other.to).length);
      expect(Math.max(...overlaps)).toBe(2);
    } finally {
      await Promise.all(pair.map((one) => one.stop()));
      worker = await startAgentsWorker(agentConfig, logger);
    }
  }, 120_000);
});

describe('a queue longer than the worker has activity slots', () => {
  it('still drains: waiters wait on their own task queue, not in the slots the runs need', async () => {
    // The shared worker has the SDK's 100 activity slots; this one has 2, so 8 queued executions
    // are 4 times what it can run at once (the same shape as a burst of 400 against the default).
    await worker?.stop();
    worker = null;
    const narrow = await startAgentsWorker(agentConfig, logger, { activitySlots: 2 });
    try {
      const agentId = await createAgent('long-queue', { FAKE_AGENT_CHUNKS: '2', FAKE_AGENT_DELAY_MS: '50' });
      const ids: string[] = [];
      for (let index = 0; index < 8; index += 1) ids.push(await execute(agentId, { task: `Queued ${index}` }));
      const runningCounts: number[] = [];
      await until(
        'long queue finished',
        async () => {
          const active = (await api('GET', '/api/executions/active')).body as Array<{ id: string; status: string }>;
          runningCounts.push(active.filter((item) => item.status === 'running').length);
          return active.filter((item) => ids.includes(item.id)).length;
        },
        (left) => left === 0,
        90_000,
      );
      const records = await Promise.all(ids.map(record));
      expect(records.map((r) => r.status)).toEqual(Array(8).fill('completed'));
      expect(Math.max(...runningCounts)).toBeLessThanOrEqual(2);
    } finally {
      await narrow.stop();
      worker = await startAgentsWorker(agentConfig, logger);
    }
  }, 120_000);
});

describe('a worker that stops mid-execution', () => {
  const startWorker = async () => {
    const child = startServiceProcess({ PROCESS_ROLES: 'agents-worker', AGENT_COMMAND: FAKE_AGENT });
    children.push(child);
    await waitForLog(child, 'worker started');
    return child;
  };
  let first: ServiceProcess;

  it('shutting down gracefully kills the agent and the execution fails with the worker-stopped error', async () => {
    const recordFile = path.join(scratch, 'shutdown.json');
    const agentId = await createAgent('shutdown', { FAKE_AGENT_CHUNKS: '10000', FAKE_AGENT_DELAY_MS: '50', FAKE_AGENT_RECORD: recordFile });
    const executionId = await execute(agentId, { task: 'Interrupted' });
    await until('run started', () => record(executionId), (r) => r.status === 'running' && r.outputSeq >= 1);
    const { pid } = readRecordFile(recordFile);
    agentPids.push(pid);

    await worker?.stop(); // the SDK cancels running activities after its grace time
    worker = null;
    await until('agent process gone', async () => processRunning(pid), (alive) => !alive, 10_000);

    first = await startWorker(); // finishes the workflow the stopped worker left
    const done = await finished(executionId);
    expect(done).toMatchObject({ status: 'error', error: WORKER_STOPPED_ERROR, sessionId: expect.any(String) });
  }, 90_000);

  it('killed, leaves no record running: the execution fails with the worker-lost error and the queue moves on', async () => {
    await api('PUT', '/api/settings', { maxConcurrent: 1 });

    const recordFile = path.join(scratch, 'orphan.json');
    // Silent for a minute before its first line, like an agent in a long tool call: no write to its
    // dead worker's pipe can end it before the test looks; only the kernel can.
    const slowAgent = await createAgent('orphan', { FAKE_AGENT_CHUNKS: '100', FAKE_AGENT_DELAY_MS: '60000', FAKE_AGENT_RECORD: recordFile });
    const quickAgent = await createAgent('after', { FAKE_AGENT_CHUNKS: '2' });
    const slowId = await execute(slowAgent, { task: 'Long job' });
    await until('slow run started', () => record(slowId), (r) => r.status === 'running');
    const recordedPid = async () => {
      try {
        return readRecordFile(recordFile).pid; // the agent writes it before its first event
      } catch {
        return 0; // not written yet, or half-written
      }
    };
    const agentPid = await until('agent process up', recordedPid, (pid) => pid > 0);
    agentPids.push(agentPid);
    const quickId = await execute(quickAgent, { task: 'Next in line' });
    expect((await record(quickId)).status).toBe('queued');

    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    // The kernel kills the agent with its worker (parent-death signal), so it never outlives its slot.
    await until('agent process gone with its worker', async () => processRunning(agentPid), (alive) => !alive, 10_000);
    await startWorker();

    const slow = await finished(slowId, 90_000);
    expect(slow).toMatchObject({ status: 'error', error: WORKER_LOST_ERROR });
    const quick = await finished(quickId, 60_000);
    expect(quick.status).toBe('completed');
    expect(new Date(quick.startedAt).getTime()).toBeGreaterThanOrEqual(new Date(slow.endedAt).getTime());
    const active = await api('GET', '/api/executions/active');
    expect(active.body.filter((item: any) => [slowId, quickId].includes(item.id))).toEqual([]);
  }, 180_000);
});
