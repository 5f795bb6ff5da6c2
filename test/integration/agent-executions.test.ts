import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { format } from 'mysql2';
import { claudeCode } from '../../activities/agents/claude-code';
import { config } from '../../lib/config';
import { logger } from '../../lib/logger';
import { repoRoot } from '../../lib/paths';
import { startAgentsWorker } from '../../workers/agents';
import { processRunning } from '../../scripts/process-state';
import { CANCELLED_ERROR, WORKER_LOST_ERROR, WORKER_STOPPED_ERROR } from '../../domain/execution-errors';
import { sleeperPidIn } from '../support/agent-workspace';
import { promptsOf, STAND_IN_TEXT, toolResultsOf, type RecordedRequest, type StandInModel } from '../support/stand-in-model';
import { startServiceProcess, waitForLog, type ServiceProcess } from '../support/processes';
import { unusedPort } from '../support/ports';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import { startTestServer, type TestServer } from '../support/server';
import { openSocket, type SocketProbe } from '../support/websocket';
import { deleteAgent } from '../../services/agents';
import { until } from '../support/waiting';
import { endedExecution, executionRecord, jsonCall, notificationOf } from '../support/json-api';
import { FINAL_EXECUTION_MESSAGE_TYPES } from '../../lib/live-output';
import { agentExecutionWorkflowId } from '../../temporal/contracts/agent-execution';
import { agentDepsOf, scheduleDepsOf } from '../../api/use-case-deps';

/**
 * Agent executions through the API (docs/agent-executions.md) with the pinned Claude Code CLI against
 * the stand-in model (docs/claude-code-cli.md, test/support/real-agents.ts): what a run does is what
 * the stand-in answers (a text, a tool call the CLI runs, a slow stream, an error), and what the CLI
 * process was started with is what /proc showed of it while it waited for the model (the stand-in
 * records it, `recordClients`).
 */

const CLAUDE_CLI = path.join(repoRoot, 'node_modules/.bin/claude');
const SECRET_VALUE = 'sk-test-3f9a8b7c6d5e4f30-never-answered';
const CREDENTIALS_HINT = claudeCode.failureHint!('Invalid API key');
/** A worker like the suite's: the agent command is the CLI. */
const agentConfig = { ...config, orchestration: { ...config.orchestration, agentCommand: CLAUDE_CLI } };

let agents: RealAgents;
let server: TestServer;
let model: StandInModel;
const children: ServiceProcess[] = [];
const agentPids: number[] = [];

let deadTemporalPort: number;

beforeAll(async () => {
  deadTemporalPort = await unusedPort();
  agents = await startRealAgents({ name: 'agent-executions', maxConcurrent: 2 });
  ({ server, model } = agents);
  model.recordClients();
  // Other suites change the settings: fix the ones these tests depend on.
  await api('PUT', '/api/settings', { maxConcurrent: 2, defaultModel: 'sonnet', defaultWorkdir: config.orchestration.workdirRoots[0] });
}, 60_000);

afterAll(async () => {
  for (const child of children) child.child.kill('SIGKILL');
  for (const pid of agentPids) killGroup(pid);
  if (server) await api('PUT', '/api/settings', { maxConcurrent: 2 }).catch(() => undefined);
  await agents?.close();
});

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

const api = (method: string, urlPath: string, body?: unknown, clientId?: string) => jsonCall(server.url, method, urlPath, body, clientId);

/**
 * An agent whose runs reach the stand-in (its address and key are secrets, so they reach the CLI's
 * environment as any other secret does), with `secrets` besides; its instructions (the system prompt)
 * "Be brief.", no model of its own (the settings' default). `config` and `fields` (status, ...) override.
 */
const createAgent = async (
  name: string,
  secrets: Record<string, string>,
  config: Record<string, unknown> = {},
  fields: Record<string, unknown> = {},
): Promise<string> =>
  (
    await agents.standInAgent(
      name,
      { systemPrompt: 'Be brief.', model: '', permissionMode: 'bypassPermissions', maxTurns: 7, ...config },
      fields,
      secrets,
    )
  ).id;

const record = (executionId: string) => executionRecord(server.url, executionId);
/** The record once final with its report written. */
const finished = (executionId: string, timeoutMs?: number) => endedExecution(server.url, executionId, timeoutMs);

async function execute(agentId: string, body: Record<string, unknown>, clientId?: string): Promise<string> {
  const answer = await api('POST', `/api/agents/${agentId}/execute`, body, clientId);
  expect(answer.status).toBe(202);
  expect(answer.body).toEqual({ executionId: expect.any(String), status: 'queued' });
  return answer.body.executionId as string;
}

/** The stand-in's message requests whose latest prompt is `prompt` (a run's, and its tool calls'). */
const requestsOf = (prompt: string): RecordedRequest[] => model.messages().filter((request) => promptsOf(request.body).at(-1) === prompt);

/** The CLI process of the latest run of `prompt`, once it asked the model (the stand-in saw it then). */
async function cliOf(prompt: string): Promise<{ pid: number; argv: string[]; env: Record<string, string>; cwd: string }> {
  const request = await until(
    `the CLI asks the model for "${prompt.slice(0, 40)}"`,
    async () => requestsOf(prompt).at(-1),
    (found) => found?.client != null,
    60_000,
  );
  agentPids.push(request!.client!.pid);
  return request!.client!;
}

/** The pid a stand-in:sleep tool call wrote in the run's working directory (its shell's), once written. */
async function sleeperOf(executionId: string): Promise<number> {
  const pid = await sleeperPidIn((await record(executionId)).workingDirectory);
  agentPids.push(pid);
  return pid;
}

/** From the first request of each prompt to the end of its last answer: when each run talked with the model. */
function modelSpans(prompts: string[]): Array<{ from: number; to: number }> {
  return prompts.map((prompt) => {
    const requests = requestsOf(prompt);
    expect(requests.length).toBeGreaterThan(0);
    return {
      from: Math.min(...requests.map((request) => request.receivedAt)),
      to: Math.max(...requests.map((request) => request.endedAt ?? Date.now())),
    };
  });
}

/** For each span, how many spans (itself included) were under way when it began. */
const overlapsAt = (spans: Array<{ from: number; to: number }>): number[] =>
  spans.map((span) => spans.filter((other) => other.from <= span.from && span.from <= other.to).length);

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
  const [rows] = await server.resources.database.pool.query('SELECT COUNT(*) AS n FROM executions');
  return Number((rows as Array<{ n: number }>)[0]?.n);
}

let completedSession: { agentId: string; executionId: string; sessionId: string; prompt: string } | null = null;
let failedExecutionId = '';

describe('POST /agents/{id}/execute', () => {
  it('runs the agent and stores the outcome, the report and a notification; secrets reach only the process', async () => {
    const agentId = await createAgent('complete', { SERVICE_TOKEN: SECRET_VALUE });
    // The panel's body: the task, its additional instructions (always sent, '' when none).
    const executionId = await execute(
      agentId,
      { task: 'Say hello stand-in:text', instructions: 'Answer in Portuguese.' },
      'client-complete',
    );

    const done = await finished(executionId);
    expect(done).toMatchObject({
      id: executionId,
      executionId,
      type: 'agent',
      agentId,
      agentName: expect.stringMatching(/^complete [0-9a-f]{8}$/),
      status: 'completed',
      source: 'manual',
      task: 'Say hello stand-in:text',
      instructions: 'Answer in Portuguese.',
      workingDirectory: path.join(agents.workArea, 'complete'),
      model: 'sonnet',
      numTurns: 1,
      // The CLI's result event text, not the streamed text (contract 7.4), and the exit code.
      result: STAND_IN_TEXT,
      exitCode: 0,
      attempt: 1,
      error: null,
      outputTruncated: false,
      parentSessionId: null,
      delegatedFrom: null,
      sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    // Priced by the CLI from the stand-in's usage.
    expect(done.costUsd).toBeGreaterThan(0);
    expect(done.totalCostUsd).toBe(done.costUsd);
    expect(done.durationMs).toEqual(expect.any(Number));
    // The terminal's lines as stored (their format: docs/websocket.md): the text, its turn, the summary.
    expectLinesInOrder(done.output, [STAND_IN_TEXT, '── Turno 1 ──', 'Resultado: 1 turnos']);
    expect(done.outputSeq).toBe(3);
    expect(done.clientId).toBeUndefined();
    expect(done.waitingHeartbeatAt).toBeUndefined();
    expect(new Date(done.startedAt).getTime()).toBeLessThanOrEqual(new Date(done.endedAt).getTime());

    // The process: the prompt (task, then the additional instructions) on stdin, as it reached the
    // model; the agent's instructions as the system prompt and its options as arguments; the secret
    // in the environment only.
    const prompt = 'Say hello stand-in:text\n\nInstruções adicionais:\nAnswer in Portuguese.';
    const [request] = requestsOf(prompt);
    expect(promptsOf(request!.body)).toEqual([prompt]);
    const seen = request!.client!;
    expect(seen.argv).toEqual(expect.arrayContaining(['--max-turns', '7', '--permission-mode', 'bypassPermissions', '--model', 'sonnet']));
    expect(seen.argv).toContain('--system-prompt=Be brief.');
    expect((request!.body as { system: Array<{ text: string }> }).system.at(-1)!.text).toBe('Be brief.');
    // The settings' default model, as the CLI names the alias.
    expect(request!.body).toMatchObject({ model: 'claude-sonnet-5-5' });
    expect(seen.env.SERVICE_TOKEN).toBe(SECRET_VALUE);
    expect(seen.env.MYSQL_PASSWORD).toBeUndefined();
    expect(seen.cwd).toBe(path.join(agents.workArea, 'complete'));

    // The report, in both directories.
    expect(done.reportFile).toMatch(/^\d{4}-\d{2}-\d{2}_\d{6}_complete-[0-9a-f]{8}_[0-9a-f]{8}\.md$/);
    const inData = fs.readFileSync(path.join(config.orchestration.dataDir, 'reports', done.reportFile), 'utf8');
    const external = fs.readFileSync(path.join(config.orchestration.reportsDir, done.reportFile), 'utf8');
    expect(external).toBe(inData);
    expect(inData).toContain('| Status | completed |');
    expect(inData).toContain(`| Sessão | ${done.sessionId} |`);

    // Contract 3.10: "Execução concluída", a success.
    expect(await notificationOf(server.url, executionId)).toMatchObject({
      type: 'success',
      kind: 'execution.completed',
      title: 'Execução concluída',
      message: `${done.agentName}: Say hello stand-in:text`,
      read: false,
    });

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
    completedSession = { agentId, executionId, sessionId: done.sessionId, prompt };
  });

  it("runs an agent made with the panel's defaults (working directory /home/projetos/ or empty) in the projects area", async () => {
    const projects = config.orchestration.workdirRoots[0];
    expect(projects).toBe('/home/projetos');
    for (const [label, workingDirectory] of [
      ['prefilled', '/home/projetos/'],
      ['empty', ''],
    ] as const) {
      const agentId = await createAgent(`Panel ${label}`, {}, { workingDirectory });
      // The panel sends no workingDirectory when its execute field is empty.
      const task = `Panel ${label} ${randomUUID()}`;
      const done = await finished(await execute(agentId, { task, instructions: '' }));
      expect({ status: done.status, workingDirectory: done.workingDirectory }).toEqual({ status: 'completed', workingDirectory: projects });
      expect(requestsOf(task)[0]!.client!.cwd).toBe(projects);
    }
  });

  it('answers 400 on bad bodies and 404 on an unknown agent, creating nothing', async () => {
    const agentId = await createAgent('refused', {});
    const before = await executionCount();
    const inactiveId = await createAgent('inactive', {}, {}, { status: 'inactive' });
    const cases: Array<[string, unknown, number, string]> = [
      [agentId, {}, 400, 'body.task: task é obrigatório'],
      [agentId, { task: '   ' }, 400, 'body.task: task é obrigatório'],
      [agentId, { task: 'x', extra: 1 }, 400, 'body: Chave inválida: "extra"'],
      [agentId, { task: 'x', instructions: 5 }, 400, 'body.instructions'],
      [
        agentId,
        { task: 'x', workingDirectory: 'relative/dir' },
        400,
        'body.workingDirectory: O diretório de trabalho deve ser um caminho absoluto (recebido "relative/dir")',
      ],
      [agentId, { task: 'x', contextFiles: ['/data/uploads/a.txt'] }, 400, 'body.contextFiles.0'],
      [agentId, { task: 'x', contextFiles: [{ originalName: 'a', path: '../etc/passwd', size: 1 }] }, 400, 'body.contextFiles.0.path'],
      [agentId, { task: 'x', repoName: 'org/repo' }, 404, 'Repositório não encontrado: "org/repo"'],
      [agentId, { task: 'x', repoBranch: 'main' }, 400, 'repoBranch exige repoName'],
      [inactiveId, { task: 'x', instructions: '' }, 400, `O agente ${inactiveId} está inativo`],
      ['00000000-0000-4000-8000-000000000000', { task: 'x' }, 404, 'Agente não encontrado: 00000000-0000-4000-8000-000000000000'],
    ];
    try {
      for (const [id, body, status, message] of cases) {
        const answer = await api('POST', `/api/agents/${id}/execute`, body);
        expect({ status: answer.status, error: String(answer.body.error) }).toEqual({ status, error: expect.stringContaining(message) });
      }
      expect(await executionCount()).toBe(before);
    } finally {
      // Other suites count the agents by status: leave no inactive one behind.
      await deleteAgent({ ...agentDepsOf(server.resources), schedules: scheduleDepsOf(server.resources) }, inactiveId);
    }
  });

  it('lists the uploaded context files after the task, one "path (originalName)" line each', async () => {
    const agentId = await createAgent('context-files', {});
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
      // The prompt the CLI read on stdin is what reached the model.
      expect(requestsOf(task)).toHaveLength(1);
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
      expect(latest).toMatchObject({
        status: 'error',
        error: 'a execução não pôde ser iniciada (motor de workflows indisponível)',
        endedAt: expect.any(String),
      });
      expect(latest.startedAt).toBe(latest.createdAt);
    } finally {
      await cut.close();
    }
  }, 120_000);

  it('fails an execution whose agent fails, keeping its error and what it reported', async () => {
    const agentId = await createAgent('failing', {});
    const task = `Break ${randomUUID()} stand-in:error status=401`;
    // Its first turn: a text and a Bash call; the model then refuses the credentials (401, which the CLI does not retry).
    const firstTurn = {
      kind: 'tool_use' as const,
      name: 'Bash',
      text: 'Starting the work.',
      input: { command: 'echo partial-work', description: 'Start' },
      when: (request: RecordedRequest) => promptsOf(request.body).at(-1) === task && toolResultsOf(request.body).length === 0,
    };
    // This run's, and its retry's (below).
    model.enqueue(firstTurn, firstTurn);
    const executionId = await execute(agentId, { task, instructions: '' });
    const done = await finished(executionId);
    expect(done).toMatchObject({
      status: 'error',
      error: `claude-code terminou com o código 1: Invalid API key · Fix external API key (${CREDENTIALS_HINT})`,
      numTurns: 2,
      exitCode: 1,
      result: 'Invalid API key · Fix external API key',
      reportFile: expect.any(String),
    });
    // The first turn was priced; what it printed is kept.
    expect(done.costUsd).toBeGreaterThan(0);
    expectLinesInOrder(done.output, ['Starting the work.', '▸ Bash: echo partial-work', '── Turno 1 ──', 'Resultado: 2 turnos']);
    expect(await notificationOf(server.url, executionId)).toMatchObject({
      type: 'error',
      kind: 'execution.error',
      title: 'Execução falhou',
      message: `${done.agentName}: ${done.error}`,
    });
    failedExecutionId = executionId;
  });
});

describe('what the agent is configured with', () => {
  it("runs the CLI with the agent's model, in the agent's working directory (or the run's)", async () => {
    const workingDirectory = path.join(agents.workArea, 'honoured', 'project');
    const agentId = await createAgent('honoured', {}, { model: 'claude-sonnet-4-6', workingDirectory });
    const task = 'Leave a mark stand-in:write-file path=mark.txt content=honoured';
    const done = await finished(await execute(agentId, { task, instructions: '' }));
    expect(done).toMatchObject({ status: 'completed', model: 'claude-sonnet-4-6', workingDirectory, result: 'Wrote the file: honoured' });
    // Every request the CLI sent named the agent's model; the CLI ran in the agent's directory and wrote the file there.
    const requests = requestsOf(task);
    expect(requests.map((request) => (request.body as { model: string }).model)).toEqual(['claude-sonnet-4-6', 'claude-sonnet-4-6']);
    expect(requests[0]!.client!.argv).toEqual(expect.arrayContaining(['--model', 'claude-sonnet-4-6']));
    expect(requests[0]!.client!.cwd).toBe(workingDirectory);
    expect(fs.readFileSync(path.join(workingDirectory, 'mark.txt'), 'utf8')).toBe('honoured\n');

    // The execute body's working directory wins over the agent's.
    const elsewhere = path.join(agents.workArea, 'honoured', 'elsewhere');
    const otherTask = 'Leave another mark stand-in:write-file path=mark.txt content=elsewhere';
    const other = await finished(await execute(agentId, { task: otherTask, instructions: '', workingDirectory: elsewhere }));
    expect(other).toMatchObject({ status: 'completed', model: 'claude-sonnet-4-6', workingDirectory: elsewhere });
    expect(requestsOf(otherTask)[0]!.client!.cwd).toBe(elsewhere);
    expect(fs.readFileSync(path.join(elsewhere, 'mark.txt'), 'utf8')).toBe('elsewhere\n');
    expect(fs.readFileSync(path.join(workingDirectory, 'mark.txt'), 'utf8')).toBe('honoured\n');
  });
});

describe('output the database refuses during the run', () => {
  it('is kept and stored once it is accepted again: every line once, in order', async () => {
    const agentId = await createAgent('refused-output', {});
    const executionId = await execute(agentId, { task: 'Through an outage stand-in:lines count=30 every=100 tag=outage' });
    await until(
      'output stored',
      () => record(executionId),
      (r) => r.status === 'running' && r.outputSeq >= 2,
    );
    const pool = server.resources.database.pool;
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
    expectLinesInOrder(
      done.output,
      Array.from({ length: 30 }, (_, i) => `outage line ${i + 1} of 30`),
    );
  });
});

describe('live output', () => {
  it('reaches only the client that started the execution, numbered, as stored in the record', async () => {
    const agentId = await createAgent('live', {});
    const wsBase = server.url.replace(/^http/, 'ws');
    const sockets: Record<string, SocketProbe> = {};
    for (const clientId of ['live-a', 'live-b']) {
      sockets[clientId] = await openSocket(`${wsBase}/ws?clientId=${clientId}`);
      expect(await sockets[clientId].nextMessage()).toEqual({ type: 'connected', clientId });
    }
    const ids = {
      'live-a': await execute(agentId, { task: 'Task of A stand-in:lines count=5 every=30 tag=A' }, 'live-a'),
      'live-b': await execute(agentId, { task: 'Task of B stand-in:lines count=5 every=30 tag=B' }, 'live-b'),
    };

    for (const clientId of ['live-a', 'live-b'] as const) {
      const executionId = ids[clientId];
      const tag = clientId === 'live-a' ? 'A' : 'B';
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
      expectLinesInOrder(
        texts,
        Array.from({ length: 5 }, (_, i) => `${tag} line ${i + 1} of 5`),
      );
      expect(texts).not.toContain(`${tag === 'A' ? 'B' : 'A'} line`);
      const stored = await record(executionId);
      expect(stored.outputSeq).toBe(outputs.length);
      expect(received.at(-1)).toMatchObject({
        status: 'completed',
        lastSeq: outputs.length,
        agentId,
        source: 'manual',
        data: { sessionId: stored.sessionId, result: stored.result, exitCode: 0, costUsd: stored.costUsd },
      });
    }
    for (const probe of Object.values(sockets)) probe.socket.close();
  });
});

describe('cancel, continue, retry', () => {
  it('cancels a running execution: the agent process is killed and the record ends cancelled', async () => {
    const agentId = await createAgent('slow', {});
    const task = 'Take your time stand-in:lines count=600 every=100 tag=slow';
    const executionId = await execute(agentId, { task });
    await until(
      'output stored',
      () => record(executionId),
      (r) => r.status === 'running' && r.outputSeq >= 2,
    );
    const { pid } = await cliOf(task);
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
    expect(done).toMatchObject({ status: 'canceled', error: CANCELLED_ERROR, reportFile: expect.any(String) });
    expect(done.output).toContain('slow line 1 of 600');
    expect(done.output).toContain('slow line 2 of 600');
    await until(
      'agent process gone',
      async () => processRunning(pid),
      (alive) => !alive,
      10_000,
    );
    // The model's stream was left: the CLI did not read it to its end.
    expect(requestsOf(task)[0]!.streamCompleted).toBe(false);

    // Once finished, or unknown: 404 (contract 3.1).
    expect(await api('POST', `/api/agents/${agentId}/cancel/${executionId}`)).toMatchObject({
      status: 404,
      body: { error: `Execução ${executionId} do agente ${agentId} não encontrada ou já finalizada` },
    });
    const unknown = await api('POST', `/api/agents/${agentId}/cancel/00000000-0000-4000-8000-000000000000`);
    expect(unknown).toMatchObject({
      status: 404,
      body: { error: `Execução 00000000-0000-4000-8000-000000000000 do agente ${agentId} não encontrada ou já finalizada` },
    });
    // A stop the user asked for raises no notification (contract 3.10: completion and final error only):
    // looked at once the workflow, which would raise it last, has ended.
    await server.resources.temporal.client.workflow
      .getHandle(agentExecutionWorkflowId(executionId))
      .result()
      .catch(() => undefined);
    expect(
      (await api('GET', '/api/notifications?pageSize=100')).body.notifications.filter((item: any) => item.executionId === executionId),
    ).toEqual([]);
  });

  it('cancels every active execution at once, running or queued', async () => {
    const agentId = await createAgent('many', {});
    const ids: string[] = [];
    for (const name of ['One', 'Two', 'Three'])
      ids.push(await execute(agentId, { task: `${name} stand-in:lines count=600 every=100 tag=${name}` }));
    // Limit 2: two run, the third waits.
    await until(
      'two running',
      () => Promise.all(ids.map(record)),
      (records) => records.filter((r) => r.status === 'running').length === 2,
    );
    const active = await api('GET', '/api/executions/active');
    const mine = active.body.filter((item: any) => ids.includes(item.id));
    expect(mine.map((item: any) => [item.executionId, item.status, item.agentConfig.agent_name])).toEqual([
      [ids[0], 'running', expect.stringMatching(/^many [0-9a-f]{8}$/)],
      [ids[1], 'running', expect.stringMatching(/^many [0-9a-f]{8}$/)],
      [ids[2], 'queued', expect.stringMatching(/^many [0-9a-f]{8}$/)],
    ]);
    expect(mine.every((item: any) => item.agentId === agentId && !Number.isNaN(new Date(item.startedAt).getTime()))).toBe(true);
    expect(active.body.every((item: any) => !('output' in item) && !('clientId' in item))).toBe(true);

    const answer = await api('POST', '/api/executions/cancel-all');
    expect(answer).toMatchObject({ status: 200, body: { cancelled: true, count: 3 } });
    for (const id of ids) expect(await finished(id)).toMatchObject({ status: 'canceled', error: CANCELLED_ERROR });
    // The queued one never ran: its startedAt is when it was queued, and its CLI never asked the model.
    const neverRan = await record(ids[2]!);
    expect(neverRan.startedAt).toBe(neverRan.createdAt);
    expect(requestsOf('Three stand-in:lines count=600 every=100 tag=Three')).toEqual([]);
    expect((await api('POST', '/api/executions/cancel-all')).body).toEqual({ cancelled: true, count: 0 });
  });

  it('continues a session: a new execution that passes --resume <sessionId> and the message as the prompt', async () => {
    expect(completedSession).not.toBeNull();
    const { agentId, executionId: parentId, sessionId, prompt } = completedSession!;
    const answer = await api('POST', `/api/agents/${agentId}/continue`, { sessionId, message: 'And then?' }, 'client-complete');
    expect(answer.status).toBe(202);
    const done = await finished(answer.body.executionId);
    expect(answer.body).toEqual({ executionId: expect.any(String), status: 'queued' });
    // The stand-in's answer to a prompt without a scenario: "OK".
    expect(done).toMatchObject({
      status: 'completed',
      source: 'continue',
      parentExecutionId: parentId,
      parentSessionId: sessionId,
      sessionId,
      task: 'And then?',
      instructions: '',
      result: 'OK',
    });
    // The CLI resumed the session: the model got the earlier exchange, then the message.
    const [request] = requestsOf('And then?');
    expect(promptsOf(request!.body)).toEqual([prompt, 'And then?']);
    expect(request!.headers['x-claude-code-session-id']).toBe(sessionId);
    const { argv } = request!.client!;
    expect(argv.slice(argv.indexOf('--resume'), argv.indexOf('--resume') + 2)).toEqual(['--resume', sessionId]);

    const before = await executionCount();
    expect(await api('POST', `/api/agents/${agentId}/continue`, { sessionId: 'no-such-session', message: 'x' })).toMatchObject({
      status: 404,
      body: { error: `O agente ${agentId} não tem a sessão no-such-session` },
    });
    expect(await api('POST', `/api/agents/${agentId}/continue`, { sessionId })).toMatchObject({
      status: 400,
      body: { error: 'body.message: message é obrigatório' },
    });
    expect(await api('POST', `/api/agents/${agentId}/continue`, { message: 'x' })).toMatchObject({
      status: 400,
      body: { error: 'body.sessionId: sessionId é obrigatório' },
    });
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
      error: parent.error,
    });
    // The same prompt reached the model again: the failed run's two requests, then the retry's two.
    expect(requestsOf(parent.task).map((request) => request.status)).toEqual([200, 401, 200, 401]);
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
    const agentId = await createAgent('burst', {});
    const tasks = Array.from({ length: 6 }, (_, index) => `Burst ${index} stand-in:lines count=4 every=100 tag=burst${index}`);
    const ids: string[] = [];
    for (const task of tasks) ids.push(await execute(agentId, { task }));

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
    expect(records.map((r) => r.status)).toEqual(Array(6).fill('completed'));
    // FIFO: slots are taken in submission order.
    const starts = records.map((r) => new Date(r.startedAt).getTime());
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
    // When each CLI talked with the model: never three runs at once.
    expect(Math.max(...overlapsAt(modelSpans(tasks)))).toBeLessThanOrEqual(2);
  }, 150_000);

  it('applies a new maxConcurrent at once: a waiting execution starts without any other finishing', async () => {
    expect((await api('PUT', '/api/settings', { maxConcurrent: 1 })).status).toBe(200);
    try {
      const agentId = await createAgent('limit', {});
      const holding = 'Hold the slot stand-in:lines count=600 every=100 tag=hold';
      const waiting = 'Wait for a slot stand-in:lines count=600 every=100 tag=wait';
      const holdingId = await execute(agentId, { task: holding });
      await until(
        'the first runs',
        () => record(holdingId),
        (r) => r.status === 'running' && r.outputSeq >= 1,
      );
      const waitingId = await execute(agentId, { task: waiting });
      // Limit 1: it waits while the first streams on.
      const before = await until(
        'the first streams on',
        () => record(holdingId),
        (r) => r.outputSeq >= 5,
      );
      expect((await record(waitingId)).status).toBe('queued');
      expect(requestsOf(waiting)).toEqual([]);

      expect((await api('PUT', '/api/settings', { maxConcurrent: 2 })).status).toBe(200);
      expect((await api('GET', '/api/settings')).body).toMatchObject({ maxConcurrent: 2 });
      await until(
        'the waiting one runs',
        () => record(waitingId),
        (r) => r.status === 'running' && r.outputSeq >= 1,
        60_000,
      );
      await cliOf(waiting);
      // Started with the first still running (its stream not ended): no slot was freed for it.
      const first = await record(holdingId);
      expect(first).toMatchObject({ status: 'running', endedAt: null });
      expect(first.outputSeq).toBeGreaterThan(before.outputSeq);
      expect(requestsOf(holding).map((request) => request.endedAt)).toEqual([undefined]);
      expect(
        (await api('GET', '/api/executions/active')).body
          .filter((item: any) => [holdingId, waitingId].includes(item.id))
          .map((item: any) => item.status),
      ).toEqual(['running', 'running']);

      expect((await api('POST', '/api/executions/cancel-all')).body).toMatchObject({ cancelled: true, count: 2 });
      for (const id of [holdingId, waitingId]) expect(await finished(id)).toMatchObject({ status: 'canceled' });
    } finally {
      await api('PUT', '/api/settings', { maxConcurrent: 2 });
    }
  }, 120_000);
});

describe('concurrency across workers', () => {
  it('holds the limit with two workers polling the queue, each able to run one agent', async () => {
    // With one run at a time per worker, two agents at once means both workers ran one.
    await agents.stopWorker();
    const pair = [
      await startAgentsWorker(agentConfig, logger, { activitySlots: 1 }),
      await startAgentsWorker(agentConfig, logger, { activitySlots: 1 }),
    ];
    try {
      const agentId = await createAgent('two-workers', {});
      const tasks = Array.from({ length: 4 }, (_, index) => `Shared ${index} stand-in:lines count=4 every=300 tag=shared${index}`);
      const ids: string[] = [];
      for (const task of tasks) ids.push(await execute(agentId, { task }));
      const records = await Promise.all(ids.map((id) => finished(id, 90_000)));
      expect(records.map((r) => r.status)).toEqual(Array(4).fill('completed'));
      expect(Math.max(...overlapsAt(modelSpans(tasks)))).toBe(2);
    } finally {
      await Promise.all(pair.map((one) => one.stop()));
      await agents.restartWorker();
    }
  }, 120_000);
});

describe('a queue longer than the worker has activity slots', () => {
  it('still drains: waiters wait on their own task queue, not in the slots the runs need', async () => {
    // The shared worker has the SDK's 100 activity slots; this one has 2, so 6 queued executions
    // are 3 times what it can run at once (the same shape as a burst of 300 against the default).
    await agents.stopWorker();
    const narrow = await startAgentsWorker(agentConfig, logger, { activitySlots: 2 });
    try {
      const agentId = await createAgent('long-queue', {});
      const ids: string[] = [];
      for (let index = 0; index < 6; index += 1) ids.push(await execute(agentId, { task: `Queued ${index} stand-in:text` }));
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
      expect(records.map((r) => r.status)).toEqual(Array(6).fill('completed'));
      expect(records.map((r) => r.result)).toEqual(Array(6).fill(STAND_IN_TEXT));
      expect(Math.max(...runningCounts)).toBeLessThanOrEqual(2);
    } finally {
      await narrow.stop();
      await agents.restartWorker();
    }
  }, 120_000);
});

describe('a worker that stops mid-execution', () => {
  const startWorker = async () => {
    const child = startServiceProcess({ PROCESS_ROLES: 'agents-worker', AGENT_COMMAND: CLAUDE_CLI });
    children.push(child);
    await waitForLog(child, 'worker started');
    return child;
  };
  let first: ServiceProcess;

  it('shutting down gracefully kills the agent and the execution fails with the worker-stopped error', async () => {
    const agentId = await createAgent('shutdown', {});
    // A long Bash tool call of the CLI.
    const task = 'Interrupted stand-in:sleep seconds=300';
    const executionId = await execute(agentId, { task });
    await until(
      'run started',
      () => record(executionId),
      (r) => r.status === 'running',
    );
    const shell = await sleeperOf(executionId);
    const { pid } = await cliOf(task);

    await agents.stopWorker(); // its drain (AGENT_DRAIN_TIMEOUT_MS, 0 in tests) is over at once: the run is stopped
    await until(
      'agent process gone',
      async () => processRunning(pid),
      (alive) => !alive,
      10_000,
    );
    await until(
      'its tool gone',
      async () => processRunning(shell),
      (alive) => !alive,
      10_000,
    );

    first = await startWorker(); // finishes the workflow the stopped worker left
    const done = await finished(executionId);
    expect(done).toMatchObject({ status: 'error', error: WORKER_STOPPED_ERROR, sessionId: expect.any(String) });
  }, 90_000);

  it('killed, leaves no record running: the execution fails with the worker-lost error and the queue moves on', async () => {
    await api('PUT', '/api/settings', { maxConcurrent: 1 });

    // Silent for minutes once its tool runs (a long Bash call): no write to its dead worker's pipe can
    // end it before the test looks; only the kernel can.
    const slowAgent = await createAgent('orphan', {});
    const quickAgent = await createAgent('after', {});
    const slowTask = 'Long job stand-in:sleep seconds=300';
    const slowId = await execute(slowAgent, { task: slowTask });
    await until(
      'slow run started',
      () => record(slowId),
      (r) => r.status === 'running',
    );
    await sleeperOf(slowId);
    const { pid: agentPid } = await cliOf(slowTask);
    const quickId = await execute(quickAgent, { task: 'Next in line stand-in:text' });
    expect((await record(quickId)).status).toBe('queued');

    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    // The kernel kills the agent with its worker (parent-death signal), so it never outlives its slot.
    await until(
      'agent process gone with its worker',
      async () => processRunning(agentPid),
      (alive) => !alive,
      10_000,
    );
    await startWorker();

    const slow = await finished(slowId, 90_000);
    expect(slow).toMatchObject({ status: 'error', error: WORKER_LOST_ERROR });
    const quick = await finished(quickId, 60_000);
    expect(quick).toMatchObject({ status: 'completed', result: STAND_IN_TEXT });
    expect(new Date(quick.startedAt).getTime()).toBeGreaterThanOrEqual(new Date(slow.endedAt).getTime());
    const active = await api('GET', '/api/executions/active');
    expect(active.body.filter((item: any) => [slowId, quickId].includes(item.id))).toEqual([]);
  }, 180_000);
});
