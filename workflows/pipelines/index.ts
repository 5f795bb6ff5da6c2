// Pipeline workflows, registered on the `agents` task queue (workflows/agents/index.ts re-exports them).
export { pipelineExecutionWorkflow } from './execution';
