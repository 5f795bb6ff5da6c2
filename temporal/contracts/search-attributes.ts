import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair, type TypedSearchAttributes } from '@temporalio/common';
import type { ExecutionSource, ExecutionStatus } from '../../domain/execution-status';

/**
 * The custom search attributes of the runs (docs/observability.md, "Finding runs in the Temporal Web
 * UI"): what a person filters the Web UI's workflow list and `temporal workflow list --query` by.
 * Workflow-safe: the client sets them at start, the workflows read them back and keep RunStatus
 * current. All Keyword: exact match (`AgentName='Reviewer'`), and the dev server's SQLite visibility
 * has room for 10 Keywords per namespace, only 3 Texts. Registered by temporal/search-attributes.ts.
 */

export const AGENT_ID = defineSearchAttributeKey('AgentId', SearchAttributeType.KEYWORD);
export const AGENT_NAME = defineSearchAttributeKey('AgentName', SearchAttributeType.KEYWORD);
export const PIPELINE_ID = defineSearchAttributeKey('PipelineId', SearchAttributeType.KEYWORD);
export const PIPELINE_NAME = defineSearchAttributeKey('PipelineName', SearchAttributeType.KEYWORD);
/** The record's source: manual, schedule, webhook, webhook-test, retry, continue, delegation, resume. */
export const RUN_SOURCE = defineSearchAttributeKey('RunSource', SearchAttributeType.KEYWORD);
/** The record's status as the workflow last knew it (a record ended outside its workflow keeps the last one). */
export const RUN_STATUS = defineSearchAttributeKey('RunStatus', SearchAttributeType.KEYWORD);
export const SCHEDULE_ID = defineSearchAttributeKey('ScheduleId', SearchAttributeType.KEYWORD);
export const WEBHOOK_ID = defineSearchAttributeKey('WebhookId', SearchAttributeType.KEYWORD);

/** Every custom attribute, as registered. */
export const RUN_SEARCH_ATTRIBUTES = [
  AGENT_ID,
  AGENT_NAME,
  PIPELINE_ID,
  PIPELINE_NAME,
  RUN_SOURCE,
  RUN_STATUS,
  SCHEDULE_ID,
  WEBHOOK_ID,
] as const;

/** What a run is, as far as its attributes say; an absent or empty value is not set. */
export interface RunLabels {
  agentId?: string | null;
  agentName?: string | null;
  pipelineId?: string | null;
  pipelineName?: string | null;
  source?: ExecutionSource | null;
  status?: ExecutionStatus | null;
  scheduleId?: string | null;
  webhookId?: string | null;
}

const KEYS = {
  agentId: AGENT_ID,
  agentName: AGENT_NAME,
  pipelineId: PIPELINE_ID,
  pipelineName: PIPELINE_NAME,
  source: RUN_SOURCE,
  status: RUN_STATUS,
  scheduleId: SCHEDULE_ID,
  webhookId: WEBHOOK_ID,
} as const satisfies Record<keyof RunLabels, (typeof RUN_SEARCH_ATTRIBUTES)[number]>;

/** Temporal's default cap on one Keyword value is 2 KiB; names here are far shorter, but a value must never fail a start. */
const KEYWORD_MAX = 255;

/** The start options' `typedSearchAttributes` of a run. */
export function runSearchAttributes(labels: RunLabels): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [];
  for (const [field, key] of Object.entries(KEYS) as [keyof RunLabels, (typeof KEYS)[keyof RunLabels]][]) {
    const value = labels[field];
    if (typeof value === 'string' && value !== '') pairs.push({ key, value: value.slice(0, KEYWORD_MAX) });
  }
  return pairs;
}

/** The labels a workflow was started with (its own `workflowInfo().typedSearchAttributes`), to pass on to its children. */
export function labelsOf(attributes: TypedSearchAttributes): RunLabels {
  const labels: RunLabels = {};
  for (const [field, key] of Object.entries(KEYS) as [keyof RunLabels, (typeof KEYS)[keyof RunLabels]][]) {
    const value = attributes.get(key);
    if (typeof value === 'string' && value !== '') (labels as Record<string, string>)[field] = value;
  }
  return labels;
}
