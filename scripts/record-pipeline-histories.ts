import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, NamespaceNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { pipelineCreateBody } from '../api/orchestration/pipelines-input';
import { createDatabase } from '../db';
import { putSecret, secretContext } from '../db/agent-secrets-store';
import { createAgent, deleteAgent, updateAgent } from '../db/agents-store';
import { AGENT_CHANGELOG } from '../domain/agent-changelog';
import { getExecution } from '../db/executions-store';
import type { ExecutionStatus } from '../domain/execution-status';
import { migrateDatabase } from '../db/migrate';
import { agentIsolation } from '../lib/agent-isolation';
import { config, type Config } from '../lib/config';
import { logger } from '../lib/logger';
import { repoRoot } from '../lib/paths';
import { closeRedis, createRedis } from '../lib/redis';
import { sealSecret, secretsKeyFromHex } from '../lib/secret-box';
import type { ExecutionDeps } from '../services/executions/deps';
import {
  cancelPipelineRuns,
  createPipeline,
  decideApproval,
  deletePipeline,
  executePipeline,
  resumePipelineRun,
} from '../services/pipelines';
import { ensureNamespace } from '../temporal/namespace';
import { pipelineExecutionWorkflowId } from '../temporal/contracts/pipeline-execution';
import { bareRepository, gitIn } from '../test/support/git-repos';
import { startAgentsWorker } from '../workers/agents';
import type { PipelineExecutionResult } from '../temporal/contracts/pipeline-execution';
import { saveHistoryFixture } from './history-fixtures';
import { connectTemporal } from '../temporal/connection';

/**
 * Records the histories of the pipeline workflow (workflows/pipelines/execution.ts) into
 * test/fixtures/histories/pipeline-execution-<name>.json for the replay test: a 2-step pipeline whose
 * step 2 waits for an approval, approved (`approved`), rejected (`rejected`) or left to time out
 * (`approval-timeout`, 1 s: the least the API allows); a failing step 2 (`failed`) and the resume of
 * that run from it once the agent is fixed (`resumed`); a run cancelled while its step runs
 * (`cancelled`); a run in a bare repository made here, committed and pushed after its last step
 * (`repository`); a run whose step's agent is past its daily budget, paused, then approved past it
 * (`budget-approved`). Runs start through the use cases the HTTP routes call (services/pipelines), the steps
 * run the stand-in CLI (test/fixtures/fake-agent) on an agents worker started here. It works in its own
 * database, namespace and Redis prefix, migrated and registered first:
 * `npm run record-pipeline-histories [-- name ...]` with the stack up. Names record only those (`resumed`
 * runs its failed run again, unsaved): histories recorded before a patch stay as they were, so the
 * replay test keeps proving they still replay. `searchable-approved` and `searchable-cancelled` are the
 * approved and cancelled runs recorded after run-search-attributes (RunStatus upserts, step summaries).
 */
const RECORDINGS = [
  'approved',
  'rejected',
  'approval-timeout',
  'failed',
  'resumed',
  'cancelled',
  'repository',
  'budget-approved',
  'searchable-approved',
  'searchable-cancelled',
] as const;
type Recording = (typeof RECORDINGS)[number];
const fakeAgent = path.join(repoRoot, 'test', 'fixtures', 'fake-agent', 'fake-agent.js');
const ACTIVE: readonly ExecutionStatus[] = ['queued', 'running', 'retrying', 'awaiting_approval'];

async function main(): Promise<void> {
  const wanted = new Set<string>(process.argv.length > 2 ? process.argv.slice(2) : RECORDINGS);
  const unknown = [...wanted].filter((name) => !(RECORDINGS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`unknown recordings ${unknown.join(', ')}: choose from ${RECORDINGS.join(', ')}`);
  const wants = (name: Recording) => wanted.has(name);

  await migrateDatabase(config.mysql);
  await ensureNamespace(config.temporal, config.temporal.namespace);

  const connection = await connectTemporal(config.temporal);
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const database = createDatabase(config.mysql);
  const redis = createRedis(config.redis, 'record-pipeline-histories');
  // A bare repository of its own (docs/repositories.md), readable by the agents' users (they clone the mirror).
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'record-pipeline-histories-'));
  const reposDir = path.join(scratch, 'repos');
  const repoName = `record-pipeline-${randomUUID().slice(0, 8)}`;
  const repositories: Config['orchestration']['repositories'] = {
    dir: reposDir,
    remotes: [],
    credentials: null,
    mirrorsDir: path.join(scratch, 'mirrors'),
    publishDir: null,
  };
  const orchestration = { ...config.orchestration, agentCommand: fakeAgent, repositories };
  const projectsRoot = orchestration.workdirRoots[0]!;
  // Under the first allowed root, created by the run itself so that it belongs to the agent's user.
  const workDir = path.join(projectsRoot, `record-pipeline-histories-${randomUUID()}`);
  const workingCopy = path.join(projectsRoot, repoName);

  // What the HTTP routes give the use cases (services/executions/deps.ts, executionDepsOf).
  const deps: ExecutionDeps = { db: database.db, temporal: client, redis, logger, workdirRoots: orchestration.workdirRoots, repositories };
  const key = secretsKeyFromHex(config.orchestration.secretsKey);
  const setKnobs = async (agentId: string, knobs: Record<string, string>) => {
    // The stand-in's knobs reach it as secrets (the agent's environment is filtered).
    for (const [name, value] of Object.entries(knobs))
      await putSecret(database.db, agentId, name, sealSecret(key, value, secretContext(agentId, name)));
  };
  const agentIds: string[] = [];
  const pipelineIds: string[] = [];
  const agentWith = async (label: string, knobs: Record<string, string>) => {
    const agent = await createAgent(
      database.db,
      {
        name: `pipeline history recorder ${label} ${Date.now()}`,
        description: '',
        model: null,
        instructions: 'Be brief.',
        workingDirectory: '',
        permissionMode: 'bypassPermissions',
        maxTurns: 5,
      },
      config.orchestration.limits,
    );
    agentIds.push(agent.id);
    await setKnobs(agent.id, knobs);
    return agent;
  };
  /** A pipeline as POST /api/pipelines takes it (its request schema checks the bounds), stored by the route's use case. */
  const pipelineOf = async (
    label: string,
    steps: { agentId: string; requiresApproval?: boolean; approvalTimeoutSeconds?: number }[],
    workingDirectory: string | null = workDir,
  ) => {
    const body = pipelineCreateBody.parse({
      name: `pipeline history recorder ${label} ${Date.now()}`,
      workingDirectory,
      steps: steps.map((step) => ({ inputTemplate: '{{input}}', ...step })),
    });
    const pipeline = await createPipeline(deps, body);
    pipelineIds.push(pipeline.id);
    return pipeline.id;
  };

  let worker: Awaited<ReturnType<typeof startAgentsWorker>> | undefined;
  try {
    await fs.chmod(scratch, 0o755);
    await fs.mkdir(reposDir);
    bareRepository(scratch, reposDir, `${repoName}.git`, ['main']);
    // A namespace just registered is described at once, yet the server may refuse other calls in it for a
    // few seconds (its namespace cache): the worker's start (it creates schedules there) is tried again.
    await until(
      `namespace ${config.temporal.namespace} in use`,
      async () => {
        try {
          worker = await startAgentsWorker({ ...config, orchestration }, logger);
          return true;
        } catch (error) {
          if (error instanceof NamespaceNotFoundError) return false;
          throw error;
        }
      },
      60_000,
      2_000,
    );

    const quick = await agentWith('quick', { FAKE_AGENT_CHUNKS: '1' });
    const run = async (pipelineId: string, input: string, request: { repoName?: string } = {}) => {
      const started = await executePipeline(deps, pipelineId, null, { input, ...request });
      return { runId: started.executionId, handle: client.workflow.getHandle(pipelineExecutionWorkflowId(started.executionId)) };
    };
    /** The workflow's end, checked: a recording that did not go the way it is named is not saved. */
    const finish = async (name: string, handle: WorkflowHandle, expected: PipelineExecutionResult['status']) => {
      const result = (await handle.result()) as PipelineExecutionResult;
      if (result.status !== expected) throw new Error(`${name}: the run ended ${result.status}, not ${expected}`);
      return result;
    };

    if (wants('approved') || wants('rejected') || wants('searchable-approved')) {
      const approval = await pipelineOf('approval', [{ agentId: quick.id }, { agentId: quick.id, requiresApproval: true }]);
      for (const [name, approve] of [
        ['approved', true],
        ['rejected', false],
        ['searchable-approved', true],
      ] as const) {
        if (!wants(name)) continue;
        const { runId, handle } = await run(approval, `Say hello (${name})`);
        await statusOf(runId, (status) => status === 'awaiting_approval');
        // POST /api/pipelines/:id/approve|reject: the `approve` or `reject` signal.
        await decideApproval(deps, runId, approve);
        await finish(name, handle, approve ? 'completed' : 'rejected');
        await saveHistoryFixture(`pipeline-execution-${name}`, handle);
      }
    }

    if (wants('approval-timeout')) {
      // 1 s: the least approvalTimeoutSeconds the API takes (api/orchestration/pipelines-input.ts).
      const timed = await pipelineOf('timeout', [
        { agentId: quick.id },
        { agentId: quick.id, requiresApproval: true, approvalTimeoutSeconds: 1 },
      ]);
      const { runId, handle } = await run(timed, 'Say hello, then wait');
      await finish('approval-timeout', handle, 'rejected');
      const record = await getExecution(database.db, runId);
      if (!record?.error?.includes('timed out')) throw new Error(`approval-timeout: the run ended with "${record?.error}", not a timeout`);
      await saveHistoryFixture('pipeline-execution-approval-timeout', handle);
    }

    if (wants('failed') || wants('resumed')) {
      const failing = await agentWith('failing', { FAKE_AGENT_FAIL: '1', FAKE_AGENT_CHUNKS: '1' });
      const pipelineId = await pipelineOf('failing', [{ agentId: quick.id }, { agentId: failing.id }]);
      const failed = await run(pipelineId, 'Say hello, then fail');
      await finish('failed', failed.handle, 'error');
      // Failed by the stand-in, at step 2: not by a heartbeat timeout of a machine too busy.
      const record = await getExecution(database.db, failed.runId);
      if (record?.failedAtStep !== 1 || !record.error?.includes('FAKE_AGENT_FAIL'))
        throw new Error(`failed: the run failed at step ${record?.failedAtStep} with "${record?.error}", not by the stand-in at step 1`);
      if (wants('failed')) await saveHistoryFixture('pipeline-execution-failed', failed.handle);
      if (wants('resumed')) {
        // The agent fixed (its knob changed), the run resumes from its failed step (POST /api/pipelines/resume/:id).
        await setKnobs(failing.id, { FAKE_AGENT_FAIL: '0' });
        const resumed = await resumePipelineRun(deps, failed.runId, null);
        if (resumed.resumedAtStep !== 1) throw new Error(`resumed: the run resumed at step ${resumed.resumedAtStep}, not 1`);
        const handle = client.workflow.getHandle(pipelineExecutionWorkflowId(resumed.executionId));
        await finish('resumed', handle, 'completed');
        await saveHistoryFixture('pipeline-execution-resumed', handle);
      }
    }

    if (wants('budget-approved')) {
      // One run of the agent spends US$ 0.0421 (the stand-in's cost), over its budget: its next run in a pipeline waits.
      const spender = await agentWith('budgeted', { FAKE_AGENT_CHUNKS: '1' });
      await updateAgent(
        database.db,
        spender.id,
        { dailyBudgetUsd: 0.01 },
        config.orchestration.limits,
        AGENT_CHANGELOG.updated(['dailyBudgetUsd']),
      );
      const first = await run(await pipelineOf('budget-spend', [{ agentId: spender.id }]), 'Spend');
      await finish('budget-approved', first.handle, 'completed');
      const { runId, handle } = await run(
        await pipelineOf('budget', [{ agentId: spender.id }, { agentId: spender.id }]),
        'Past the budget',
      );
      await statusOf(runId, (status) => status === 'awaiting_approval');
      await decideApproval(deps, runId, true);
      await finish('budget-approved', handle, 'completed');
      await saveHistoryFixture('pipeline-execution-budget-approved', handle);
    }

    for (const name of (['cancelled', 'searchable-cancelled'] as const).filter(wants)) {
      const slow = await agentWith('slow', { FAKE_AGENT_CHUNKS: '10000', FAKE_AGENT_DELAY_MS: '50' });
      const pipelineId = await pipelineOf('cancelled', [{ agentId: slow.id }, { agentId: quick.id }]);
      const { runId, handle } = await run(pipelineId, 'Cancel me');
      // The step's agent is writing (its record has output): POST /api/pipelines/:id/cancel.
      await until('the step writes output', async () => {
        const [rows] = await database.pool.query('SELECT output_seq AS seq FROM executions WHERE pipeline_execution_id = ?', [runId]);
        return Number((rows as Array<{ seq: number }>)[0]?.seq) > 0;
      });
      await cancelPipelineRuns(deps, runId);
      await handle.result().then(
        (result) => {
          throw new Error(`cancelled: the run ended ${(result as PipelineExecutionResult).status}, not cancelled`);
        },
        () => undefined,
      );
      const record = await getExecution(database.db, runId);
      if (record?.status !== 'canceled') throw new Error(`cancelled: the run's record is ${record?.status}`);
      await saveHistoryFixture(`pipeline-execution-${name}`, handle);
    }

    if (wants('repository')) {
      // The stand-in writes files relative to its HOME: a file in the working copy, so the push has a commit to push.
      const isolation = agentIsolation();
      const home = isolation.mode === 'user-pool' ? isolation.users[0]!.home : os.homedir();
      const writer = await agentWith('writer', {
        FAKE_AGENT_CHUNKS: '1',
        FAKE_AGENT_WRITE: JSON.stringify({ [path.relative(home, path.join(workingCopy, 'recorded.txt'))]: 'recorded\n' }),
      });
      const pipelineId = await pipelineOf('repository', [{ agentId: writer.id }, { agentId: quick.id }], null);
      const { runId, handle } = await run(pipelineId, 'Write recorded.txt', { repoName });
      await finish('repository', handle, 'completed');
      const record = await getExecution(database.db, runId);
      const head = gitIn(scratch, '--git-dir', path.join(reposDir, `${repoName}.git`), 'rev-parse', 'refs/heads/main');
      if (!record?.repoCommit || record.repoCommit !== head)
        throw new Error(`repository: the run's commit ${record?.repoCommit} is not the repository's main (${head})`);
      await saveHistoryFixture('pipeline-execution-repository', handle);
    }
  } finally {
    for (const id of pipelineIds) await deletePipeline(deps, id).catch(() => undefined);
    for (const id of agentIds) await deleteAgent(database.db, id);
    await worker?.stop();
    await closeRedis(redis);
    await database.pool.end();
    await connection.close();
    // The working copies belong to the agents' users; root removes them.
    for (const dir of [workDir, workingCopy, scratch]) await fs.rm(dir, { recursive: true, force: true });
  }

  async function statusOf(runId: string, done: (status: ExecutionStatus) => boolean): Promise<void> {
    await until(`run ${runId}`, async () => {
      const status = (await getExecution(database.db, runId))?.status;
      if (status !== undefined && !done(status) && !ACTIVE.includes(status)) throw new Error(`run ${runId} ended ${status}`);
      return status !== undefined && done(status);
    });
  }
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000, everyMs = 50): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline;) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`record-pipeline-histories: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
