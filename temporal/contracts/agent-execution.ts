import type { FinalStatus } from '../../domain/execution-status';

/**
 * The contract of `agentExecutionWorkflow` (workflows/agents/execution.ts): what starts it, what it
 * answers, its id. Workflow-safe: the workflows import it, and so does the client part
 * (temporal/agent-execution.ts), so neither side imports the other.
 */

export const AGENT_EXECUTION_WORKFLOW = 'agentExecutionWorkflow';

export interface AgentExecutionInput {
  /** The record (created `queued` by the API before the start). */
  executionId: string;
  /** `--resume` this session: set for a `continue` execution. */
  resumeSessionId?: string | null;
}

export interface AgentExecutionResult {
  executionId: string;
  /** An agent run ends `completed`, `error` or `canceled`. */
  status: FinalStatus;
  error: string | null;
  /** The agents host the run was pinned to (docs/multi-host.md); absent: none (ended before its slot, or an older run). */
  host?: string;
}

export type AgentExecutionWorkflow = (input: AgentExecutionInput) => Promise<AgentExecutionResult>;

/** The workflow of one execution record: a second start with the same id is refused, so a record runs once. */
export function agentExecutionWorkflowId(executionId: string): string {
  return `agent-execution-${executionId}`;
}
