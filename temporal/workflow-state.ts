import {
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowExecutionStatusName,
} from '@temporalio/client';
import type { WorkflowState } from '../domain/workflow-gone';

/** Closed for good: nothing of this execution runs any more (CONTINUED_AS_NEW never is the latest run). */
const CLOSED: readonly WorkflowExecutionStatusName[] = ['COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'TIMED_OUT'];

/** Longest wait for one describe (the reconciler's other records must not wait on a stuck call). */
const DESCRIBE_DEADLINE_MS = 10_000;

export interface DescribedWorkflow {
  state: WorkflowState;
  /** The first run of the latest execution's chain (continue-as-new, reset); null when not found or not told. */
  firstRunId: string | null;
}

/** A workflow id Temporal does not know (never started, or its closed runs are past retention). */
export const MISSING_WORKFLOW: DescribedWorkflow = { state: { kind: 'missing' }, firstRunId: null };

/**
 * What a description says. Any status other than the closed ones (RUNNING, PAUSED, an unknown one)
 * counts as open, so a doubt never ends a record.
 */
export function describedWorkflow(description: WorkflowExecutionDescription): DescribedWorkflow {
  const status = description.status.name;
  return {
    state: CLOSED.includes(status) ? { kind: 'closed', status, closedAt: description.closeTime ?? null } : { kind: 'open' },
    firstRunId: description.raw.workflowExecutionInfo?.firstRunId || null,
  };
}

/** The latest run of a workflow id as Temporal describes it; errors other than not found (Temporal unreachable) are thrown. */
export async function describeWorkflowState(client: Client, workflowId: string): Promise<DescribedWorkflow> {
  try {
    const description = await client.connection.withDeadline(Date.now() + DESCRIBE_DEADLINE_MS, () =>
      client.workflow.getHandle(workflowId).describe(),
    );
    return describedWorkflow(description);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return MISSING_WORKFLOW;
    throw error;
  }
}

/** Cancels a workflow by id; false when it is not found. Other errors (Temporal unreachable) are thrown. */
export async function cancelWorkflow(client: Pick<Client, 'workflow'>, workflowId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(workflowId).cancel();
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}
