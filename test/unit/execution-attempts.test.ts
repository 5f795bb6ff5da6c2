import { attemptCosts, type ExecutionAttempt } from '../../db/execution-attempts';
import { executionAttemptViews } from '../../services/executions/view';

/**
 * An agent record's attempts (docs/executions.md, "Attempts"): the cost finishExecution stores from its
 * attempts' rows, and the detail's `attempts` in every state a record can be in, records stored before
 * migration 0030 included. The real runs: test/integration/attempt-costs.test.ts.
 */

const at = (second: number) => new Date(Date.UTC(2026, 10, 26, 12, 0, second));
const iso = (second: number) => at(second).toISOString();

function row(attempt: number, fields: Partial<ExecutionAttempt> = {}): ExecutionAttempt {
  return {
    executionId: 'e1',
    attempt,
    status: 'error',
    error: `falha ${attempt}`,
    costUsd: 0.1,
    counted: true,
    startedAt: at(attempt * 10),
    endedAt: at(attempt * 10 + 5),
    ...fields,
  };
}

describe('attemptCosts: the cost a finished record stores', () => {
  it('is the outcome as given for a record run once without a row (undefined keeps the stored cost)', () => {
    expect(attemptCosts(1, [], 0.25)).toEqual({ total: 0.25, own: 0.25, counted: false, closesRow: false });
    expect(attemptCosts(1, [], undefined)).toEqual({ total: undefined, own: null, counted: false, closesRow: false });
    expect(attemptCosts(1, [], null)).toEqual({ total: null, own: null, counted: false, closesRow: false });
  });

  it("adds the earlier attempts' costs to the last one's, which alone goes to the day's counter", () => {
    expect(attemptCosts(3, [row(1, { costUsd: 0.1 }), row(2, { costUsd: 0.2 })], 0.5)).toEqual({
      total: 0.1 + 0.2 + 0.5,
      own: 0.5,
      counted: false,
      closesRow: true,
    });
    // An earlier attempt that reported nothing adds nothing; the last one without a cost counts 0.
    expect(attemptCosts(2, [row(1, { costUsd: null })], undefined)).toEqual({
      total: undefined,
      own: null,
      counted: false,
      closesRow: true,
    });
    expect(attemptCosts(2, [row(1, { costUsd: 0.1 })], undefined)).toEqual({ total: 0.1, own: null, counted: false, closesRow: true });
  });

  it("takes the last attempt's cost from its row when the outcome has none (a cancel), counted once", () => {
    expect(attemptCosts(1, [row(1, { status: null, costUsd: 0.3, counted: false })], undefined)).toEqual({
      total: 0.3,
      own: 0.3,
      counted: false,
      closesRow: true,
    });
    // Counted already when its retry was refused by a budget (planRetry): the close adds nothing.
    expect(attemptCosts(2, [row(1), row(2, { costUsd: 0.3, counted: true })], 0.3)).toEqual({
      total: 0.1 + 0.3,
      own: 0.3,
      counted: true,
      closesRow: true,
    });
  });
});

describe("executionAttemptViews: the detail's attempts", () => {
  const record = {
    attempt: 1,
    status: 'completed' as const,
    error: null,
    costUsd: 0.4,
    startedAt: at(1),
    finishedAt: at(9),
  };

  it('lists a record run once as its one attempt', () => {
    expect(executionAttemptViews(record, [])).toEqual([
      { attempt: 1, status: 'completed', error: null, costUsd: 0.4, startedAt: iso(1), endedAt: iso(9) },
    ]);
    // Queued, not started yet.
    expect(executionAttemptViews({ ...record, status: 'queued', costUsd: null, startedAt: null, finishedAt: null }, [])).toEqual([
      { attempt: 1, status: 'queued', error: null, costUsd: null, startedAt: null, endedAt: null },
    ]);
  });

  it('lists the rows of a record run three times, the last one as closed', () => {
    const rows = [row(1), row(2, { costUsd: 0.2 }), row(3, { status: 'completed', error: null, costUsd: 0.3 })];
    expect(executionAttemptViews({ ...record, attempt: 3, costUsd: 0.6, startedAt: at(30), finishedAt: at(35) }, rows)).toEqual([
      { attempt: 1, status: 'error', error: 'falha 1', costUsd: 0.1, startedAt: iso(10), endedAt: iso(15) },
      { attempt: 2, status: 'error', error: 'falha 2', costUsd: 0.2, startedAt: iso(20), endedAt: iso(25) },
      { attempt: 3, status: 'completed', error: null, costUsd: 0.3, startedAt: iso(30), endedAt: iso(35) },
    ]);
  });

  it("shows the attempt waiting for its retry or running with the record's status", () => {
    const waiting = {
      ...record,
      attempt: 2,
      status: 'retrying' as const,
      error: 'falha 1',
      costUsd: 0.1,
      startedAt: at(10),
      finishedAt: null,
    };
    expect(executionAttemptViews(waiting, [row(1)])[1]).toEqual({
      attempt: 2,
      status: 'retrying',
      error: null,
      costUsd: null,
      startedAt: null,
      endedAt: null,
    });
    expect(executionAttemptViews({ ...waiting, status: 'running', startedAt: at(20) }, [row(1)])[1]).toEqual({
      attempt: 2,
      status: 'running',
      error: null,
      costUsd: null,
      startedAt: iso(20),
      endedAt: null,
    });
  });

  it('lists the earlier attempts of a record stored before migration 0030 as failed, their cost unknown', () => {
    expect(executionAttemptViews({ ...record, attempt: 2, costUsd: 0.05 }, [])).toEqual([
      { attempt: 1, status: 'error', error: null, costUsd: null, startedAt: null, endedAt: null },
      { attempt: 2, status: 'completed', error: null, costUsd: 0.05, startedAt: iso(1), endedAt: iso(9) },
    ]);
  });
});
