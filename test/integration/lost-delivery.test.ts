import path from 'node:path';
import { config as baseConfig } from '../../lib/config';
import { logger } from '../../lib/logger';
import { repoRoot } from '../../lib/paths';
import { registerAgentHost } from '../../db/agent-hosts-store';
import { claimAgentStart } from '../../db/executions-store';
import { WORKER_LOST_ERROR } from '../../domain/execution-errors';
import { agentsHostQueue } from '../../temporal/task-queues';
import { agentExecutionWorkflowId } from '../../temporal/contracts/agent-execution';
import { startAgentsWorker } from '../../workers/agents';
import type { QueueWorker } from '../../workers/queue-worker';
import { startBlackHoleWorker, type BlackHoleWorker } from '../fixtures/lost-delivery';
import { STAND_IN_TEXT } from '../support/stand-in-model';
import { jsonCall } from '../support/json-api';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import { until } from '../support/waiting';

/**
 * A run task lost on its way to a worker (docs/agent-executions.md, "A run lost on its way to the
 * worker"): Temporal marks the task started when it hands it to a poll, and when the worker never gets
 * it, the run activity times out on its heartbeat without having sent one. Under load on this machine
 * (npm run bench:live-output) that happened to 1-4 runs in 100; each was failed as "worker stopped".
 * Here a worker of the run's host takes the task and never runs it (a process killed at once), so the
 * first delivery is lost for certain; the workflow must schedule the run again, and the host's real
 * worker, started after, runs it to the end with the real CLI.
 */

const CLAUDE_CLI = path.join(repoRoot, 'node_modules/.bin/claude');
const FINAL = ['completed', 'error', 'canceled'];

describe('a run whose task never reached a worker', () => {
  const host = `lost-${process.pid}-${Date.now()}`;
  let agents: RealAgents;
  let hostWorker: QueueWorker | undefined;
  let blackHole: BlackHoleWorker | undefined;
  const more: Array<{ stop(): Promise<void> } | { kill(): void }> = [];

  beforeAll(async () => {
    agents = await startRealAgents({ name: 'lost-delivery', maxConcurrent: 2 });
  }, 90_000);

  afterAll(async () => {
    blackHole?.kill();
    await hostWorker?.stop();
    for (const part of more) await ('kill' in part ? part.kill() : part.stop());
    await agents?.close();
  });

  const call = (method: string, route: string, body?: unknown) => jsonCall(agents.server.url, method, route, body);

  it('is scheduled again and completes: no "worker stopped" while the worker is alive', async () => {
    // The host that holds the agent's directory (its root is deeper than the main worker's): runs go to its queue.
    const root = path.join(agents.workArea, 'host-root');
    await registerAgentHost(agents.server.resources.database.db, { name: host, roots: [root] });
    const agent = await agents.standInAgent('lost', { workingDirectory: path.join(root, 'project') });

    blackHole = await startBlackHoleWorker(baseConfig.temporal, agentsHostQueue(host));

    const started = await call('POST', `/api/agents/${agent.id}/execute`, { task: 'Say hello stand-in:text' });
    expect(started.status).toBe(202);
    const { executionId } = started.body;
    await blackHole.received(executionId);
    blackHole.kill();
    // Only now does a real worker serve the host: the second delivery can only reach it.
    hostWorker = await startAgentsWorker(
      { ...baseConfig, orchestration: { ...baseConfig.orchestration, host, workdirRoots: [root], agentCommand: CLAUDE_CLI } },
      logger,
    );

    const running = await call('GET', `/api/executions/history/${executionId}`);
    expect(running.body).toMatchObject({ status: 'running', output: '' });
    const done = await until(
      'the run ends',
      async () => (await call('GET', `/api/executions/history/${executionId}`)).body,
      (view) => FINAL.includes(view.status),
      120_000,
    );
    expect(done).toMatchObject({ status: 'completed', error: null });
    expect(done.output).toContain(STAND_IN_TEXT);

    // The history says what happened: the first run task timed out on its heartbeat, with none sent, and a second ran.
    const history = await agents.server.resources.temporal.client.workflow.getHandle(agentExecutionWorkflowId(executionId)).fetchHistory();
    const runs = (history.events ?? []).filter(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'runAgentExecution',
    );
    expect(runs).toHaveLength(2);
    const timedOut = (history.events ?? []).filter((event) => event.activityTaskTimedOutEventAttributes);
    expect(timedOut).toHaveLength(1);
    expect(timedOut[0]!.activityTaskTimedOutEventAttributes!.failure?.timeoutFailureInfo?.lastHeartbeatDetails ?? null).toBeNull();
  }, 180_000);

  it('starts no second agent when an earlier delivery already started it (its worker died before its heartbeat said so)', async () => {
    // A second host, so the first test's worker does not take this run. Heartbeats are throttled: a worker
    // killed just after the agent started can leave a timeout without details, which the workflow reads as
    // a lost delivery. The record's claim (set before the agent starts) is what the next delivery finds.
    const secondHost = `${host}-claimed`;
    const root = path.join(agents.workArea, 'claimed-root');
    const { db } = agents.server.resources.database;
    await registerAgentHost(db, { name: secondHost, roots: [root] });
    const agent = await agents.standInAgent('claimed', { workingDirectory: path.join(root, 'project') });
    const lost = await startBlackHoleWorker(baseConfig.temporal, agentsHostQueue(secondHost));
    more.push(lost);

    const tag = `claimed-${Date.now()}`;
    const started = await call('POST', `/api/agents/${agent.id}/execute`, { task: `Say hello stand-in:text ${tag}` });
    expect(started.status).toBe(202);
    const { executionId } = started.body;
    await lost.received(executionId);
    // What the dead delivery did just before it started the agent.
    await expect(claimAgentStart(db, executionId, 1)).resolves.toBe(true);
    lost.kill();
    more.push(
      await startAgentsWorker(
        { ...baseConfig, orchestration: { ...baseConfig.orchestration, host: secondHost, workdirRoots: [root], agentCommand: CLAUDE_CLI } },
        logger,
      ),
    );

    const done = await until(
      'the run ends',
      async () => (await call('GET', `/api/executions/history/${executionId}`)).body,
      (view) => FINAL.includes(view.status),
      120_000,
    );
    expect(done).toMatchObject({ status: 'error', error: WORKER_LOST_ERROR });
    // No agent process of this run asked the model anything: the second delivery started none.
    expect(agents.model.messages().filter((request) => JSON.stringify(request.body).includes(tag))).toHaveLength(0);
    const history = await agents.server.resources.temporal.client.workflow.getHandle(agentExecutionWorkflowId(executionId)).fetchHistory();
    const runs = (history.events ?? []).filter(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'runAgentExecution',
    );
    expect(runs).toHaveLength(2);
  }, 180_000);
});

describe('claimAgentStart', () => {
  let agents: RealAgents;
  beforeAll(async () => {
    agents = await startRealAgents({ name: 'claim-start', maxConcurrent: 1 });
  }, 90_000);
  afterAll(async () => agents?.close());

  it('lets one delivery start each attempt, and the next attempt start again', async () => {
    const { db } = agents.server.resources.database;
    const agent = await agents.standInAgent('claim');
    const started = await jsonCall(agents.server.url, 'POST', `/api/agents/${agent.id}/execute`, { task: 'Say hello stand-in:text' });
    expect(started.status).toBe(202);
    const { executionId } = started.body;
    await until(
      'the run ends',
      async () => (await jsonCall(agents.server.url, 'GET', `/api/executions/history/${executionId}`)).body,
      (view) => FINAL.includes(view.status),
      120_000,
    );
    // The run itself claimed attempt 1 before its agent started.
    await expect(claimAgentStart(db, executionId, 1)).resolves.toBe(false);
    await expect(claimAgentStart(db, executionId, 2)).resolves.toBe(true);
    await expect(claimAgentStart(db, executionId, 2)).resolves.toBe(false);
    await expect(claimAgentStart(db, executionId, 1)).resolves.toBe(false);
    await expect(claimAgentStart(db, 'no-such-record', 1)).resolves.toBe(false);
  }, 180_000);
});
