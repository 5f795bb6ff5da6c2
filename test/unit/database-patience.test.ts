import { isConnectionFailure, untilDatabaseAnswers } from '../../db/mysql-errors';

/** An error as drizzle raises it: "Failed query", the driver's error with its code as the cause. */
function failedQuery(code: string): Error {
  const cause = Object.assign(new Error(`connect ${code}`), { code });
  return new Error('Failed query: select 1', { cause });
}

describe('reads made again while the database restarts (docs/reliability.md)', () => {
  it('knows a connection refused or lost from an error of the query', () => {
    expect(isConnectionFailure(failedQuery('ECONNREFUSED'))).toBe(true);
    expect(isConnectionFailure(failedQuery('PROTOCOL_CONNECTION_LOST'))).toBe(true);
    expect(isConnectionFailure(failedQuery('ER_SERVER_SHUTDOWN'))).toBe(true);
    expect(isConnectionFailure(failedQuery('ER_PARSE_ERROR'))).toBe(false);
    expect(isConnectionFailure(new Error('agent gone'))).toBe(false);
  });

  it('answers once the database answers again, having waited between the tries', async () => {
    const refusals = [failedQuery('ECONNREFUSED'), failedQuery('ECONNREFUSED')];
    const slept: number[] = [];
    const value = await untilDatabaseAnswers(
      async () => {
        const refusal = refusals.shift();
        if (refusal) throw refusal;
        return 'the record';
      },
      { patienceMs: 60_000, everyMs: 1_000, sleep: async (ms) => void slept.push(ms) },
    );
    expect(value).toBe('the record');
    expect(slept).toEqual([1_000, 1_000]);
  });

  it('throws any other error at once, and a refusal that outlasts the patience', async () => {
    const wrong = failedQuery('ER_PARSE_ERROR');
    let tries = 0;
    await expect(
      untilDatabaseAnswers(async () => ((tries += 1), Promise.reject(wrong)), { patienceMs: 60_000, sleep: async () => undefined }),
    ).rejects.toBe(wrong);
    expect(tries).toBe(1);
    const down = failedQuery('ECONNREFUSED');
    await expect(untilDatabaseAnswers(async () => Promise.reject(down), { patienceMs: 0, sleep: async () => undefined })).rejects.toBe(
      down,
    );
  });
});
