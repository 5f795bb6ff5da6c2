import { budgetExhaustedText } from '../../domain/budgets';
import {
  CANCELLED_ERROR,
  ENGINE_UNAVAILABLE_ERROR,
  hostDownError,
  WORKER_LOST_ERROR,
  WORKER_STOPPED_ERROR,
} from '../../domain/execution-errors';
import { runOutcomeReason } from '../../domain/run-outcomes';
import { timedOutError } from '../../domain/run-limits';

describe('the reason label of an ended run (domain/run-outcomes.ts)', () => {
  const budget = budgetExhaustedText(
    { scope: 'global', agentId: null, agentName: null, limitUsd: 1, spentUsd: 2 },
    new Date('2026-11-27T00:00:00Z'),
  );
  it.each([
    ['completed', null, 'none'],
    ['canceled', CANCELLED_ERROR, 'canceled'],
    ['error', timedOutError(1_800_000), 'timeout'],
    ['error', budget, 'budget'],
    ['error', `${budget}. Nova tentativa não feita; a tentativa 1 falhou: x`, 'budget'],
    ['error', WORKER_LOST_ERROR, 'worker'],
    ['error', WORKER_STOPPED_ERROR, 'worker'],
    ['error', hostDownError('vm2', 5), 'worker'],
    ['error', ENGINE_UNAVAILABLE_ERROR, 'engine'],
    ['error', 'claude-code terminou com o código 1: Invalid API key', 'agent'],
    ['error', null, 'agent'],
  ])('%s with %p is %s', (status, error, reason) => {
    expect(runOutcomeReason(status, error)).toBe(reason);
  });
});
