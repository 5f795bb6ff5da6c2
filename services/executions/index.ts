/** The execution use cases (docs/application-layer.md): what routes, schedules, webhooks and pipelines call. */
export type { ExecutionDeps } from './deps';
export {
  executeAgent,
  launchedExecutionSchema,
  launchExecution,
  runnableAgent,
  type ExecuteRequest,
  type LaunchedExecution,
  type LaunchInput,
} from './launch';
export {
  cancelAllExecutions,
  cancelExecution,
  cancelledExecutionSchema,
  cancelledExecutionsSchema,
  listActiveExecutions,
  type CancelledExecution,
  type CancelledExecutions,
} from './cancel';
export { continueSession } from './continue';
export { retriedExecutionSchema, retryExecution, type RetriedExecution } from './retry';
export {
  clearExecutionHistory,
  countActiveExecutions,
  deleteExecution,
  executionDetail,
  executionHistory,
  exportExecutionHistory,
  historyPageViewSchema,
  recentExecutions,
  type HistoryPageView,
} from './history';
export {
  activeExecutionView,
  activeExecutionViewSchema,
  executionDetailView,
  executionDetailViewSchema,
  executionView,
  executionViewSchema,
  pipelineStepViewSchema,
  type ActiveExecutionView,
  type ExecutionDetailView,
  type ExecutionView,
  type PipelineStepView,
} from './view';
// The record's vocabulary, for the request schemas and the CSV of api/.
export { type ExecutionSummary, type HistoryFilters } from '../../db/executions-store';
export { EXECUTION_SOURCES, EXECUTION_STATUSES } from '../../domain/execution-status';
