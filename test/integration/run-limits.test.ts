import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { config as baseConfig } from '../../lib/config';
import { processRunning } from '../../scripts/process-state';
import { timedOutError } from '../../domain/run-limits';
import { sleeperPidIn } from '../support/agent-workspace';
import type { StandInModel } from '../support/stand-in-model';
import { promptsOf } from '../support/stand-in-model';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import type { TestServer } from '../support/server';
import { until } from '../support/waiting';
import { connectClient, untilFinal, untilPipelineMessage, type SocketProbe } from '../support/websocket';
import { jsonCall, notificationOf } from '../support/json-api';

/**
 * Runs have limits (docs/agents.md, "Time limit"), with the real Claude Code CLI against the stand-in
 * model: a run past its agent's `config.timeout` (or the service's default, AGENT_RUN_TIMEOUT_SECONDS)
 * has its process group killed and ends `error` saying after how long; its slot is free; a pipeline
 * step that times out fails the run, which resumes; each retry attempt has a limit of its own.
 */

/** The worker's default limit (AGENT_RUN_TIMEOUT_SECONDS) in this suite, for agents that set none. */
const DEFAULT_LIMIT_MS = 12_000;

describe('run time limits, with the real CLI', () => {
  let agents: RealAgents;
  let server: TestServer;
  let model: StandInModel;
  const probes: SocketProbe[] = [];
  const pids: number[] = [];

  beforeAll(async () => {
    agents = await startRealAgents({
      name: 'run-limits',
      maxConcurrent: 1,
      orchestration: { runTimeoutMs: DEFAULT_LIMIT_MS, followUps: { retryDelayMs: 1_000, delegationDepthMax: 3 } },
    });
    ({ server, model } = agents);
  }, 60_000);

  afterAll(async () => {
    for (const probe of probes) probe.socket.terminate();
    for (const pid of pids) killQuietly(pid);
    await jsonCall(server?.url ?? '', 'PUT', '/api/settings', { maxConcurrent: 2 }).catch(() => undefined);
    await agents?.close();
  });

  const call = (method: string, route: string, body?: unknown, clientId?: string) => jsonCall(server.url, method, route, body, clientId);
  const detail = async (id: string) => (await call('GET', `/api/executions/history/${id}`)).body;

  async function connect(): Promise<{ probe: SocketProbe; clientId: string }> {
    const clientId = `painel-${randomUUID()}`;
    const probe = await connectClient(server.url, clientId);
    probes.push(probe);
    return { probe, clientId };
  }

  async function execute(agentId: string, task: string, clientId: string): Promise<string> {
    const answer = await call('POST', `/api/agents/${agentId}/execute`, { task, instructions: '' }, clientId);
    expect(answer.status).toBe(202);
    return answer.body.executionId as string;
  }

  /** The pid the stand-in:sleep tool call wrote in `dir` (its shell's), remembered to be checked gone. */
  async function sleeperIn(dir: string): Promise<number> {
    const pid = await sleeperPidIn(dir);
    pids.push(pid);
    return pid;
  }

  it("stops a run at its agent's config.timeout: the process tree is gone, the record, the client, the report and the notification say so, the slot is free", async () => {
    const agent = await agents.standInAgent('limitado', { timeout: 5_000 });
    const { probe, clientId } = await connect();
    const executionId = await execute(agent.id, `stand-in:sleep seconds=600 ${randomUUID()}`, clientId);
    const sleeper = await sleeperIn(path.join(agents.workArea, 'limitado'));
    expect(processRunning(sleeper)).toBe(true);

    const received = await untilFinal(probe, executionId);
    const expected = timedOutError(5_000);
    expect(expected).toBe('a execução excedeu o tempo limite de 5 s e foi encerrada');
    expect(received.at(-1)).toMatchObject({ type: 'execution_error', executionId, status: 'error', data: { error: expected } });
    // The record says so only once the agent's whole process group is gone: the tool it ran too.
    expect(processRunning(sleeper)).toBe(false);
    const record = await until(
      'the report',
      () => detail(executionId),
      (found) => found.reportFile !== null,
    );
    expect(record).toMatchObject({ status: 'error', error: expected, attempt: 1 });
    const report = fs.readFileSync(path.join(baseConfig.orchestration.dataDir, 'reports', record.reportFile), 'utf8');
    expect(report).toContain(expected);
    expect(await notificationOf(server.url, executionId)).toMatchObject({
      title: 'Execução falhou',
      message: `${agent.name}: ${expected}`,
    });

    // The only slot (maxConcurrent 1) is free: the next run starts and completes.
    const next = await execute(agent.id, 'stand-in:text', clientId);
    expect((await untilFinal(probe, next)).at(-1)).toMatchObject({ type: 'execution_complete', status: 'completed' });
  }, 120_000);

  it('an agent without config.timeout gets the default limit (AGENT_RUN_TIMEOUT_SECONDS)', async () => {
    const agent = await agents.standInAgent('padrao');
    const { probe, clientId } = await connect();
    const executionId = await execute(agent.id, `stand-in:sleep seconds=600 ${randomUUID()}`, clientId);
    const sleeper = await sleeperIn(path.join(agents.workArea, 'padrao'));

    const received = await untilFinal(probe, executionId);
    expect(received.at(-1)).toMatchObject({ type: 'execution_error', data: { error: timedOutError(DEFAULT_LIMIT_MS) } });
    expect(timedOutError(DEFAULT_LIMIT_MS)).toContain('12 s');
    expect(processRunning(sleeper)).toBe(false);
  }, 120_000);

  it('a retry attempt after a timeout gets a limit of its own, and the timeout counted as the failure retried', async () => {
    const agent = await agents.standInAgent('tenta-de-novo', { timeout: 6_000, retryOnFailure: true, maxRetries: 1 });
    const { probe, clientId } = await connect();
    const marker = `lento-uma-vez-${randomUUID()}`;
    // The first attempt's model streams for a minute (past its limit); the second gets the quick scenario.
    model.enqueue({
      kind: 'text',
      text: 'tick. '.repeat(60),
      deltas: 60,
      delayMs: 1_000,
      when: (request) => (promptsOf(request.body).at(-1) ?? '').includes(marker),
    });
    const executionId = await execute(agent.id, `stand-in:text ${marker}`, clientId);
    const received = await untilFinal(probe, executionId);

    // The first attempt used its whole limit: the second completes only because its clock started anew.
    expect(received.find((message) => message.type === 'execution_retry')).toMatchObject({
      attempt: 1,
      maxRetries: 1,
      reason: timedOutError(6_000),
    });
    expect(received.at(-1)).toMatchObject({ type: 'execution_complete', status: 'completed' });
    expect(await detail(executionId)).toMatchObject({ status: 'completed', attempt: 2, error: null });
  }, 120_000);

  it('a pipeline step that times out fails the step and the run; resumed with a longer limit, the run completes', async () => {
    const slowStep = await agents.standInAgent('etapa-lenta', { workingDirectory: '', timeout: 4_000 });
    const created = await call('POST', '/api/pipelines', {
      name: `limite ${randomUUID().slice(0, 8)}`,
      description: '',
      workingDirectory: path.join(agents.workArea, 'pipeline'),
      steps: [{ agentId: slowStep.id, inputTemplate: 'stand-in:sleep seconds=8\n{{input}}', description: '', requiresApproval: false }],
    });
    expect(created.status).toBe(201);
    const pipelineId = created.body.id;
    const { probe, clientId } = await connect();
    const started = await call('POST', `/api/pipelines/${pipelineId}/execute`, { input: 'entrada' }, clientId);
    expect(started.status).toBe(202);
    const runId = started.body.executionId;

    const failed = await untilPipelineMessage(probe, pipelineId, 'pipeline_error');
    expect(failed.at(-1)).toMatchObject({
      type: 'pipeline_error',
      executionId: runId,
      stepIndex: 0,
      error: expect.stringContaining(timedOutError(4_000)),
    });
    const run = await detail(runId);
    expect(run).toMatchObject({ status: 'error' });
    expect(await detail(run.steps[0].executionId)).toMatchObject({ status: 'error', error: timedOutError(4_000) });

    // The limit raised (curl would send the same PUT), the run resumes from the step that timed out.
    expect((await call('PUT', `/api/agents/${slowStep.id}`, { config: { timeout: 60_000 } })).status).toBe(200);
    const resumed = await call('POST', `/api/pipelines/resume/${runId}`, undefined, clientId);
    expect(resumed).toMatchObject({ status: 202, body: { status: 'resumed', resumedAtStep: 0 } });
    await untilPipelineMessage(probe, pipelineId, 'pipeline_complete');
    expect(await detail(resumed.body.executionId)).toMatchObject({ status: 'completed', source: 'resume', resumedFrom: runId });
  }, 180_000);
});

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone already
  }
}
