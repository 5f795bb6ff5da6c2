import fs from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { TASK_QUEUES } from '../../temporal/task-queues';
import { RANKING_JOB_WORKFLOW_ID } from '../../temporal/contracts/ranking-job';

const fixtures = path.resolve(__dirname, '../fixtures/histories');
const histories = fs.readdirSync(fixtures).filter((file) => file.endsWith('.json'));

/** The queue whose workflows a history belongs to: agent executions and pipeline runs run on `agents`, the rest on `ranking`. */
function queueOf(file: string) {
  return file.startsWith('agent-') || file.startsWith('pipeline-') ? TASK_QUEUES.agents : TASK_QUEUES.ranking;
}

/** Histories do not hold the workflow id; the job names its children after it, so replay needs it. */
function workflowIdOf(file: string): string | undefined {
  return file.startsWith('ranking-job-') ? RANKING_JOB_WORKFLOW_ID : undefined;
}

/**
 * Replays recorded histories (scripts/record-workflow-histories.ts, scripts/record-agent-histories.ts,
 * scripts/record-reconciler-histories.ts, scripts/record-schedule-histories.ts,
 * scripts/record-pipeline-histories.ts) against today's workflow code:
 * a change that would break running workflows (non-determinism) fails here, before production.
 */
interface RecordedEvent {
  eventType: string;
  activityTaskScheduledEventAttributes?: { activityType: { name: string } };
  markerRecordedEventAttributes?: { markerName: string; details: Record<string, { payloads: Array<{ data: string }> }> };
}

/** A recorded history's event types, activity types and patch ids (the patch markers' payloads, decoded). */
function recorded(file: string): { events: string[]; activities: string[]; patches: string[] } {
  const { events } = JSON.parse(fs.readFileSync(path.join(fixtures, file), 'utf8')) as { events: RecordedEvent[] };
  const patches = events.flatMap((event) =>
    (event.markerRecordedEventAttributes?.details['patch-data']?.payloads ?? []).map(
      (payload) => (JSON.parse(Buffer.from(payload.data, 'base64').toString('utf8')) as { id: string }).id,
    ),
  );
  return {
    events: events.map((event) => event.eventType),
    activities: events.flatMap((event) =>
      event.activityTaskScheduledEventAttributes ? [event.activityTaskScheduledEventAttributes.activityType.name] : [],
    ),
    patches,
  };
}

/** A history's RunStatus values in order (the start's, then each upsert), its commands' summaries and its patch ids. */
function searchable(file: string): { statuses: string[]; summaries: string[]; patches: string[] } {
  type Payload = { data: string };
  type Fields = { indexedFields?: Record<string, Payload> };
  const { events } = JSON.parse(fs.readFileSync(path.join(fixtures, file), 'utf8')) as {
    events: Array<{
      userMetadata?: { summary?: Payload };
      workflowExecutionStartedEventAttributes?: { searchAttributes?: Fields };
      upsertWorkflowSearchAttributesEventAttributes?: { searchAttributes?: Fields };
      markerRecordedEventAttributes?: { details: Record<string, { payloads: Payload[] }> };
    }>;
  };
  const decoded = (payload: Payload | undefined): unknown =>
    payload ? JSON.parse(Buffer.from(payload.data, 'base64').toString('utf8')) : undefined;
  const statuses = events.flatMap((event) => {
    const fields = (event.workflowExecutionStartedEventAttributes ?? event.upsertWorkflowSearchAttributesEventAttributes)?.searchAttributes
      ?.indexedFields;
    return fields?.RunStatus ? [decoded(fields.RunStatus) as string] : [];
  });
  const summaries = events.flatMap((event) => (event.userMetadata?.summary ? [decoded(event.userMetadata.summary) as string] : []));
  const patches = events.flatMap((event) =>
    (event.markerRecordedEventAttributes?.details['patch-data']?.payloads ?? []).map((payload) => (decoded(payload) as { id: string }).id),
  );
  return { statuses, summaries, patches };
}

describe('workflow replay', () => {
  it('has a recorded history for every workflow type', () => {
    expect(histories.sort()).toEqual([
      'agent-execution-cancelled.json',
      'agent-execution-completed.json',
      'agent-execution-delegated-child.json',
      'agent-execution-delegated.json',
      'agent-execution-failed.json',
      'agent-execution-redelivered.json',
      'agent-execution-retried.json',
      'agent-execution-searchable-delegated.json',
      'agent-execution-searchable-retried.json',
      'agent-execution-timed-out.json',
      'agent-executions-reconciler-loop.json',
      'agent-executions-reconciler.json',
      'agent-schedule-run-completed.json',
      'agent-uploads-retention.json',
      'pipeline-execution-approval-timeout.json',
      'pipeline-execution-approved.json',
      'pipeline-execution-budget-approved.json',
      'pipeline-execution-cancelled.json',
      'pipeline-execution-failed.json',
      'pipeline-execution-rejected.json',
      'pipeline-execution-repository.json',
      'pipeline-execution-resumed.json',
      'pipeline-execution-searchable-approved.json',
      'pipeline-execution-searchable-cancelled.json',
      'probe.json',
      'ranking-batch.json',
      'ranking-job-first-execution-before-parallel-starts.json',
      'ranking-job-first-execution.json',
      'ranking-job-last-execution-before-parallel-starts.json',
      'ranking-job-last-execution.json',
      'ranking-runs-reconciler-loop.json',
      'ranking-runs-reconciler.json',
      'scheduled-ranking.json',
    ]);
  });

  it('replays a delegation both ways: started by an activity before agent-delegation-child, by the workflow as its child after', () => {
    const before = recorded('agent-execution-delegated.json');
    expect(before.activities).toContain('delegateResult');
    expect(before.patches).not.toContain('agent-delegation-child');
    expect(before.events).not.toContain('EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED');
    const after = recorded('agent-execution-delegated-child.json');
    expect(after.patches).toContain('agent-delegation-child');
    expect(after.activities).toContain('storeDelegatedRun');
    expect(after.activities).not.toContain('delegateResult');
    expect(after.events.slice(-6)).toEqual([
      'EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED',
      'EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED',
      'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED',
      'EVENT_TYPE_WORKFLOW_TASK_STARTED',
      'EVENT_TYPE_WORKFLOW_TASK_COMPLETED',
      'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
    ]);
  });

  it('replays ranking jobs from before ranking-parallel-starts (no marker) and after (marker in the first execution only)', () => {
    const after = recorded('ranking-job-first-execution.json');
    expect(after.patches).toEqual(['ranking-parallel-starts']);
    // Its children (2 at a time in the recording) start in one workflow task; before, one per task.
    const startedTogether = (events: string[]) =>
      events.some((event, i) => event === 'EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED' && events[i + 1] === event);
    expect(startedTogether(after.events)).toBe(true);
    expect(startedTogether(recorded('ranking-job-first-execution-before-parallel-starts.json').events)).toBe(false);
    // A continued execution takes the shape its state carries: it asks for no patch.
    expect(recorded('ranking-job-last-execution.json').patches).toEqual([]);
    expect(recorded('ranking-job-first-execution-before-parallel-starts.json').patches).toEqual([]);
    expect(recorded('ranking-job-last-execution-before-parallel-starts.json').patches).toEqual([]);
  });

  it('replays RunStatus upserts behind run-search-attributes, and the summaries recorded with the commands', () => {
    const { statuses, summaries, patches } = searchable('pipeline-execution-searchable-approved.json');
    expect(patches).toContain('run-search-attributes');
    expect(statuses).toEqual(['queued', 'running', 'awaiting_approval', 'running', 'completed']);
    // The step's local activities (markers) and child workflows carry the step's summary.
    expect(summaries.filter((summary) => /^step \d of 2: /.test(summary))).toHaveLength(6);
    expect(searchable('pipeline-execution-searchable-cancelled.json').statuses).toEqual(['queued', 'running', 'canceled']);
    expect(searchable('agent-execution-searchable-retried.json').statuses).toEqual([
      'queued',
      'running',
      'retrying',
      'queued',
      'running',
      'error',
    ]);
    expect(searchable('agent-execution-searchable-delegated.json').statuses).toEqual(['queued', 'running', 'completed']);
    // Histories recorded before the patch have neither: they replay without the upserts (below).
    expect(searchable('pipeline-execution-approved.json')).toEqual({
      statuses: [],
      summaries: [],
      patches: expect.not.arrayContaining(['run-search-attributes']),
    });
  });

  it.each(histories)('replays %s deterministically', async (file) => {
    // Built by @temporalio/proto's own classes: historyFromJSON uses another protobufjs copy and rejects them.
    const history = temporal.api.history.v1.History.fromObject(JSON.parse(fs.readFileSync(path.join(fixtures, file), 'utf8')));
    await expect(
      Worker.runReplayHistory(
        { workflowsPath: require.resolve(`../../workflows/${queueOf(file)}`), replayName: file },
        history,
        workflowIdOf(file),
      ),
    ).resolves.toBeUndefined();
  });
});
