import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { ScheduleOverlapPolicy, type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import { defaultPayloadConverter, type TypedSearchAttributes } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { config } from '../../lib/config';
import { logger } from '../../lib/logger';
import { agentScheduleId } from '../../temporal/agent-schedules';
import { agentExecutionWorkflowId } from '../../temporal/contracts/agent-execution';
import { pipelineExecutionWorkflowId } from '../../temporal/contracts/pipeline-execution';
import { RANKING_JOB_WORKFLOW_ID } from '../../temporal/contracts/ranking-job';
import { RUN_SEARCH_ATTRIBUTES } from '../../temporal/contracts/search-attributes';
import { createCommand, ensureSearchAttributes } from '../../temporal/search-attributes';
import { startRankingWorker } from '../../workers/ranking';
import type { QueueWorker } from '../../workers/queue-worker';
import { jsonCall } from '../support/json-api';
import { runRankingJob, seedPersonIndex } from '../support/ranking';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import type { TestServer } from '../support/server';
import { until } from '../support/waiting';

/**
 * Runs found in the Temporal Web UI (docs/observability.md, issue 24 section 2), against the real
 * stack with the real CLI and the stand-in model: the custom search attributes registered in the
 * namespace; an agent's runs started by a person, a webhook and a schedule listed by AgentName with
 * their RunSource, RunStatus, WebhookId and ScheduleId; a pipeline waiting for a person listed by
 * `RunStatus='awaiting_approval' AND PipelineName=...`, its steps by PipelineId; the static summaries
 * on describe(), and the activities' summaries naming the steps in the history; the ranking job's batches.
 */

type Attributes = Record<string, unknown>;

/** A workflow's custom attributes as plain values (each a Keyword: one string). */
function attributesOf(typed: TypedSearchAttributes): Attributes {
  const names = new Set<string>(RUN_SEARCH_ATTRIBUTES.map((key) => key.name));
  return Object.fromEntries(
    typed
      .getAll()
      .filter((pair) => names.has(pair.key.name))
      .map((pair) => [pair.key.name, pair.value]),
  );
}

/** The summaries of a history's events in order: the workflow's own (its start event), then its commands'. */
function summariesOf(history: temporal.api.history.v1.IHistory): string[] {
  return (history.events ?? []).flatMap((event) => {
    const summary = event.userMetadata?.summary;
    return summary ? [defaultPayloadConverter.fromPayload<string>(summary)] : [];
  });
}

describe('runs in the Temporal Web UI: search attributes and summaries', () => {
  let agents: RealAgents;
  let server: TestServer;
  let client: Client;
  const scheduleIds: string[] = [];
  const runIds: string[] = [];

  beforeAll(async () => {
    agents = await startRealAgents({ name: 'search-attributes', maxConcurrent: 4 });
    server = agents.server;
    client = server.resources.temporal.client;
  }, 60_000);

  afterAll(async () => {
    for (const id of scheduleIds) await call('DELETE', `/api/schedules/${id}`);
    // A run a failed test left waiting for approval: cancelled, and ended by the worker before it stops.
    for (const id of runIds) {
      if ((await record(id)).status !== 'awaiting_approval') continue;
      await call('POST', `/api/pipelines/${id}/cancel`);
      await ended(id, 'canceled');
    }
    await agents?.close();
  });

  const call = (method: string, route: string, body?: unknown) => jsonCall(server.url, method, route, body);
  const record = async (id: string) => (await call('GET', `/api/executions/history/${id}`)).body;
  const ended = (id: string, status = 'completed') =>
    until(
      `${id} ${status}`,
      () => record(id),
      (row) => row.status === status,
      120_000,
    );

  /** The workflows a visibility query lists (eventually consistent: read until `count` are there). */
  async function listed(query: string, count: number): Promise<WorkflowExecutionInfo[]> {
    const read = async () => {
      const found: WorkflowExecutionInfo[] = [];
      for await (const workflow of client.workflow.list({ query })) found.push(workflow);
      return found;
    };
    const found = await until(
      query,
      async () => (await read()).map((workflow) => workflow.workflowId),
      (ids) => ids.length >= count,
      30_000,
    );
    expect(found).toHaveLength(count);
    return read();
  }

  it('the namespace has the eight Keyword attributes; registering again changes nothing; the CLI command names them all', async () => {
    expect(await ensureSearchAttributes(server.resources.temporal.connection, config.temporal.namespace)).toBe('present');
    const { customAttributes } = await server.resources.temporal.connection.operatorService.listSearchAttributes({
      namespace: config.temporal.namespace,
    });
    const keyword = 2; // INDEXED_VALUE_TYPE_KEYWORD
    expect(Object.fromEntries(RUN_SEARCH_ATTRIBUTES.map((key) => [key.name, customAttributes?.[key.name]]))).toEqual({
      AgentId: keyword,
      AgentName: keyword,
      PipelineId: keyword,
      PipelineName: keyword,
      RunSource: keyword,
      RunStatus: keyword,
      ScheduleId: keyword,
      WebhookId: keyword,
    });
    expect(createCommand('prod')).toBe(
      'temporal operator search-attribute create --namespace prod --name AgentId --name AgentName --name PipelineId --name PipelineName --name RunSource --name RunStatus --name ScheduleId --name WebhookId --type Keyword --type Keyword --type Keyword --type Keyword --type Keyword --type Keyword --type Keyword --type Keyword',
    );
    expect(createCommand('prod.a1b2c', true)).toBe(
      'tcld namespace search-attributes add --namespace prod.a1b2c --search-attribute "AgentId=Keyword" --search-attribute "AgentName=Keyword" --search-attribute "PipelineId=Keyword" --search-attribute "PipelineName=Keyword" --search-attribute "RunSource=Keyword" --search-attribute "RunStatus=Keyword" --search-attribute "ScheduleId=Keyword" --search-attribute "WebhookId=Keyword"',
    );
  });

  it("an agent's runs started by a person, a webhook and a schedule are listed by AgentName, with their source, status, webhook, schedule and summary", async () => {
    const agent = await agents.standInAgent('Reviewer');

    const manual = await call('POST', `/api/agents/${agent.id}/execute`, { task: 'review the PR\nin detail, with the secret plan' });
    expect(manual.status).toBe(202);
    const manualId: string = manual.body.executionId;

    const webhook = (
      await call('POST', '/api/webhooks', { name: `deploy ${randomUUID().slice(0, 8)}`, targetType: 'agent', targetId: agent.id })
    ).body;
    const hooked = await fetch(`${server.url}/hook/${webhook.token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ task: 'payload with a token abc123' }),
    });
    expect(hooked.status).toBe(202);
    const webhookRunId: string = ((await hooked.json()) as { executionId: string }).executionId;

    const schedule = await call('POST', '/api/schedules', {
      agentId: agent.id,
      taskDescription: 'nightly review',
      cronExpression: '0 9 * * *',
    });
    expect(schedule.status).toBe(201);
    scheduleIds.push(schedule.body.id);
    await client.schedule.getHandle(agentScheduleId(schedule.body.id)).trigger(ScheduleOverlapPolicy.SKIP);
    const fired = await until(
      'the schedule fired',
      async () =>
        ((await call('GET', '/api/schedules/history')).body as Array<{ id: string; scheduleId: string }>).filter(
          (row) => row.scheduleId === schedule.body.id,
        ),
      (rows) => rows.length === 1,
    );
    const scheduledId = fired[0]!.id;

    for (const id of [manualId, webhookRunId, scheduledId]) await ended(id);

    // Each run's own workflow, by the agent's name; RunStatus followed it to its end.
    const runs = await listed(`WorkflowType='agentExecutionWorkflow' AND AgentName='${agent.name}' AND RunStatus='completed'`, 3);
    const byId = Object.fromEntries(runs.map((run) => [run.workflowId, attributesOf(run.typedSearchAttributes)]));
    expect(byId).toEqual({
      [agentExecutionWorkflowId(manualId)]: { AgentId: agent.id, AgentName: agent.name, RunSource: 'manual', RunStatus: 'completed' },
      [agentExecutionWorkflowId(webhookRunId)]: {
        AgentId: agent.id,
        AgentName: agent.name,
        RunSource: 'webhook',
        RunStatus: 'completed',
        WebhookId: webhook.id,
      },
      [agentExecutionWorkflowId(scheduledId)]: {
        AgentId: agent.id,
        AgentName: agent.name,
        RunSource: 'schedule',
        RunStatus: 'completed',
        ScheduleId: schedule.body.id,
      },
    });
    // The schedule's firing carries the labels too: the agent's name lists it with its run.
    const firings = await listed(`WorkflowType='scheduledAgentRunWorkflow' AND ScheduleId='${schedule.body.id}'`, 1);
    expect(attributesOf(firings[0]!.typedSearchAttributes)).toEqual({
      AgentId: agent.id,
      AgentName: agent.name,
      RunSource: 'schedule',
      ScheduleId: schedule.body.id,
    });
    expect((await listed(`AgentName='${agent.name}'`, 4)).map((run) => run.workflowId).sort()).toEqual(
      [...Object.keys(byId), firings[0]!.workflowId].sort(),
    );
    expect((await listed(`AgentName='${agent.name}' AND RunSource='webhook'`, 1))[0]!.workflowId).toBe(
      agentExecutionWorkflowId(webhookRunId),
    );

    // Summaries: the task's first line a person wrote, never a webhook's payload; the details name the ids.
    const summaryOf = async (workflowId: string) => {
      const description = await client.workflow.getHandle(workflowId).describe();
      return { summary: await description.staticSummary(), details: await description.staticDetails() };
    };
    expect(await summaryOf(agentExecutionWorkflowId(manualId))).toEqual({
      summary: `${agent.name}: review the PR (manual)`,
      details: `execution: \`${manualId}\`  \nagent: \`${agent.id}\`  \nsource: \`manual\``,
    });
    expect((await summaryOf(agentExecutionWorkflowId(webhookRunId))).summary).toBe(`${agent.name} (webhook)`);
    expect((await summaryOf(agentExecutionWorkflowId(scheduledId))).summary).toBe(`${agent.name}: nightly review (schedule 0 9 * * *)`);
    expect((await summaryOf(firings[0]!.workflowId)).summary).toBe(`${agent.name}: nightly review (schedule 0 9 * * *)`);

    // The run's activities say what they do, with the agent's name.
    const history = await client.workflow.getHandle(agentExecutionWorkflowId(manualId)).fetchHistory();
    expect(summariesOf(history)).toEqual([
      `${agent.name}: review the PR (manual)`,
      'wait for a concurrency slot',
      `run ${agent.name}`,
      'close the record (completed), report, notify',
    ]);
  }, 240_000);

  it("a pipeline waiting for a person is listed by RunStatus='awaiting_approval' and its name; its steps by PipelineId; the history names the steps", async () => {
    const writer = await agents.standInAgent('Writer', { workingDirectory: '' });
    const reviewer = await agents.standInAgent('Reviewer', { workingDirectory: '' });
    const name = `Release ${randomUUID().slice(0, 8)}`;
    const created = await call('POST', '/api/pipelines', {
      name,
      description: '',
      workingDirectory: path.join(agents.workArea, 'release'),
      steps: [
        { agentId: writer.id, inputTemplate: '{{input}}', description: '', requiresApproval: false },
        { agentId: reviewer.id, inputTemplate: 'Review:\n{{input}}', description: '', requiresApproval: true },
      ],
    });
    expect(created.status).toBe(201);
    const pipelineId: string = created.body.id;
    const started = await call('POST', `/api/pipelines/${pipelineId}/execute`, { input: 'the release notes' });
    expect(started.status).toBe(202);
    const runId: string = started.body.executionId;
    runIds.push(runId);
    await ended(runId, 'awaiting_approval');

    const waiting = await listed(`RunStatus='awaiting_approval' AND PipelineName='${name}'`, 1);
    expect(waiting[0]!.workflowId).toBe(pipelineExecutionWorkflowId(runId));
    expect(waiting[0]!.type).toBe('pipelineExecutionWorkflow');
    expect(attributesOf(waiting[0]!.typedSearchAttributes)).toEqual({
      PipelineId: pipelineId,
      PipelineName: name,
      RunSource: 'manual',
      RunStatus: 'awaiting_approval',
    });
    const handle = client.workflow.getHandle(pipelineExecutionWorkflowId(runId));
    const description = await handle.describe();
    expect(await description.staticSummary()).toBe(`Pipeline ${name}: 2 steps (manual)`);
    expect(await description.staticDetails()).toBe(
      `run: \`${runId}\`  \npipeline: \`${pipelineId}\`  \nsource: \`manual\`  \n1. ${writer.name}  \n2. ${reviewer.name}`,
    );
    // The history so far: the steps named by their activities, the approval asked for step 2.
    expect(summariesOf(await handle.fetchHistory())).toEqual([
      `Pipeline ${name}: 2 steps (manual)`,
      'start the run',
      `budget of step 1 of 2: ${writer.name}`,
      `step 1 of 2: ${writer.name}`,
      `step 1 of 2: ${writer.name} (pipeline ${name})`,
      `step 1 of 2: ${writer.name}`,
      `ask approval for step 2 of 2: ${reviewer.name}`,
    ]);

    expect(await call('POST', `/api/pipelines/${pipelineId}/approve`)).toEqual({ status: 200, body: { approved: true } });
    await ended(runId);
    expect(await listed(`RunStatus='awaiting_approval' AND PipelineName='${name}'`, 0)).toEqual([]);
    // The run and both steps by PipelineId, each step with its own agent.
    const all = await listed(`PipelineId='${pipelineId}' AND RunStatus='completed'`, 3);
    const steps = all
      .filter((workflow) => workflow.type === 'agentExecutionWorkflow')
      .map((workflow) => attributesOf(workflow.typedSearchAttributes));
    expect(steps.sort((a, b) => String(a.AgentName).localeCompare(String(b.AgentName)))).toEqual(
      [reviewer, writer]
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((agent) => ({
          AgentId: agent.id,
          AgentName: agent.name,
          PipelineId: pipelineId,
          PipelineName: name,
          RunSource: 'manual',
          RunStatus: 'completed',
        })),
    );
    const summaries = summariesOf(await handle.fetchHistory());
    expect(summaries).toContain(`approved: step 2 of 2: ${reviewer.name}`);
    expect(summaries.slice(-3)).toEqual([
      `step 2 of 2: ${reviewer.name}`,
      `step 2 of 2: ${reviewer.name} (pipeline ${name})`,
      `step 2 of 2: ${reviewer.name}`,
    ]);
  }, 240_000);

  describe('the ranking job', () => {
    let worker: QueueWorker;
    beforeAll(async () => {
      await seedPersonIndex(700, 24);
      worker = await startRankingWorker(config, logger);
    }, 120_000);
    afterAll(async () => {
      await worker?.stop();
    });

    it('the job and each batch carry a summary: "ranking batch 3 of 3 (documents 601-700)"', async () => {
      const result = await runRankingJob({ origem: 'manual', batchSize: 300, maxChildrenInFlight: 2 });
      expect(result.processados).toBe(700);
      const summary = async (workflowId: string, runId?: string) =>
        (await client.workflow.getHandle(workflowId, runId).describe()).staticSummary();
      expect(await summary(RANKING_JOB_WORKFLOW_ID, result.runId)).toBe('ranking job (manual, batches of 300 documents)');
      const batches = await Promise.all([0, 1, 2].map((batch) => summary(`${RANKING_JOB_WORKFLOW_ID}-${result.runId}-lote-${batch}`)));
      expect(batches).toEqual([
        'ranking batch 1 of 3 (documents 1-300)',
        'ranking batch 2 of 3 (documents 301-600)',
        'ranking batch 3 of 3 (documents 601-700)',
      ]);
      const history = await client.workflow.getHandle(`${RANKING_JOB_WORKFLOW_ID}-${result.runId}-lote-2`).fetchHistory();
      expect(summariesOf(history)).toEqual(['ranking batch 3 of 3 (documents 601-700)', 'score and store up to 300 documents']);
    }, 180_000);
  });
});
