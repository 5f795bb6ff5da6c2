import * as agentsQueue from '../../workflows/agents';
import * as rankingQueue from '../../workflows/ranking';
import { AGENT_EXECUTION_WORKFLOW, agentExecutionWorkflowId } from '../../temporal/contracts/agent-execution';
import { PIPELINE_EXECUTION_WORKFLOW, pipelineExecutionWorkflowId } from '../../temporal/contracts/pipeline-execution';
import { RANKING_JOB_WORKFLOW, RANKING_JOB_WORKFLOW_ID } from '../../temporal/contracts/ranking-job';
import { SCHEDULED_AGENT_RUN_WORKFLOW } from '../../temporal/contracts/scheduled-agent-run';

/**
 * The client parts start workflows by the type names of their contracts (temporal/contracts/): each
 * name must be a workflow the queue's bundle exports, or a start would wait for a workflow no worker has.
 */
describe('workflow contracts', () => {
  it('name workflow types the bundles of their queues export', () => {
    const agents: Record<string, unknown> = agentsQueue;
    const ranking: Record<string, unknown> = rankingQueue;
    expect(
      [AGENT_EXECUTION_WORKFLOW, PIPELINE_EXECUTION_WORKFLOW, SCHEDULED_AGENT_RUN_WORKFLOW].map((name) => typeof agents[name]),
    ).toEqual(['function', 'function', 'function']);
    expect(typeof ranking[RANKING_JOB_WORKFLOW]).toBe('function');
    expect(agents[AGENT_EXECUTION_WORKFLOW]).toBe(agentsQueue.agentExecutionWorkflow);
    expect(ranking[RANKING_JOB_WORKFLOW]).toBe(rankingQueue.rankingJobWorkflow);
  });

  it('keep the workflow ids the records and the reconciler look for', () => {
    expect(agentExecutionWorkflowId('0d1c5a4e')).toBe('agent-execution-0d1c5a4e');
    expect(pipelineExecutionWorkflowId('0d1c5a4e')).toBe('pipeline-execution-0d1c5a4e');
    expect(RANKING_JOB_WORKFLOW_ID).toBe('ranking_job');
  });
});
