import { createDatabase, type DatabaseHandle } from '../../db';
import { tryTakeExecutionSlot } from '../../db/execution-slots';
import { createExecution, getExecution } from '../../db/executions-store';
import { config } from '../../lib/config';

/**
 * The slot hand-out of db/execution-slots.ts against MariaDB (docs/agent-executions.md,
 * "Concurrency"; docs/repositories.md, "Two runs on one repository"): FIFO, and one running record
 * per repository, the records behind a blocked one going first.
 */

let database: DatabaseHandle;

beforeAll(async () => {
  database = createDatabase(config.mysql);
  await database.pool.query(
    "UPDATE executions SET status = 'error', finished_at = NOW(3) WHERE status IN ('queued', 'running', 'retrying', 'awaiting_approval')",
  );
});

afterAll(async () => {
  await database.pool.query("UPDATE executions SET status = 'error', finished_at = NOW(3) WHERE status IN ('queued', 'running')");
  await database.pool.end();
});

let clock = Date.now() - 60_000;
async function queued(repoName: string | null, pipelineExecutionId: string | null = null): Promise<string> {
  clock += 10;
  const record = await createExecution(database.db, {
    kind: 'agent',
    agentId: null,
    agentName: 'Slots',
    source: 'manual',
    task: 't',
    instructions: '',
    workingDirectory: '/home/projetos',
    model: 'm',
    repoName,
    pipelineExecutionId,
    createdAt: new Date(clock),
  });
  // Its waiter is alive (it looked just now).
  await database.pool.query('UPDATE executions SET waiting_heartbeat_at = NOW(3) WHERE id = ?', [record.id]);
  return record.id;
}

const statusOf = async (id: string) => (await getExecution(database.db, id))?.status;

describe('execution slots', () => {
  it('hands free slots in FIFO order, skipping a record whose repository already has a running run', async () => {
    const first = await queued('app');
    const second = await queued('app');
    const plain = await queued(null);
    const other = await queued('site');
    const third = await queued('app');

    // Three slots: the first of "app", the plain one and "site"; the second and third of "app" wait.
    expect(await tryTakeExecutionSlot(database.pool, first, 3)).toEqual({ outcome: 'taken' });
    expect(await Promise.all([first, second, plain, other, third].map(statusOf))).toEqual([
      'running',
      'queued',
      'running',
      'running',
      'queued',
    ]);

    // A free slot does not go to the second "app" record while the first one runs.
    expect(await tryTakeExecutionSlot(database.pool, second, 4)).toEqual({ outcome: 'waiting', ahead: 0 });
    expect(await statusOf(second)).toBe('queued');

    // Once the first one ends, the second (not the third) takes its turn.
    await database.pool.query("UPDATE executions SET status = 'completed', finished_at = NOW(3) WHERE id = ?", [first]);
    expect(await tryTakeExecutionSlot(database.pool, third, 4)).toEqual({ outcome: 'waiting', ahead: 0 });
    expect(await Promise.all([second, third].map(statusOf))).toEqual(['running', 'queued']);
  });

  it('an active pipeline run holds its repository from step to step: only its own steps start, the oldest run first', async () => {
    const pipelineRun = async () => {
      clock += 10;
      const run = await createExecution(database.db, {
        kind: 'pipeline',
        agentId: null,
        agentName: 'Pipeline',
        source: 'manual',
        task: 't',
        instructions: '',
        workingDirectory: '/home/projetos',
        model: 'm',
        repoName: 'shop',
        createdAt: new Date(clock),
      });
      await database.pool.query("UPDATE executions SET status = 'running' WHERE id = ?", [run.id]);
      return run.id;
    };
    const first = await pipelineRun();
    const single = await queued('shop');
    const firstStep = await queued('shop', first);
    const second = await pipelineRun();
    const secondStep = await queued('shop', second);

    // Between the first run's steps: neither the single run (older than the step) nor the second run's step goes.
    expect(await tryTakeExecutionSlot(database.pool, firstStep, 5)).toEqual({ outcome: 'taken' });
    expect(await Promise.all([single, firstStep, secondStep].map(statusOf))).toEqual(['queued', 'running', 'queued']);
    await database.pool.query("UPDATE executions SET status = 'completed', finished_at = NOW(3) WHERE id = ?", [firstStep]);
    expect(await tryTakeExecutionSlot(database.pool, single, 5)).toMatchObject({ outcome: 'waiting' });
    expect(await Promise.all([single, secondStep].map(statusOf))).toEqual(['queued', 'queued']);

    // Once the first run ends, the second holds the repository: its step goes, the single run still waits.
    await database.pool.query("UPDATE executions SET status = 'completed', finished_at = NOW(3) WHERE id = ?", [first]);
    expect(await tryTakeExecutionSlot(database.pool, secondStep, 5)).toEqual({ outcome: 'taken' });
    expect(await statusOf(single)).toBe('queued');
    await database.pool.query("UPDATE executions SET status = 'completed', finished_at = NOW(3) WHERE id IN (?)", [[secondStep, second]]);
    expect(await tryTakeExecutionSlot(database.pool, single, 5)).toEqual({ outcome: 'taken' });
  });
});
