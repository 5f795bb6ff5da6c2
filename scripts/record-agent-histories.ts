import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { createDatabase } from '../db';
import { putSecret, secretContext } from '../db/agent-secrets-store';
import { registerAgentHost } from '../db/agent-hosts-store';
import { createAgent, deleteAgent } from '../db/agents-store';
import { createExecution } from '../db/executions-store';
import { config } from '../lib/config';
import { logger } from '../lib/logger';
import { saveHistoryFixture } from './history-fixtures';
import { startBlackHoleWorker } from '../test/fixtures/lost-delivery';
import { repoRoot } from '../lib/paths';
import { sealSecret, secretsKeyFromHex } from '../lib/secret-box';
import { startAgentExecution } from '../temporal/agent-execution';
import { agentsHostQueue } from '../temporal/task-queues';
import { startAgentsWorker } from '../workers/agents';
import { connectTemporal } from '../temporal/connection';

/**
 * Records the histories of the agent execution workflow (a completed run, a failed start-up of the
 * agent, a cancelled run, a failed run retried once, a completed run delegated to another agent, a
 * run whose first task never reached a worker and was scheduled again, a run stopped at its time limit)
 * into test/fixtures/histories/ for the replay test, with the stand-in CLI as the agent. Run with the
 * stack up and an otherwise idle `agents` queue: `npm run record-agent-histories [-- name ...]`.
 * Names (`completed`, `failed`, `cancelled`, `retried`, `delegated`, `redelivered`, `timed-out`) record only those: histories
 * recorded before a patch stay as they were, so the replay test keeps proving they still replay. The
 * `searchable-*` ones are a retried run and a delegation recorded after run-search-attributes (the
 * RunStatus upserts: queued, running, retrying, error; the delegated child started with its labels).
 */
const RECORDINGS = [
  'completed',
  'failed',
  'cancelled',
  'retried',
  'delegated',
  'redelivered',
  'timed-out',
  'searchable-retried',
  'searchable-delegated',
] as const;
const fakeAgent = path.join(repoRoot, 'test', 'fixtures', 'fake-agent', 'fake-agent.js');

async function main(): Promise<void> {
  const connection = await connectTemporal(config.temporal);
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const database = createDatabase(config.mysql);
  const wanted = new Set(process.argv.length > 2 ? process.argv.slice(2) : RECORDINGS);
  const unknown = [...wanted].filter((name) => !(RECORDINGS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`unknown recordings ${unknown.join(', ')}: choose from ${RECORDINGS.join(', ')}`);
  const orchestration = { ...config.orchestration, agentCommand: fakeAgent, followUps: { retryDelayMs: 1_000, delegationDepthMax: 1 } };
  const worker = await startAgentsWorker({ ...config, orchestration }, logger);
  // Under the first allowed root (a run elsewhere is refused: AGENT_WORKDIR_ROOTS), created by the run
  // itself so that it belongs to the agent's user.
  const workDir = path.join(config.orchestration.workdirRoots[0]!, `record-agent-histories-${randomUUID()}`);
  const key = secretsKeyFromHex(config.orchestration.secretsKey);
  type PanelFields = { retryOnFailure?: boolean; maxRetries?: number; delegateTo?: string; timeoutMs?: number };
  const agentWith = async (label: string, knobs: Record<string, string>, panelFields: PanelFields = {}) => {
    const agent = await createAgent(
      database.db,
      {
        ...panelFields,
        name: `history recorder ${label} ${Date.now()}`,
        description: '',
        model: null,
        instructions: 'Be brief.',
        workingDirectory: workDir,
        permissionMode: 'bypassPermissions',
        maxTurns: 5,
      },
      config.orchestration.limits,
    );
    // The stand-in's knobs reach it as secrets (the agent's environment is filtered).
    for (const [name, value] of Object.entries(knobs))
      await putSecret(database.db, agent.id, name, sealSecret(key, value, secretContext(agent.id, name)));
    return agent;
  };
  const agents = {
    quick: await agentWith('quick', {}),
    failing: await agentWith('failing', { FAKE_AGENT_FAIL: '1', FAKE_AGENT_CHUNKS: '1' }),
    slow: await agentWith('slow', { FAKE_AGENT_CHUNKS: '10000', FAKE_AGENT_DELAY_MS: '50' }),
    retrying: await agentWith('retrying', { FAKE_AGENT_FAIL: '1', FAKE_AGENT_CHUNKS: '1' }, { retryOnFailure: true, maxRetries: 1 }),
    limited: await agentWith('limited', { FAKE_AGENT_CHUNKS: '10000', FAKE_AGENT_DELAY_MS: '50' }, { timeoutMs: 2_000 }),
  };
  const delegating = await agentWith('delegating', {}, { delegateTo: agents.quick.id });
  const start = async (agent: { id: string; name: string }, task: string) => {
    const execution = await createExecution(database.db, {
      id: randomUUID(),
      kind: 'agent',
      agentId: agent.id,
      agentName: agent.name,
      source: 'manual',
      task,
      instructions: 'Be brief.',
      workingDirectory: workDir,
      model: 'sonnet',
    });
    // Labelled as the API starts it (services/executions/launch.ts): search attributes and summary.
    const handle = await startAgentExecution(client, { executionId: execution.id }, execution);
    return { handle, executionId: execution.id };
  };
  try {
    if (wanted.has('completed')) {
      const completed = await start(agents.quick, 'Say hello');
      await completed.handle.result();
      await saveHistoryFixture('agent-execution-completed', completed.handle);
    }
    if (wanted.has('failed')) {
      const failed = await start(agents.failing, 'Fail');
      await failed.handle.result();
      await saveHistoryFixture('agent-execution-failed', failed.handle);
    }
    if (wanted.has('retried')) {
      const retried = await start(agents.retrying, 'Fail twice');
      await retried.handle.result();
      await saveHistoryFixture('agent-execution-retried', retried.handle);
    }
    if (wanted.has('delegated')) {
      const delegated = await start(delegating, 'Say hello, then hand over');
      await delegated.handle.result();
      // The workflow starts the delegated run as its child (agent-delegation-child). The history of the
      // earlier path, where an activity started it, is agent-execution-delegated.json: kept, never re-recorded.
      await saveHistoryFixture('agent-execution-delegated-child', delegated.handle);
    }
    if (wanted.has('timed-out')) {
      const timedOut = await start(agents.limited, 'Run past the limit');
      const result = await timedOut.handle.result();
      if (result.status !== 'error') throw new Error(`the limited run ended ${result.status}`);
      await saveHistoryFixture('agent-execution-timed-out', timedOut.handle);
    }
    if (wanted.has('searchable-retried')) {
      const retried = await start(agents.retrying, 'Fail twice');
      await retried.handle.result();
      await saveHistoryFixture('agent-execution-searchable-retried', retried.handle);
    }
    if (wanted.has('searchable-delegated')) {
      const delegated = await start(delegating, 'Say hello, then hand over');
      await delegated.handle.result();
      await saveHistoryFixture('agent-execution-searchable-delegated', delegated.handle);
    }
    if (wanted.has('cancelled')) await recordCancelled();
    if (wanted.has('redelivered')) await recordRedelivered();
  } finally {
    for (const agent of [...Object.values(agents), delegating]) await deleteAgent(database.db, agent.id);
    await worker.stop();
    await database.pool.end();
    await connection.close();
    await fs.rm(workDir, { recursive: true, force: true });
  }

  /**
   * A run pinned to a host whose only worker takes the task and is killed before running it (as
   * test/integration/lost-delivery.test.ts does): the task times out without a heartbeat and the
   * workflow schedules it again, on the host's real worker started after.
   */
  async function recordRedelivered(): Promise<void> {
    const host = `record-lost-${process.pid}`;
    const root = path.join(workDir, 'lost-host');
    await registerAgentHost(database.db, { name: host, roots: [root] });
    const blackHole = await startBlackHoleWorker(config.temporal, agentsHostQueue(host));
    let hostWorker: Awaited<ReturnType<typeof startAgentsWorker>> | undefined;
    try {
      const execution = await createExecution(database.db, {
        id: randomUUID(),
        kind: 'agent',
        agentId: agents.quick.id,
        agentName: agents.quick.name,
        source: 'manual',
        task: 'Say hello once delivered',
        instructions: '',
        workingDirectory: path.join(root, 'project'),
        model: 'sonnet',
      });
      const handle = await startAgentExecution(client, { executionId: execution.id });
      await blackHole.received(execution.id);
      blackHole.kill();
      hostWorker = await startAgentsWorker({ ...config, orchestration: { ...orchestration, host, workdirRoots: [root] } }, logger);
      const result = await handle.result();
      if (result.status !== 'completed') throw new Error(`the redelivered run ended ${result.status}: ${result.error}`);
      await saveHistoryFixture('agent-execution-redelivered', handle);
    } finally {
      blackHole.kill();
      await hostWorker?.stop();
    }
  }

  async function recordCancelled(): Promise<void> {
    const slow = await start(agents.slow, 'Cancel me');
    for (let attempt = 0; attempt < 500; attempt += 1) {
      const [rows] = await database.pool.query('SELECT output_seq AS seq FROM executions WHERE id = ?', [slow.executionId]);
      if (Number((rows as Array<{ seq: number }>)[0]?.seq) > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await slow.handle.cancel();
    await slow.handle.result().catch(() => undefined);
    await saveHistoryFixture('agent-execution-cancelled', slow.handle);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`record-agent-histories: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
