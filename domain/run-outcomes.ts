import { CANCELLED_ERROR, ENGINE_UNAVAILABLE_ERROR, WORKER_LOST_ERROR, WORKER_STOPPED_ERROR } from './execution-errors';

/**
 * The kind of an ended run, from its record's status and error: the bounded `reason` label of
 * `agent_runs_finished_total` (docs/observability.md). The texts are the service's own (pt-BR);
 * anything else that failed is the agent's failure (`agent`: the CLI exited non-zero, the model refused).
 */
export type RunOutcomeReason = 'none' | 'timeout' | 'budget' | 'worker' | 'engine' | 'canceled' | 'agent';

export function runOutcomeReason(status: string, error: string | null): RunOutcomeReason {
  if (status === 'completed') return 'none';
  if (status === 'canceled' || error === CANCELLED_ERROR) return 'canceled';
  const text = error ?? '';
  if (text.startsWith('a execução excedeu o tempo limite')) return 'timeout';
  if (text.startsWith('O orçamento diário')) return 'budget';
  if (text === WORKER_LOST_ERROR || text === WORKER_STOPPED_ERROR || text.startsWith('a máquina de agentes')) return 'worker';
  if (text === ENGINE_UNAVAILABLE_ERROR) return 'engine';
  return 'agent';
}
