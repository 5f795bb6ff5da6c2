import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ScheduleOverlapPolicy } from '@temporalio/client';
import { createDatabase } from '../db';
import { createAgent, deleteAgent } from '../db/agents-store';
import { config } from '../lib/config';
import { logger } from '../lib/logger';
import { repoRoot } from '../lib/paths';
import { createSchedule, deleteSchedule } from '../services/schedules';
import { agentScheduleId } from '../temporal/agent-schedules';
import { closeTemporalClient, createTemporalClient } from '../temporal/client';
import { startAgentsWorker } from '../workers/agents';
import { saveHistoryFixture } from './history-fixtures';

/**
 * Records the history of a schedule's firing (`scheduledAgentRunWorkflow`: the record's activity,
 * then the child agent execution, completed) into test/fixtures/histories/ for the replay test, with
 * the stand-in CLI as the agent. Run with the stack up and an otherwise idle `agents` queue:
 * `npm run record-schedule-histories`.
 */
const fakeAgent = path.join(repoRoot, 'test', 'fixtures', 'fake-agent', 'fake-agent.js');

async function main(): Promise<void> {
  const temporal = createTemporalClient(config.temporal);
  const database = createDatabase(config.mysql);
  const worker = await startAgentsWorker({ ...config, orchestration: { ...config.orchestration, agentCommand: fakeAgent } }, logger);
  const workDir = path.join(config.orchestration.workdirRoots[0]!, `record-schedule-histories-${randomUUID()}`);
  const deps = { db: database.db, temporal: temporal.client, logger, timezone: config.orchestration.scheduleTimezone };
  const agent = await createAgent(
    database.db,
    {
      name: `history recorder schedule ${Date.now()}`,
      description: '',
      model: null,
      instructions: 'Be brief.',
      workingDirectory: workDir,
      permissionMode: 'bypassPermissions',
      maxTurns: 5,
    },
    config.orchestration.limits,
  );
  const schedule = await createSchedule(deps, { agentId: agent.id, taskDescription: 'Say hello', cronExpression: '0 9 * * *' });
  try {
    const handle = temporal.client.schedule.getHandle(agentScheduleId(schedule.id));
    await handle.trigger(ScheduleOverlapPolicy.SKIP);
    let workflowId: string | undefined;
    for (let attempt = 0; workflowId === undefined; attempt++) {
      if (attempt > 500) throw new Error('the triggered firing never started');
      workflowId = (await handle.describe()).info.recentActions[0]?.action.workflow.workflowId;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const run = temporal.client.workflow.getHandle(workflowId);
    const result = await run.result();
    if (!result.executionId) throw new Error(`the firing ran nothing: ${JSON.stringify(result)}`);
    await saveHistoryFixture('agent-schedule-run-completed', run);
  } finally {
    await deleteSchedule(deps, schedule.id);
    await deleteAgent(database.db, agent.id);
    await worker.stop();
    await database.pool.end();
    await closeTemporalClient(temporal);
    await fs.rm(workDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`record-schedule-histories: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
