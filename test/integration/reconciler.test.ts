import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ScheduleNotFoundError, type Client } from '@temporalio/client';
import { format } from 'mysql2';
import type { ExecutionReconcilePass } from '../../activities/agents/reconcile-executions';
import { createExecution } from '../../db/executions-store';
import { CLOSED_WORKFLOW_GRACE_MS, MISSING_WORKFLOW_GRACE_MS } from '../../domain/workflow-gone';
import { config } from '../../lib/config';
import { logger } from '../../lib/logger';
import { repoRoot } from '../../lib/paths';
import { processRunning } from '../../scripts/process-state';
import { agentExecutionWorkflowId } from '../../temporal/contracts/agent-execution';
import { pipelineExecutionWorkflowId } from '../../temporal/contracts/pipeline-execution';
import { rankingJobDuration } from '../../lib/metrics';
import { rankingJobStartOptions } from '../../temporal/ranking-job';
import {
  reconcilerPauseUpdate,
  reconcilerResumeUpdate,
  reconcilerRunNowSignal,
  reconcilerSettingsSignal,
  reconcilerStateQuery,
} from '../../temporal/contracts/reconciler-loop';
import {
  ensureReconcilerLoop,
  LEGACY_RECONCILER_WORKFLOW_TYPES,
  RECONCILER_LOOPS,
  type ReconcilerLoop,
} from '../../temporal/reconciler-loops';
import { ensureIntervalSchedule } from '../../temporal/interval-schedules';
import { startAgentsWorker } from '../../workers/agents';
import type { QueueWorker } from '../../workers/queue-worker';
import { startRankingWorker } from '../../workers/ranking';
import type { RankingJobWorkflow } from '../../temporal/contracts/ranking-job';
import { sleeperPidIn } from '../support/agent-workspace';
import { promptsOf, startStandInModel, type StandInModel } from '../support/stand-in-model';
import { endedExecution, executionRecord, jsonCall } from '../support/json-api';
import { seedPersonIndex } from '../support/ranking';
import { createStandInAgent } from '../support/real-agents';
import { requireRoot } from '../support/root';
import { startTestServer, type TestServer } from '../support/server';
import { until } from '../support/waiting';

/**
 * The reconcilers (docs/agent-executions.md, "Reconciler"; docs/ranking-job.md): workflows are
 * terminated through the Temporal client as from the Web UI, and the tests only wait (bounded
 * polls) for the passes of the reconcilers' loop workflows (temporal/reconciler-loops.ts), read
 * through their `state` query; they never call the reconciler themselves. The agents are the
 * pinned Claude Code CLI against the stand-in model (docs/claude-code-cli.md): a long run is one
 * whose model has it run a long Bash command (`stand-in:sleep`).
 */

const CLAUDE_CLI = path.join(repoRoot, 'node_modules/.bin/claude');
const TERMINATED_ERROR = 'o workflow da execução terminou como TERMINATED sem finalizar o registro';
const SLOW_TASK = 'Take your time stand-in:sleep seconds=300';
const NOT_FOUND_ERROR = 'o workflow da execução não foi encontrado: nunca começou ou não existe mais';
// The passes run every second here (the default is a minute).
const testConfig = {
  ...config,
  reconciler: { intervalSeconds: 1 },
  orchestration: { ...config.orchestration, agentCommand: CLAUDE_CLI },
};

let server: TestServer;
let temporal: Client;
let model: StandInModel;
const workers: QueueWorker[] = [];
const agentPids: number[] = [];
// The agents' working directories, under the projects area (the runs create them as their pool users).
const workArea = path.join(config.orchestration.workdirRoots[0]!, `test-reconciler-${process.pid}-${Date.now()}`);

beforeAll(async () => {
  requireRoot('reconciler');
  model = await startStandInModel();
  model.recordClients();
  server = await startTestServer();
  temporal = server.resources.temporal.client;
  // Records left active by an interrupted earlier run would hold the slot.
  await server.resources.database.pool.query(
    "UPDATE executions SET status = 'error', finished_at = NOW(3), error = 'deixado por uma execução anterior dos testes' WHERE status IN ('queued', 'running')",
  );
  expect((await api('PUT', '/api/settings', { maxConcurrent: 1 })).status).toBe(200);
  await seedPersonIndex(100, 5);
  workers.push(await startAgentsWorker(testConfig, logger));
  workers.push(await startRankingWorker(testConfig, logger));
}, 120_000);

afterAll(async () => {
  // The loops stay (they are the service's), resumed and at the interval a worker of this configuration sends.
  for (const loop of Object.values(RECONCILER_LOOPS)) {
    const handle = temporal?.workflow.getHandle(loop.workflowId);
    await handle?.executeUpdate(reconcilerResumeUpdate).catch(() => undefined);
    await handle?.signal(reconcilerSettingsSignal, { intervalSeconds: config.reconciler.intervalSeconds }).catch(() => undefined);
  }
  for (const pid of agentPids) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await Promise.allSettled(workers.map((worker) => worker.stop()));
  await api('PUT', '/api/settings', { maxConcurrent: 2 }).catch(() => undefined);
  await server?.close();
  await model?.close();
  fs.rmSync(workArea, { recursive: true, force: true });
});

const api = (method: string, urlPath: string, body?: unknown) => jsonCall(server.url, method, urlPath, body);

/** An agent whose runs reach the stand-in (its address and key are the agent's secrets), working in its own directory. */
const createAgent = async (name: string): Promise<string> =>
  (await createStandInAgent({ serverUrl: server.url, model, workArea }, name, { systemPrompt: 'Be brief.', maxTurns: 7 })).id;

async function execute(agentId: string, task: string): Promise<string> {
  const answer = await api('POST', `/api/agents/${agentId}/execute`, { task });
  expect(answer).toMatchObject({ status: 202, body: { status: 'queued' } });
  return answer.body.executionId as string;
}

const record = (executionId: string) => executionRecord(server.url, executionId);
/** The record once final with its report written. */
const finished = (executionId: string, timeoutMs?: number) => endedExecution(server.url, executionId, timeoutMs);

/**
 * A long run's processes, once its tool runs: the CLI (as the stand-in saw it when it asked for
 * `task` from the run's working directory) and the shell of its Bash tool (the pid it wrote there).
 */
async function longRunProcesses(executionId: string, task: string): Promise<{ pid: number; shell: number }> {
  const { workingDirectory } = await record(executionId);
  const shell = await sleeperPidIn(workingDirectory);
  const request = model
    .messages()
    .filter((candidate) => promptsOf(candidate.body).at(-1) === task && candidate.client?.cwd === workingDirectory)
    .at(-1);
  expect(request).toBeDefined();
  const pid = request!.client!.pid;
  agentPids.push(pid, shell);
  expect(processRunning(pid)).toBe(true);
  expect(processRunning(shell)).toBe(true);
  return { pid, shell };
}

/** A long run of a new agent: running, its Bash tool sleeping; its processes. */
async function runningSlowAgent(name: string): Promise<{ agentId: string; executionId: string; pid: number; shell: number }> {
  const agentId = await createAgent(name);
  const executionId = await execute(agentId, SLOW_TASK);
  await until(
    'agent running',
    () => record(executionId),
    (r) => r.status === 'running',
    60_000,
  );
  // A leftover pid file of an earlier run would mislead: each agent has its own directory, new here.
  return { agentId, executionId, ...(await longRunProcesses(executionId, SLOW_TASK)) };
}

/** Terminates an execution's workflow as an operator would from the Temporal Web UI. */
async function terminateExecution(executionId: string): Promise<Date> {
  const handle = temporal.workflow.getHandle(agentExecutionWorkflowId(executionId));
  await handle.terminate('terminated by the test, as from the Web UI');
  const description = await handle.describe();
  expect(description.status.name).toBe('TERMINATED');
  return description.closeTime!;
}

const loopState = (loop: ReconcilerLoop) => temporal.workflow.getHandle(loop.workflowId).query(reconcilerStateQuery);

/** The result of a pass of a reconciler's loop that started after `since` and has finished (waits for it). */
async function passStartedAfter<T>(loop: ReconcilerLoop, since: Date): Promise<T> {
  const state = await until(
    `a ${loop.workflowId} pass after ${since.toISOString()}`,
    () => loopState(loop),
    ({ lastPass }) => lastPass !== null && new Date(lastPass.startedAt).getTime() > since.getTime(),
  );
  expect(state.lastPass!.error).toBeUndefined();
  return state.lastPass!.result as T;
}

describe('executions reconciler', () => {
  it('is one long-lived workflow of the configured interval, with a summary; no Schedule', async () => {
    const handle = temporal.workflow.getHandle(RECONCILER_LOOPS.executions.workflowId);
    const description = await handle.describe();
    expect(description).toMatchObject({ type: 'reconcileExecutionsLoopWorkflow', taskQueue: 'agents', status: { name: 'RUNNING' } });
    expect(await handle.query(reconcilerStateQuery)).toMatchObject({ intervalSeconds: 1, paused: false });
    // The summary is the first run's (continue-as-new carries none): the worker started this one, or an earlier run of the chain.
    const first = await temporal.workflow
      .getHandle(RECONCILER_LOOPS.executions.workflowId, description.raw.workflowExecutionInfo?.firstRunId || description.runId)
      .describe();
    expect(await first.staticSummary()).toMatch(/^Reconciler: ends agent executions whose workflow is gone, every \d+ s$/);
    await expect(temporal.schedule.getHandle(RECONCILER_LOOPS.executions.legacyScheduleId).describe()).rejects.toBeInstanceOf(
      ScheduleNotFoundError,
    );
  });

  it('ends a running execution whose workflow is terminated: agent killed, record failed, slot freed', async () => {
    const { executionId, pid, shell } = await runningSlowAgent('terminated');
    const quickAgent = await createAgent('after-terminated');
    await terminateExecution(executionId);
    // Limit 1: the next execution waits for the slot the terminated one still holds.
    const nextId = await execute(quickAgent, 'Next in line');

    // The run activity hears of the termination at its next heartbeat and ends the CLI; its tool's shell goes with its user's processes.
    await until(
      'agent process gone',
      async () => processRunning(pid),
      (alive) => !alive,
      15_000,
    );
    await until(
      'its tool gone',
      async () => processRunning(shell),
      (alive) => !alive,
      15_000,
    );

    const done = await finished(executionId);
    expect(done).toMatchObject({ status: 'error', error: TERMINATED_ERROR, reportFile: expect.any(String) });
    expect(done.endedAt).toEqual(expect.any(String));
    const notifications = (await api('GET', '/api/notifications?pageSize=100')).body.notifications as any[];
    expect(notifications.find((item) => item.executionId === executionId)).toMatchObject({
      kind: 'execution.error',
      title: 'Execução falhou',
      message: expect.stringContaining(`: ${TERMINATED_ERROR}`),
    });

    // The freed slot went to the execution queued behind it, which then ran to its end.
    const next = await finished(nextId);
    expect(next).toMatchObject({ status: 'completed', error: null });
    expect(new Date(next.startedAt).getTime()).toBeGreaterThanOrEqual(new Date(done.endedAt).getTime());

    // A record its own workflow finished is left alone by later passes.
    await passStartedAfter(RECONCILER_LOOPS.executions, new Date());
    expect(await record(nextId)).toMatchObject({ status: 'completed', error: null, endedAt: next.endedAt });
  });

  it('ends a queued execution whose workflow is terminated while it waits for the slot', async () => {
    const { agentId, executionId: runningId, pid } = await runningSlowAgent('holding-slot');
    const waitingAgent = await createAgent('waiting');
    const waitingId = await execute(waitingAgent, 'Wait for the slot');
    await until(
      'waiting for the slot',
      () => record(waitingId),
      (r) => r.status === 'queued',
    );
    await terminateExecution(waitingId);

    const done = await finished(waitingId);
    // It never ran: its startedAt is when it was queued (docs/executions.md, "The view").
    expect(done).toMatchObject({ status: 'error', error: TERMINATED_ERROR, startedAt: done.createdAt });
    // It never took the slot: the running execution is untouched.
    expect(await record(runningId)).toMatchObject({ status: 'running' });
    expect(processRunning(pid)).toBe(true);

    expect((await api('POST', `/api/agents/${agentId}/cancel/${runningId}`)).status).toBe(200);
    expect(await finished(runningId)).toMatchObject({ status: 'canceled' });
  });

  it('ends a record whose workflow does not exist once it is older than the grace; a young one waits', async () => {
    const { db } = server.resources.database;
    const base = {
      kind: 'agent' as const,
      agentId: null,
      agentName: 'Never started',
      source: 'manual' as const,
      task: 'Nothing',
      instructions: '',
      workingDirectory: workArea,
      model: 'sonnet',
    };
    const old = await createExecution(db, { ...base, createdAt: new Date(Date.now() - MISSING_WORKFLOW_GRACE_MS - 60_000) });
    const young = await createExecution(db, base);
    try {
      const done = await finished(old.id);
      expect(done).toMatchObject({ status: 'error', error: NOT_FOUND_ERROR });
      // A whole pass after that: the young record (its workflow may be starting) is still queued.
      await passStartedAfter(RECONCILER_LOOPS.executions, new Date(done.endedAt));
      expect(await record(young.id)).toMatchObject({ status: 'queued', endedAt: null });
    } finally {
      await server.resources.database.pool.query("UPDATE executions SET status = 'error', finished_at = NOW(3) WHERE id = ?", [young.id]);
    }
  });

  it('ends a pipeline run whose workflow is terminated mid-step: its step too, and a resume starts at that step', async () => {
    const quickAgent = await createAgent('pipeline-quick');
    const slowAgent = await createAgent('pipeline-slow');
    const created = await api('POST', '/api/pipelines', {
      name: `stranded ${Date.now()}`,
      description: '',
      // Its steps run here, not in the shared projects area.
      workingDirectory: path.join(workArea, `stranded-${Date.now()}`),
      steps: [
        { agentId: quickAgent, inputTemplate: '', description: '', requiresApproval: false },
        { agentId: slowAgent, inputTemplate: 'stand-in:sleep seconds=300 Slowly: {{input}}', description: '', requiresApproval: false },
      ],
    });
    expect(created.status).toBe(201);
    const started = await api('POST', `/api/pipelines/${created.body.id}/execute`, { input: 'Begin' });
    expect(started.status).toBe(202);
    const runId = started.body.executionId as string;
    const running = await until(
      'second step printing',
      () => record(runId),
      (r) => r.steps?.[1]?.status === 'running',
      60_000,
    );
    const stepId = running.steps[1].executionId as string;
    const { pid } = await longRunProcesses(stepId, (await record(stepId)).task);

    const handle = temporal.workflow.getHandle(pipelineExecutionWorkflowId(runId));
    await handle.terminate('terminated by the test, as from the Web UI');
    expect((await handle.describe()).status.name).toBe('TERMINATED');

    // The step's own workflow (a child) is terminated with it: its agent is killed, its record ended.
    await until(
      'agent process gone',
      async () => processRunning(pid),
      (alive) => !alive,
      15_000,
    );
    const run = await until(
      'pipeline run ended',
      () => record(runId),
      (r) => r.status !== 'running',
      60_000,
    );
    expect(run).toMatchObject({ status: 'error', error: TERMINATED_ERROR, failedAtStep: 1, endedAt: expect.any(String) });
    expect(await finished(stepId)).toMatchObject({ status: 'error', error: expect.stringContaining('TERMINATED') });

    // The resume starts at the step that was running, with the first step's answer as its input.
    const resumed = await api('POST', `/api/pipelines/resume/${runId}`);
    expect(resumed.status).toBe(202);
    const resumedRun = await until(
      'resumed run at step 2',
      () => record(resumed.body.executionId),
      (r) => r.steps?.some((step: any) => step.stepIndex === 1 && step.status === 'running'),
      60_000,
    );
    expect(resumedRun.steps.map((step: any) => step.stepIndex)).toEqual([0, 1]);
    expect((await record(resumedRun.steps[1].executionId)).task).toBe(`stand-in:sleep seconds=300 Slowly: ${run.steps[0].result}`);
    expect((await api('POST', `/api/pipelines/${created.body.id}/cancel`)).status).toBe(200);
    expect(
      await until(
        'resumed run canceled',
        () => record(resumed.body.executionId),
        (r) => r.status === 'canceled',
        60_000,
      ),
    ).toMatchObject({ status: 'canceled' });
  });

  it('ends a pipeline run terminated while it waits for an approval: a resume starts at the awaited step with the answer before it', async () => {
    const quickAgent = await createAgent('pipeline-gate');
    const created = await api('POST', '/api/pipelines', {
      name: `stranded gate ${Date.now()}`,
      description: '',
      workingDirectory: path.join(workArea, `stranded-gate-${Date.now()}`),
      steps: [
        { agentId: quickAgent, inputTemplate: '', description: '', requiresApproval: false },
        { agentId: quickAgent, inputTemplate: '', description: '', requiresApproval: true },
      ],
    });
    expect(created.status).toBe(201);
    const started = await api('POST', `/api/pipelines/${created.body.id}/execute`, { input: 'Begin' });
    const runId = started.body.executionId as string;
    const waiting = await until(
      'awaiting approval',
      () => record(runId),
      (r) => r.status === 'awaiting_approval',
      60_000,
    );
    await temporal.workflow.getHandle(pipelineExecutionWorkflowId(runId)).terminate('terminated by the test');

    const run = await until(
      'pipeline run ended',
      () => record(runId),
      (r) => r.status !== 'awaiting_approval',
      60_000,
    );
    expect(run).toMatchObject({ status: 'error', error: TERMINATED_ERROR, failedAtStep: 1, lastStepInput: waiting.steps[0].result });
    expect(run.steps.map((step: any) => step.status)).toEqual(['completed']);
  });

  it('ends a pipeline run record whose workflow does not exist once it is older than the grace', async () => {
    const { db } = server.resources.database;
    const old = await createExecution(db, {
      kind: 'pipeline',
      agentId: null,
      agentName: 'Never started',
      pipelineId: randomUUID(),
      source: 'manual',
      task: 'Nothing',
      instructions: '',
      workingDirectory: workArea,
      model: 'sonnet',
      createdAt: new Date(Date.now() - MISSING_WORKFLOW_GRACE_MS - 60_000),
    });
    const done = await until(
      'pipeline record ended',
      () => record(old.id),
      (r) => r.status !== 'queued',
      60_000,
    );
    expect(done).toMatchObject({ status: 'error', error: NOT_FOUND_ERROR, failedAtStep: 0 });
  });

  it('ends the record once MariaDB accepts it again when it refused it at first', async () => {
    const { executionId, pid } = await runningSlowAgent('refused');
    const pool = server.resources.database.pool;
    // MariaDB refuses every change of this record, as it would while down.
    await pool.query(
      format(
        `CREATE TRIGGER refuse_reconciler_test BEFORE UPDATE ON executions FOR EACH ROW
         BEGIN IF OLD.id = ? THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by the test'; END IF; END`,
        [executionId],
      ),
    );
    try {
      const closedAt = await terminateExecution(executionId);
      await until(
        'agent process gone',
        async () => processRunning(pid),
        (alive) => !alive,
        15_000,
      );
      // A pass after the grace tried to end it and could not.
      const pass = await passStartedAfter<ExecutionReconcilePass>(
        RECONCILER_LOOPS.executions,
        new Date(closedAt.getTime() + CLOSED_WORKFLOW_GRACE_MS),
      );
      expect(pass.failed).toBeGreaterThanOrEqual(1);
      expect(await record(executionId)).toMatchObject({ status: 'running', endedAt: null });
    } finally {
      await pool.query('DROP TRIGGER IF EXISTS refuse_reconciler_test');
    }
    expect(await finished(executionId)).toMatchObject({ status: 'error', error: TERMINATED_ERROR });
  });
});

describe('ranking runs reconciler', () => {
  it('a terminated ranking run is never shown running: the status says so at once, the record follows', async () => {
    const loop = temporal.workflow.getHandle(RECONCILER_LOOPS.rankingRuns.workflowId);
    const { pool } = server.resources.database;
    const failedJobs = async () =>
      (await rankingJobDuration.get()).values.find(
        (value) => value.metricName === 'ranking_job_duration_seconds_count' && value.labels.status === 'failed',
      )?.value ?? 0;
    const failedBefore = await failedJobs();
    const storedRun = async (runId: string) => {
      const [rows] = await pool.query('SELECT estado, finalizado_em, ultimo_erro FROM ranking_job_runs WHERE run_id = ?', [runId]);
      return (rows as Array<{ estado: string; finalizado_em: Date | null; ultimo_erro: string | null }>)[0] ?? null;
    };
    // Paused first (the update answers once no pass is in flight), so the answer before the reconciler's pass is seen; then let it run.
    expect(await loop.executeUpdate(reconcilerPauseUpdate)).toMatchObject({ paused: true, passRunning: false });
    let runId = '';
    try {
      // One person per batch, one batch at a time: the run lasts long enough to be terminated.
      const handle = await temporal.workflow.start<RankingJobWorkflow>(
        'rankingJobWorkflow',
        rankingJobStartOptions({ origem: 'manual', batchSize: 1, maxChildrenInFlight: 1 }),
      );
      runId = handle.firstExecutionRunId;
      await until(
        'run recorded',
        () => storedRun(runId),
        (run) => run?.estado === 'em_execucao',
      );
      expect((await api('GET', '/api/v1/ranking/status')).body).toMatchObject({
        em_execucao: true,
        estado: 'em_execucao',
        fonte: 'temporal',
      });

      await handle.terminate('terminated by the test, as from the Web UI');
      const before = (await api('GET', '/api/v1/ranking/status')).body;
      expect(before).toMatchObject({
        em_execucao: false,
        estado: 'falhou',
        ultimo_erro: 'processamento interrompido: o workflow terminou como TERMINATED sem registrar o fim',
        fonte: 'mysql',
      });
      expect(await storedRun(runId)).toMatchObject({ estado: 'em_execucao' });
    } finally {
      await loop.executeUpdate(reconcilerResumeUpdate);
    }

    const stored = await until(
      'run recorded as interrupted',
      () => storedRun(runId),
      (run) => run?.estado !== 'em_execucao',
    );
    expect(stored).toMatchObject({
      estado: 'falhou',
      finalizado_em: expect.any(Date),
      ultimo_erro: 'processamento interrompido: o workflow terminou como TERMINATED sem registrar o fim',
    });
    // Counted in ranking_job_duration_seconds as a failed job, as one that recorded its own end is.
    expect(await failedJobs()).toBe(failedBefore + 1);
    expect((await api('GET', '/api/v1/ranking/status')).body).toMatchObject({
      em_execucao: false,
      estado: 'falhou',
      finalizado_em: stored!.finalizado_em!.toISOString(),
      ultimo_erro: stored!.ultimo_erro,
    });
  });
});

describe('the reconcilers in the Web UI list', () => {
  const reconcilerTypes = [...Object.values(RECONCILER_LOOPS).map((loop) => loop.workflowType), ...LEGACY_RECONCILER_WORKFLOW_TYPES];
  const startedSince = (since: Date) =>
    `WorkflowType IN (${reconcilerTypes.map((type) => `'${type}'`).join(', ')}) AND StartTime >= '${since.toISOString()}'`;
  async function listedSince(since: Date): Promise<string[]> {
    const listed: string[] = [];
    for await (const execution of temporal.workflow.list({ query: startedSince(since) }))
      listed.push(`${execution.workflowId} ${execution.type} ${execution.status.name}`);
    return listed.sort();
  }

  it('an idle service adds one workflow per reconciler, not one per pass, while the passes go on ending records', async () => {
    // Terminated as from the Web UI: the workers see it within an interval and start each loop again.
    const terminated = new Map<string, string>();
    for (const loop of Object.values(RECONCILER_LOOPS)) {
      const handle = temporal.workflow.getHandle(loop.workflowId);
      terminated.set(loop.workflowId, (await handle.describe()).runId);
      await handle.terminate('terminated by the test, as from the Web UI');
    }
    const since = new Date();
    for (const loop of Object.values(RECONCILER_LOOPS)) {
      const restarted = await until(
        `${loop.workflowId} started again`,
        () => temporal.workflow.getHandle(loop.workflowId).describe(),
        (description) => description.status.name === 'RUNNING' && description.runId !== terminated.get(loop.workflowId),
        15_000,
      );
      expect(await restarted.staticSummary()).toBe(`Reconciler: ${loop.what}, every 1 s`);
    }
    // A record whose workflow never existed, older than the grace: a pass ends it.
    const { db } = server.resources.database;
    const orphan = await createExecution(db, {
      kind: 'agent',
      agentId: null,
      agentName: 'Never started',
      source: 'manual',
      task: 'Nothing',
      instructions: '',
      workingDirectory: workArea,
      model: 'sonnet',
      createdAt: new Date(Date.now() - MISSING_WORKFLOW_GRACE_MS - 60_000),
    });

    // Ten intervals of passes each (the loops started again count from 1): the Schedules of the previous version would have started 20 workflows.
    for (const loop of Object.values(RECONCILER_LOOPS)) {
      await until(
        `${loop.workflowId}: 10 passes`,
        () => loopState(loop),
        ({ lastPass }) => (lastPass?.number ?? 0) >= 10,
        30_000,
      );
    }
    expect(await finished(orphan.id)).toMatchObject({ status: 'error', error: NOT_FOUND_ERROR });

    // Visibility follows the server by a moment: wait for both, then look again a second later.
    await until(
      'both loops listed',
      () => listedSince(since),
      (listed) => listed.length >= 2,
      10_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await listedSince(since)).toEqual([
      'agent-executions-reconciler reconcileExecutionsLoopWorkflow RUNNING',
      'ranking-runs-reconciler reconcileRankingRunsLoopWorkflow RUNNING',
    ]);
    expect((await temporal.workflow.count(startedSince(since))).count).toBe(2);
  });

  it('a worker start deletes the previous version’s Schedules and reaches the running loop: no new run, even two at once', async () => {
    for (const loop of Object.values(RECONCILER_LOOPS)) {
      // The Schedule as the previous version made it: a pass workflow every interval.
      const legacyType = loop.taskQueue === 'agents' ? 'reconcileExecutionsWorkflow' : 'reconcileRankingRunsWorkflow';
      await ensureIntervalSchedule(
        temporal,
        { scheduleId: loop.legacyScheduleId, workflowType: legacyType, taskQueue: loop.taskQueue, description: 'the previous version' },
        60,
      );
      const running = (await temporal.workflow.getHandle(loop.workflowId).describe()).runId;

      // Two workers of the queue starting at once.
      const starts = await Promise.all([ensureReconcilerLoop(temporal, loop, 1), ensureReconcilerLoop(temporal, loop, 1)]);
      expect(starts.map((start) => start.runId)).toEqual([running, running]);
      expect(starts.some((start) => start.legacyScheduleDeleted)).toBe(true);
      await expect(temporal.schedule.getHandle(loop.legacyScheduleId).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);

      expect((await ensureReconcilerLoop(temporal, loop, 7)).runId).toBe(running);
      await until(
        `${loop.workflowId} at 7 s`,
        () => loopState(loop),
        (state) => state.intervalSeconds === 7,
        10_000,
      );
      expect((await ensureReconcilerLoop(temporal, loop, 1)).runId).toBe(running);
      await until(
        `${loop.workflowId} at 1 s`,
        () => loopState(loop),
        (state) => state.intervalSeconds === 1,
        10_000,
      );
      expect((await temporal.workflow.getHandle(loop.workflowId).describe()).runId).toBe(running);
    }
  });

  it('runs a pass on demand, paused or not', async () => {
    const loop = RECONCILER_LOOPS.rankingRuns;
    const handle = temporal.workflow.getHandle(loop.workflowId);
    const paused = await handle.executeUpdate(reconcilerPauseUpdate);
    try {
      // Paused: no timed pass for three intervals.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect((await loopState(loop)).lastPass?.number).toBe(paused.lastPass?.number);
      const asked = new Date();
      await handle.signal(reconcilerRunNowSignal);
      const state = await until(
        'the pass asked for',
        () => loopState(loop),
        ({ lastPass }) => (lastPass?.number ?? 0) > (paused.lastPass?.number ?? 0),
        10_000,
      );
      expect(state).toMatchObject({
        paused: true,
        lastPass: { number: (paused.lastPass?.number ?? 0) + 1, result: { checked: expect.any(Number), interrupted: [] } },
      });
      expect(new Date(state.lastPass!.startedAt).getTime()).toBeGreaterThanOrEqual(asked.getTime() - 1_000);
    } finally {
      await handle.executeUpdate(reconcilerResumeUpdate);
    }
  });
});
