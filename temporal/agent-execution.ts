import type { Client, WorkflowHandle } from '@temporalio/client';
import { AGENT_EXECUTION_WORKFLOW, agentExecutionWorkflowId, type AgentExecutionInput, type AgentExecutionWorkflow } from './contracts/agent-execution';
import { TASK_QUEUES } from './task-queues';
import { cancelWorkflow } from './workflow-state';

/** The client side of `agentExecutionWorkflow` (its contract: temporal/contracts/agent-execution.ts). */

type WorkflowClient = Pick<Client, 'workflow'>;

/** Starts the workflow of one execution record (docs/agent-executions.md); a second start for the same record is refused. */
export async function startAgentExecution(client: WorkflowClient, input: AgentExecutionInput): Promise<WorkflowHandle<AgentExecutionWorkflow>> {
  return client.workflow.start<AgentExecutionWorkflow>(AGENT_EXECUTION_WORKFLOW, {
    taskQueue: TASK_QUEUES.agents,
    workflowId: agentExecutionWorkflowId(input.executionId),
    workflowIdConflictPolicy: 'FAIL',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    args: [input],
  });
}

/** Asks the record's workflow to cancel; false when Temporal knows no such workflow (never started, or gone). */
export async function cancelAgentExecution(client: WorkflowClient, executionId: string): Promise<boolean> {
  return cancelWorkflow(client, agentExecutionWorkflowId(executionId));
}
