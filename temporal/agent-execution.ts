import type { Client, WorkflowHandle } from '@temporalio/client';
import type { ExecutionSource } from '../domain/execution-status';
import {
  AGENT_EXECUTION_WORKFLOW,
  agentExecutionWorkflowId,
  type AgentExecutionInput,
  type AgentExecutionWorkflow,
} from './contracts/agent-execution';
import { runSearchAttributes } from './contracts/search-attributes';
import { agentRunSummary, detailLines } from './contracts/summaries';
import { TASK_QUEUES } from './task-queues';
import { cancelWorkflow } from './workflow-state';

/** The client side of `agentExecutionWorkflow` (its contract: temporal/contracts/agent-execution.ts). */

type WorkflowClient = Pick<Client, 'workflow'>;

/** What the Web UI shows of a run (its record's fields): search attributes and summary (docs/observability.md). */
export interface AgentRunDescription {
  agentId: string | null;
  agentName: string;
  source: ExecutionSource;
  task: string;
  scheduleId?: string | null;
  webhookId?: string | null;
}

/** The start options that make a run findable in the Web UI: its attributes (RunStatus `queued`, as the record starts) and summary. */
export function agentRunStartOptions(executionId: string, run: AgentRunDescription) {
  return {
    typedSearchAttributes: runSearchAttributes({ ...run, status: 'queued' }),
    staticSummary: agentRunSummary(run),
    staticDetails: detailLines({
      execution: executionId,
      agent: run.agentId,
      source: run.source,
      schedule: run.scheduleId,
      webhook: run.webhookId,
    }),
  };
}

/**
 * Starts the workflow of one execution record (docs/agent-executions.md); a second start for the same
 * record is refused. `run`, the record, labels it in the Web UI (absent: an unlabelled start, as the
 * delegation path of workflows older than agent-delegation-child makes).
 */
export async function startAgentExecution(
  client: WorkflowClient,
  input: AgentExecutionInput,
  run?: AgentRunDescription,
): Promise<WorkflowHandle<AgentExecutionWorkflow>> {
  return client.workflow.start<AgentExecutionWorkflow>(AGENT_EXECUTION_WORKFLOW, {
    taskQueue: TASK_QUEUES.agents,
    workflowId: agentExecutionWorkflowId(input.executionId),
    workflowIdConflictPolicy: 'FAIL',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    args: [input],
    ...(run ? agentRunStartOptions(input.executionId, run) : {}),
  });
}

/** Asks the record's workflow to cancel; false when Temporal knows no such workflow (never started, or gone). */
export async function cancelAgentExecution(client: WorkflowClient, executionId: string): Promise<boolean> {
  return cancelWorkflow(client, agentExecutionWorkflowId(executionId));
}
