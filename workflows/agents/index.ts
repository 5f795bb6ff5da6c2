// Workflows registered on the `agents` task queue (bundled by the agents worker).
export { probeWorkflow } from '../probe';
export { agentExecutionWorkflow } from './execution';
export { reconcileExecutionsLoopWorkflow, reconcileExecutionsWorkflow } from './reconcile-executions';
export { scheduledAgentRunWorkflow } from './scheduled';
export { removeExpiredUploadsWorkflow } from './uploads-retention';
export { pipelineExecutionWorkflow } from '../pipelines';
