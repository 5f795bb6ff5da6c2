import type { ExecutionSource } from '../../domain/execution-status';

/**
 * The readable summaries the Temporal Web UI shows for the runs (the SDK's static summary and details
 * of a workflow, the `summary` of an activity; docs/observability.md). Workflow-safe: the client
 * builds a workflow's at start, the workflows their children's and their activities'. Short, one
 * line, and without secrets: names, ids, counts, and at most the first line of a task a person wrote
 * (TASK_LINE_MAX characters), never a webhook's payload nor another agent's output.
 */

/** A task's first line is cut here: enough to tell two runs of one agent apart. */
export const TASK_LINE_MAX = 60;

/** The first non-empty line of `text`, cut at `max` characters (an ellipsis says so). */
export function firstLine(text: string, max = TASK_LINE_MAX): string {
  const line =
    text
      .split('\n')
      .map((part) => part.trim())
      .find((part) => part !== '') ?? '';
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
}

/** Sources whose task is machine-made (a webhook's payload, another agent's result): their text stays out of Temporal. */
const UNQUOTED: readonly ExecutionSource[] = ['webhook', 'webhook-test', 'delegation'];

/** What an agent run's summary is made of. */
export interface AgentRunSummaryInput {
  agentName: string;
  source: ExecutionSource;
  /** The record's task; only its first line, and only for a source whose task a person wrote. */
  task?: string | null;
  /** A schedule's cron, when the run is a schedule's firing: "(schedule 0 9 * * *)". */
  cron?: string | null;
}

/** "Reviewer: review the PR (schedule 0 9 * * *)": the agent, the task's first line, where the run came from. */
export function agentRunSummary(input: AgentRunSummaryInput): string {
  const line = input.task && !UNQUOTED.includes(input.source) ? firstLine(input.task) : '';
  const origin = input.source === 'schedule' && input.cron ? `schedule ${input.cron}` : input.source;
  return `${input.agentName}${line ? `: ${line}` : ''} (${origin})`;
}

/** "step 2 of 5: Reviewer": a pipeline's step, 0-based `index`, 1-based in the text. */
export function stepSummary(index: number, total: number, agentName?: string | null): string {
  return `step ${index + 1} of ${total}${agentName ? `: ${agentName}` : ''}`;
}

/** A step's agent execution: "step 2 of 5: Reviewer (pipeline Release)". */
export function pipelineStepRunSummary(
  index: number,
  total: number,
  agentName: string | null | undefined,
  pipelineName: string | null | undefined,
): string {
  return `${stepSummary(index, total, agentName)}${pipelineName ? ` (pipeline ${pipelineName})` : ''}`;
}

/** "Pipeline Release: 5 steps (webhook)"; a resumed run says where it starts. */
export function pipelineRunSummary(input: {
  pipelineName: string;
  steps: number;
  source: ExecutionSource;
  resumedAtStep?: number | null;
}): string {
  const origin = input.source === 'resume' && input.resumedAtStep != null ? `resumed at step ${input.resumedAtStep + 1}` : input.source;
  return `Pipeline ${input.pipelineName}: ${input.steps} ${input.steps === 1 ? 'step' : 'steps'} (${origin})`;
}

/** Details: one `label value` line per known id, Markdown (the Web UI renders it). */
export function detailLines(entries: Record<string, string | number | null | undefined>): string {
  return Object.entries(entries)
    .filter((entry): entry is [string, string | number] => entry[1] !== null && entry[1] !== undefined && entry[1] !== '')
    .map(([label, value]) => `${label}: \`${value}\``)
    .join('  \n');
}

/** 14000 -> "14 000": the grouping the panel uses. */
export function grouped(value: number): string {
  return String(Math.trunc(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
}

/** "ranking batch 8 of 150 (documents 14 001-16 000)": 0-based `batch`, 1-based in the text; the total may be unknown (0). */
export function rankingBatchSummary(batch: number, batchSize: number, totalDocuments: number): string {
  const first = batch * batchSize + 1;
  const last = totalDocuments > 0 ? Math.min((batch + 1) * batchSize, totalDocuments) : (batch + 1) * batchSize;
  const batches = totalDocuments > 0 ? ` of ${grouped(Math.ceil(totalDocuments / batchSize))}` : '';
  return `ranking batch ${grouped(batch + 1)}${batches} (documents ${grouped(first)}-${grouped(last)})`;
}
