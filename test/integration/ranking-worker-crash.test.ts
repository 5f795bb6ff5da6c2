import { rankingJobStartOptions } from '../../temporal/ranking-job';
import { createDatabase, type DatabaseHandle } from '../../db';
import { config } from '../../lib/config';
import type { RankingJobWorkflow } from '../../temporal/contracts/ranking-job';
import { progressQuery } from '../../temporal/contracts/ranking-job';
import { startServiceProcess, waitForLog, type ServiceProcess } from '../support/processes';
import { emptyRanking, expectedRanking, runReferenceDate, seedPersonIndex, storedPositions, withTemporalClient } from '../support/ranking';

const SEED = 23;
const PERSONS = 6_000;
const ids = Array.from({ length: PERSONS }, (_, i) => i + 1);
const workers: ServiceProcess[] = [];
let database: DatabaseHandle;

beforeAll(async () => {
  await seedPersonIndex(PERSONS, SEED);
  database = createDatabase(config.mysql);
  await emptyRanking(database.pool);
});

afterAll(async () => {
  for (const worker of workers) worker.child.kill('SIGKILL');
  await database?.pool.end();
});

async function startWorker(): Promise<ServiceProcess> {
  const worker = startServiceProcess({ PROCESS_ROLES: 'ranking-worker' });
  workers.push(worker);
  await waitForLog(worker, 'worker started');
  return worker;
}

describe('a ranking worker killed in the middle of a run', () => {
  it('loses and duplicates nothing: a new worker finishes the run with every person once, in order', async () => {
    const first = await startWorker();
    await withTemporalClient(async (client) => {
      const handle = await client.workflow.start<RankingJobWorkflow>(
        'rankingJobWorkflow',
        rankingJobStartOptions({ batchSize: 300, maxChildrenInFlight: 2 }),
      );

      // Kill once some batches are stored and others are still to come.
      let processedAtKill = 0;
      for (let attempt = 0; attempt < 600; attempt += 1) {
        const progress = await handle.query(progressQuery);
        if (progress.processados >= 600) {
          processedAtKill = progress.processados;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      first.child.kill('SIGKILL');
      expect(await first.exited).toBeNull();
      expect(processedAtKill).toBeGreaterThanOrEqual(600);
      expect(processedAtKill).toBeLessThan(PERSONS);

      await startWorker();
      const result = await handle.result();
      expect(result.processados).toBe(PERSONS);
    });

    const positions = await storedPositions(database.pool);
    expect(positions).toHaveLength(PERSONS);
    expect(positions.map((row) => row.posicao)).toEqual(ids);
    expect(positions.map((row) => row.id_pessoa)).toEqual(expectedRanking(SEED, ids, runReferenceDate()).map((p) => p.id_pessoa));
    // Every stored seal list is mirrored exactly once in the seal table (no duplicates from the retry).
    const [seals] = await database.pool.query('SELECT COUNT(*) AS n FROM ranking_entry_seals');
    const [expectedSeals] = await database.pool.query('SELECT COALESCE(SUM(JSON_LENGTH(selos)), 0) AS n FROM ranking_entries');
    expect(Number((seals as Array<{ n: number }>)[0]?.n)).toBe(Number((expectedSeals as Array<{ n: number }>)[0]?.n));
  }, 180_000);
});
