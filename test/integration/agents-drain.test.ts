import fs from 'node:fs';
import path from 'node:path';
import type { RowDataPacket } from 'mysql2/promise';
import { WORKER_STOPPED_ERROR } from '../../domain/execution-errors';
import { config as baseConfig } from '../../lib/config';
import { repoRoot } from '../../lib/paths';
import { SHUTTING_DOWN_REASON } from '../../lib/readiness';
import { processRunning } from '../../scripts/process-state';
import { sleeperPidIn } from '../support/agent-workspace';
import { endedExecution, executionRecord, jsonCall } from '../support/json-api';
import { unusedPort } from '../support/ports';
import { startServiceProcess, waitForLog, type ServiceProcess } from '../support/processes';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import { until } from '../support/waiting';

/**
 * An agents worker's drain (docs/probes-and-drains.md, "Agents worker"), with the real CLI against the
 * stand-in model: an agents worker in a process of its own (main.ts, PROCESS_ROLES=agents-worker) with
 * a host of its own, whose root holds the runs' directory, beside the suite's in-process agents worker
 * (the default host, whose root holds that one), which serves the shared queues and takes what the
 * draining host leaves. A run's end is the test's to choose: its Bash tool sleeps until the test ends
 * its `sleep`, so no duration decides anything.
 */

const CLAUDE_CLI = path.join(repoRoot, 'node_modules/.bin/claude');

let agents: RealAgents;
let root: string;
const suffix = `${process.pid}-${Date.now()}`;
const children: ServiceProcess[] = [];

beforeAll(async () => {
  agents = await startRealAgents({ name: 'agents-drain', maxConcurrent: 4 });
  root = path.join(agents.workArea, 'drained-host');
}, 90_000);

afterAll(async () => {
  for (const child of children) child.child.kill('SIGKILL');
  await agents?.close();
});

const call = (method: string, route: string, body?: unknown) => jsonCall(agents.server.url, method, route, body);
const record = (id: string) => executionRecord(agents.server.url, id);

/** An agents worker alone, of host `host` holding `root`, with this drain; resolves once its /readyz says 200. */
async function startDrainingWorker(host: string, drainMs: number): Promise<{ process: ServiceProcess; probes: string }> {
  const port = await unusedPort();
  const child = startServiceProcess({
    PROCESS_ROLES: 'agents-worker',
    AGENT_COMMAND: CLAUDE_CLI,
    AGENT_HOST: host,
    AGENT_WORKDIR_ROOTS: root,
    AGENT_DRAIN_TIMEOUT_MS: String(drainMs),
    METRICS_PORT: String(port),
  });
  children.push(child);
  const probes = `http://127.0.0.1:${port}`;
  await until(
    `the agents worker of ${host} is ready`,
    async () => {
      if (child.child.exitCode !== null) throw new Error(`it exited:\n${child.output()}`);
      return (await fetch(`${probes}/readyz`).catch(() => null))?.status;
    },
    (status) => status === 200,
    90_000,
  );
  return { process: child, probes };
}

async function execute(agentId: string, task: string): Promise<string> {
  const answer = await call('POST', `/api/agents/${agentId}/execute`, { task });
  expect(answer.status).toBe(202);
  return answer.body.executionId as string;
}

/** The `sleep` a stand-in:sleep tool call runs, once its shell wrote its pid: ending it ends the tool, and the run goes on. */
async function sleepOf(workingDirectory: string): Promise<number> {
  const shell = await sleeperPidIn(workingDirectory);
  const children = await until(
    'the shell runs its sleep',
    async () => fs.readFileSync(`/proc/${shell}/task/${shell}/children`, 'utf8').trim(),
    (text) => text !== '',
    10_000,
  );
  return Number(children.split(/\s+/)[0]);
}

async function hostRow(host: string): Promise<{ draining: number }> {
  const [rows] = await agents.server.resources.database.pool.query<RowDataPacket[]>('SELECT draining FROM agent_hosts WHERE name = ?', [
    host,
  ]);
  return rows[0] as { draining: number };
}

const logged = (child: ServiceProcess, msg: string) =>
  child
    .output()
    .split('\n')
    .filter((line) => line.includes(`"msg":"${msg}"`))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('an agents worker given SIGTERM while a run is running', () => {
  const host = `drain-${suffix}`;

  it('lets the run finish (completed, on its host) while another worker takes the new runs; then exits 0', async () => {
    const { process: worker, probes } = await startDrainingWorker(host, 120_000);
    const workingDirectory = path.join(root, 'longo');
    const agent = await agents.standInAgent('drenado', { workingDirectory, permissionMode: 'bypassPermissions' });
    const id = await execute(agent.id, 'Drained stand-in:sleep seconds=300');
    const sleep = await sleepOf(workingDirectory);
    expect(await record(id)).toMatchObject({ status: 'running', host });

    worker.child.kill('SIGTERM');

    // Unready at once, alive all along, and said to be draining in the hosts' registry.
    const unready = await until(
      'its /readyz answers 503',
      () => fetch(`${probes}/readyz`),
      (answer) => answer.status === 503,
      10_000,
    );
    expect(await unready.json()).toEqual({ status: 'unavailable', checks: {}, reasons: [SHUTTING_DOWN_REASON] });
    expect((await fetch(`${probes}/livez`)).status).toBe(200);
    await until(
      'the host marked draining',
      () => hostRow(host),
      (row) => row.draining === 1,
      10_000,
    );

    // A new run of the same directory goes to the other host, which holds it too, and completes there.
    const other = await execute(agent.id, 'Meanwhile stand-in:text');
    expect(await endedExecution(agents.server.url, other, 120_000)).toMatchObject({
      status: 'completed',
      host: baseConfig.orchestration.host,
    });
    expect(await record(id)).toMatchObject({ status: 'running', host });
    expect(worker.child.exitCode).toBeNull();

    // Its tool ends: the agent answers, the run completes where it ran, and the worker then exits.
    process.kill(sleep, 'SIGTERM');
    expect(await endedExecution(agents.server.url, id, 120_000)).toMatchObject({
      status: 'completed',
      error: null,
      result: 'Slept.',
      host,
    });
    expect(await worker.exited).toBe(0);
    expect(logged(worker, 'agents drain done')).toEqual([expect.objectContaining({ stopped: 0 })]);
    expect(logged(worker, 'shutdown complete')).toHaveLength(1);
  }, 300_000);

  it('ends a run that outlasts a shorter drain with the worker-stopped error, its agent killed', async () => {
    const { process: worker } = await startDrainingWorker(host, 1_000);
    const workingDirectory = path.join(root, 'cortado');
    const agent = await agents.standInAgent('cortado', { workingDirectory, permissionMode: 'bypassPermissions' });
    const id = await execute(agent.id, 'Cut stand-in:sleep seconds=300');
    const sleep = await sleepOf(workingDirectory);
    expect(await record(id)).toMatchObject({ status: 'running', host });

    worker.child.kill('SIGTERM');

    expect(await endedExecution(agents.server.url, id, 120_000)).toMatchObject({ status: 'error', error: WORKER_STOPPED_ERROR, host });
    expect(await worker.exited).toBe(0);
    expect(logged(worker, 'agents drain timed out: the runs still going were stopped')).toEqual([expect.objectContaining({ stopped: 1 })]);
    await until(
      'its tool gone',
      async () => processRunning(sleep),
      (alive) => !alive,
      10_000,
    );
  }, 300_000);

  it('ends its drain at a second SIGTERM (a person pressing Ctrl-C twice): the run is stopped, the worker exits 0', async () => {
    const { process: worker } = await startDrainingWorker(host, 120_000);
    const workingDirectory = path.join(root, 'impaciente');
    const agent = await agents.standInAgent('impaciente', { workingDirectory, permissionMode: 'bypassPermissions' });
    const id = await execute(agent.id, 'Impatient stand-in:sleep seconds=300');
    await sleepOf(workingDirectory);

    worker.child.kill('SIGTERM');
    await waitForLog(worker, 'agents worker draining: no new task, running runs go on');
    expect(await record(id)).toMatchObject({ status: 'running', host });
    worker.child.kill('SIGTERM');

    expect(await endedExecution(agents.server.url, id, 120_000)).toMatchObject({ status: 'error', error: WORKER_STOPPED_ERROR, host });
    expect(await worker.exited).toBe(0);
    expect(logged(worker, 'second signal: the drains end now')).toHaveLength(1);
    expect(logged(worker, 'agents drain timed out: the runs still going were stopped')).toEqual([expect.objectContaining({ stopped: 1 })]);
  }, 300_000);
});
