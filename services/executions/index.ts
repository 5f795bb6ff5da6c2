/** The execution use cases (docs/application-layer.md): what routes, schedules, webhooks and pipelines call. */
export { executionDepsOf, type ExecutionDeps } from './deps';
export { executeAgent, launchExecution, type ExecuteRequest, type LaunchedExecution, type LaunchInput } from './launch';
export { cancelAllExecutions, cancelExecution, isActive, listActiveExecutions } from './cancel';
export { continueSession } from './continue';
export { retryExecution } from './retry';
