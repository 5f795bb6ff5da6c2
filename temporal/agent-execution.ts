import type { WorkflowStartOptions } from '@temporalio/client';
import type { AgentExecutionInput, agentExecutionWorkflow } from '../workflows/agents/execution';
import { TASK_QUEUES } from './task-queues';

/** The workflow of one execution record: a second start with the same id is refused, so a record runs once. */
export function agentExecutionWorkflowId(executionId: string): string {
  return `agent-execution-${executionId}`;
}

/** How the API starts an execution's workflow (docs/agent-executions.md). */
export function agentExecutionStartOptions(input: AgentExecutionInput): WorkflowStartOptions<typeof agentExecutionWorkflow> {
  return {
    taskQueue: TASK_QUEUES.agents,
    workflowId: agentExecutionWorkflowId(input.executionId),
    workflowIdConflictPolicy: 'FAIL',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    args: [input],
  };
}
