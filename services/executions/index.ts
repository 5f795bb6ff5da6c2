/** The execution use cases (docs/application-layer.md): what routes, schedules, webhooks and pipelines call. */
export type { ExecutionDeps } from './deps';
export { executeAgent, launchedExecutionSchema } from './launch';
export { cancelAllExecutions, cancelExecution, cancelledExecutionSchema, cancelledExecutionsSchema, listActiveExecutions } from './cancel';
export { continueSession } from './continue';
export { retriedExecutionSchema, retryExecution } from './retry';
export {
  clearExecutionHistory,
  countActiveExecutions,
  deleteExecution,
  executionDetail,
  executionHistory,
  exportExecutionHistory,
  historyPageViewSchema,
  recentExecutions,
} from './history';
export { activeExecutionViewSchema, executionDetailViewSchema, executionView, executionViewSchema, type ExecutionView } from './view';
// The record's vocabulary, for the request schemas and the CSV of api/.
export { type ExecutionSummary, type HistoryFilters } from '../../db/executions-store';
export { EXECUTION_SOURCES, EXECUTION_STATUSES } from '../../domain/execution-status';
