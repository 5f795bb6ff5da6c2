/**
 * The vocabulary of an execution record (docs/executions.md): what kind it is, where it came from and
 * where it stands. Shared by the table's columns (db/schema.ts), the workflows, the use cases and the
 * request schemas, so it lives here, below them all.
 */

export const EXECUTION_KINDS = ['agent', 'pipeline'] as const;
export type ExecutionKind = (typeof EXECUTION_KINDS)[number];

export const EXECUTION_STATUSES = [
  'queued',
  'running',
  'retrying',
  'awaiting_approval',
  'completed',
  'error',
  'canceled',
  'rejected',
] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

export const EXECUTION_SOURCES = ['manual', 'schedule', 'webhook', 'webhook-test', 'retry', 'continue', 'delegation', 'resume'] as const;
export type ExecutionSource = (typeof EXECUTION_SOURCES)[number];

/** Not yet ended: a record in one of these is still someone's (a slot, a worker, an approval). */
export const ACTIVE_STATUSES = ['queued', 'running', 'retrying', 'awaiting_approval'] as const satisfies readonly ExecutionStatus[];
export type ActiveStatus = (typeof ACTIVE_STATUSES)[number];
export type FinalStatus = Exclude<ExecutionStatus, ActiveStatus>;

export const isActiveStatus = (status: ExecutionStatus): status is ActiveStatus => (ACTIVE_STATUSES as readonly string[]).includes(status);

/**
 * The statuses a history filter selects: `running` is what the panel's "Em execução" sends, and a
 * person means by it every run not ended (queued, retrying, waiting for an approval too); each record
 * still shows its own status. The others select themselves.
 */
export function historyFilterStatuses(statuses: readonly ExecutionStatus[]): ExecutionStatus[] {
  return statuses.includes('running') ? [...new Set([...statuses, ...ACTIVE_STATUSES])] : [...statuses];
}
