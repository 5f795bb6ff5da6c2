import { z } from 'zod';
import type { ExecutionAttempt } from '../../db/execution-attempts';
import type { Execution, ExecutionSummary } from '../../db/executions-store';
import { EXECUTION_KINDS, EXECUTION_SOURCES, EXECUTION_STATUSES } from '../../domain/execution-status';
import { isoDateTime } from '../view-schema';
import { AGENT_CLI_NAMES } from '../../domain/agent-clis';

const nullableInt = z.number().int().nullable();
const nullableText = z.string().nullable();
/** Tokens the agent's CLI reported (docs/statistics.md); null when it reported none. */
const tokenFields = { inputTokens: nullableInt, outputTokens: nullableInt, cacheReadTokens: nullableInt, cacheCreationTokens: nullableInt };

/** A context file as an execution record keeps it: the upload answer's shape (contract 3.13). */
export const executionContextFileSchema = z.object({
  originalName: z.string(),
  path: z.string().meta({ description: 'Absolute path of the upload on the server' }),
  size: z.number().int().meta({ description: 'Size in bytes' }),
});

/** The fields every view of an execution has; the schema with an id is built from them. */
const executionFields = {
  id: z.string(),
  executionId: z.string().meta({ description: "The id the WebSocket messages carry: the record's own id" }),
  type: z.enum(EXECUTION_KINDS),
  agentId: nullableText,
  agentName: nullableText.meta({ description: "The agent's name at start; null for a pipeline run" }),
  pipelineId: nullableText,
  pipelineName: nullableText.meta({ description: "A pipeline run's name; null for an agent run" }),
  task: z.string().meta({ description: 'The task as run (context files listed after it)' }),
  input: nullableText.meta({ description: "A pipeline run's input (its task); null for an agent run" }),
  instructions: z.string().meta({ description: "The user's additional instructions for this run ('' when none)" }),
  status: z.enum(EXECUTION_STATUSES),
  source: z.enum(EXECUTION_SOURCES).meta({ description: 'What started it' }),
  scheduleId: nullableText,
  webhookId: nullableText.meta({ description: 'The webhook that started it (source `webhook` or `webhook-test`)' }),
  workingDirectory: z.string(),
  model: z.string().meta({ description: "The model the run was given; '': the CLI's own default" }),
  cli: z
    .enum(AGENT_CLI_NAMES)
    .nullable()
    .meta({ description: "The coding-agent CLI an agent run used (its agent's config.cli when queued); null for a pipeline run" }),
  startedAt: isoDateTime.meta({ description: 'When it started running; a record that never ran answers when it was queued' }),
  endedAt: isoDateTime.nullable().meta({ description: 'null while it runs' }),
  createdAt: isoDateTime.meta({ description: 'When it was queued' }),
  costUsd: z.number().nullable(),
  totalCostUsd: z.number().nullable().meta({ description: 'The same as costUsd' }),
  durationMs: nullableInt,
  numTurns: nullableInt,
  sessionId: nullableText.meta({ description: "The agent's session (POST /api/agents/{id}/continue resumes it)" }),
  parentSessionId: nullableText.meta({ description: 'The session a `continue` resumed' }),
  parentExecutionId: nullableText.meta({ description: 'The execution a `retry` or `continue` came from' }),
  result: nullableText.meta({ description: "The agent's answer; in lists its first 1000 characters, whole in the detail" }),
  error: nullableText,
  exitCode: nullableInt.meta({ description: "The agent process's exit code" }),
  attempt: z.number().int().meta({ description: 'Runs of this record so far (1 + automatic retries)' }),
  delegatedFrom: nullableText.meta({ description: 'The execution whose result was delegated to this one' }),
  reportFile: nullableText.meta({ description: 'The Markdown report (GET /api/reports/{filename})' }),
  failedAtStep: nullableInt.meta({ description: 'A pipeline run: the 0-based step that failed' }),
  resumedFrom: nullableText.meta({ description: 'A pipeline run: the run it resumed' }),
  resumedAtStep: nullableInt.meta({ description: 'A pipeline run: the 0-based step it resumed at' }),
  ...tokenFields,
  repoName: nullableText.meta({ description: 'A run in a repository: its name' }),
  repoBranch: nullableText,
  repoCommit: nullableText.meta({ description: 'The commit the run made (pushed unless the error says otherwise)' }),
  contextFiles: z.array(executionContextFileSchema).meta({ description: 'The uploads named in the prompt; [] when none' }),
  host: nullableText.meta({ description: 'The agents host the run was pinned to; null before it took its slot' }),
};

/**
 * The execution as the admin panel reads it (contract 3.8 and 5.6; docs/executions.md, "The view"):
 * one shape for the recent list, the history items, the active list and the detail. Times are ISO
 * strings, costs numbers or null.
 */
export const executionViewSchema = z.object(executionFields).meta({ id: 'Execution' });
export type ExecutionView = z.infer<typeof executionViewSchema>;

/** A step of a pipeline run's detail (contract 3.8), from the step's agent record. */
export const pipelineRunStepViewSchema = z
  .object({
    stepIndex: z.number().int().meta({ description: '0-based' }),
    executionId: z.string().meta({ description: "The step's own agent execution" }),
    agentId: nullableText,
    agentName: z.string(),
    status: z.enum(EXECUTION_STATUSES),
    startedAt: isoDateTime.nullable(),
    endedAt: isoDateTime.nullable(),
    costUsd: z.number().meta({ description: '0 when none was reported' }),
    durationMs: nullableInt,
    numTurns: nullableInt,
    sessionId: nullableText,
    cli: z.enum(AGENT_CLI_NAMES).nullable().meta({ description: "The coding-agent CLI the step's agent ran" }),
    prompt: z.string().meta({ description: 'The prompt the step was given' }),
    result: nullableText,
    error: nullableText,
    ...tokenFields,
  })
  .meta({ id: 'ExecutionPipelineStep' });
export type PipelineRunStepView = z.infer<typeof pipelineRunStepViewSchema>;

/**
 * An attempt of an agent run (docs/executions.md, "Attempts"): `retryOnFailure` runs a failed run again
 * on the same record, and each attempt's cost counts in the record's `costUsd`.
 */
export const executionAttemptViewSchema = z
  .object({
    attempt: z.number().int().meta({ description: '1 for the first run' }),
    status: z.enum(EXECUTION_STATUSES).meta({
      description:
        "How the attempt ended: `error` for one that was retried. The last is the record's current attempt, with the record's status (`running`; `retrying` or `queued` while it waits to start)",
    }),
    error: nullableText.meta({ description: 'Why it failed' }),
    costUsd: z
      .number()
      .nullable()
      .meta({ description: 'What it cost; null: nothing reported, or not known (an attempt recorded before migration 0030)' }),
    startedAt: isoDateTime.nullable().meta({ description: 'null for an attempt that never started, or not known' }),
    endedAt: isoDateTime.nullable(),
  })
  .meta({ id: 'ExecutionAttempt' });
export type ExecutionAttemptView = z.infer<typeof executionAttemptViewSchema>;

/** The detail adds the stored output and the live `seq` it ends at (a late client catches up from it). */
export const executionDetailViewSchema = z
  .object({
    ...executionFields,
    output: z.string().meta({ description: "The agent's stored output (at most 1 000 000 characters)" }),
    outputTruncated: z.boolean(),
    outputSeq: z.number().int().meta({ description: 'The seq of the last live output chunk `output` contains (0: none)' }),
    /** A pipeline run: its steps, and the input its current (or failed) step was given (resume starts there). */
    steps: z.array(pipelineRunStepViewSchema).optional().meta({ description: 'A pipeline run only: its steps' }),
    lastStepInput: nullableText.optional().meta({ description: 'A pipeline run only: the input its current (or failed) step was given' }),
    attempts: z.array(executionAttemptViewSchema).optional().meta({
      description: 'An agent run only: its attempts, 1 to `attempt`, each with what it cost (`costUsd` is their sum)',
    }),
  })
  .meta({ id: 'ExecutionDetail' });
export type ExecutionDetailView = z.infer<typeof executionDetailViewSchema>;

/** An item of GET /executions/active: the view, plus the agent's name where the panel's terminal filter looks. */
export const activeExecutionViewSchema = z
  .object({
    ...executionFields,
    agentConfig: z
      .object({ agent_name: z.string().meta({ description: "The agent's (or pipeline's) name" }), model: z.string() })
      .meta({ description: "Where the panel's terminal filter reads the name" }),
  })
  .meta({ id: 'ActiveExecution' });
export type ActiveExecutionView = z.infer<typeof activeExecutionViewSchema>;

const iso = (date: Date | null): string | null => (date === null ? null : date.toISOString());

export function executionView(record: ExecutionSummary): ExecutionView {
  const pipeline = record.kind === 'pipeline';
  return {
    id: record.id,
    executionId: record.id,
    type: record.kind,
    agentId: record.agentId,
    agentName: pipeline ? null : record.agentName,
    pipelineId: record.pipelineId,
    pipelineName: pipeline ? record.agentName : null,
    task: record.task,
    input: pipeline ? record.task : null,
    instructions: record.instructions,
    status: record.status,
    source: record.source,
    scheduleId: record.scheduleId,
    webhookId: record.webhookId,
    workingDirectory: record.workingDirectory,
    model: record.model,
    cli: record.cli,
    startedAt: (record.startedAt ?? record.createdAt).toISOString(),
    endedAt: iso(record.finishedAt),
    createdAt: record.createdAt.toISOString(),
    costUsd: record.costUsd,
    totalCostUsd: record.costUsd,
    durationMs: record.durationMs,
    numTurns: record.turns,
    sessionId: record.sessionId,
    parentSessionId: record.parentSessionId,
    parentExecutionId: record.parentExecutionId,
    result: record.result,
    error: record.error,
    exitCode: record.exitCode,
    attempt: record.attempt,
    delegatedFrom: record.delegatedFrom,
    reportFile: record.reportFile,
    failedAtStep: record.failedAtStep,
    resumedFrom: record.resumedFrom,
    resumedAtStep: record.resumedAtStep,
    ...tokensOf(record),
    repoName: record.repoName,
    repoBranch: record.repoBranch,
    repoCommit: record.repoCommit,
    contextFiles: record.contextFiles ?? [],
    host: record.host,
  };
}

function tokensOf(
  record: ExecutionSummary,
): Pick<ExecutionView, 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheCreationTokens'> {
  return {
    inputTokens: record.inputTokens,
    outputTokens: record.outputTokens,
    cacheReadTokens: record.cacheReadTokens,
    cacheCreationTokens: record.cacheCreationTokens,
  };
}

export function pipelineRunStepView(step: Execution): PipelineRunStepView {
  return {
    stepIndex: step.stepIndex ?? 0,
    executionId: step.id,
    agentId: step.agentId,
    agentName: step.agentName,
    status: step.status,
    startedAt: iso(step.startedAt),
    endedAt: iso(step.finishedAt),
    costUsd: step.costUsd ?? 0,
    durationMs: step.durationMs,
    numTurns: step.turns,
    sessionId: step.sessionId,
    cli: step.cli,
    prompt: step.task,
    result: step.result,
    error: step.error,
    ...tokensOf(step),
  };
}

/** An attempt as its row keeps it; an earlier attempt without a row (before migration 0030) failed, and nothing else is known. */
function storedAttemptView(attempt: number, row: ExecutionAttempt | undefined): ExecutionAttemptView {
  return {
    attempt,
    status: row?.status ?? 'error',
    error: row?.error ?? null,
    costUsd: row?.costUsd ?? null,
    startedAt: iso(row?.startedAt ?? null),
    endedAt: iso(row?.endedAt ?? null),
  };
}

/** What the attempts are read from, besides their rows. */
type AttemptsRecord = Pick<Execution, 'attempt' | 'status' | 'error' | 'costUsd' | 'startedAt' | 'finishedAt'>;

/** The attempt the record is on: ended (its row, else the record itself: a record run once), running, or waiting to start. */
function currentAttemptView(record: AttemptsRecord, row: ExecutionAttempt | undefined): ExecutionAttemptView {
  if (record.finishedAt !== null) {
    if (row?.status) return storedAttemptView(record.attempt, row);
    return {
      attempt: record.attempt,
      status: record.status,
      error: record.error,
      costUsd: record.costUsd,
      startedAt: iso(record.startedAt),
      endedAt: iso(record.finishedAt),
    };
  }
  const running = record.status === 'running';
  return {
    attempt: record.attempt,
    status: record.status,
    error: null,
    costUsd: running ? (row?.costUsd ?? null) : null,
    startedAt: running ? iso(record.startedAt) : null,
    endedAt: running ? iso(row?.endedAt ?? null) : null,
  };
}

/** An agent run's attempts, 1 to `record.attempt`, from the rows written as they ended (db/execution-attempts.ts). */
export function executionAttemptViews(record: AttemptsRecord, rows: readonly ExecutionAttempt[]): ExecutionAttemptView[] {
  const byNumber = new Map(rows.map((row) => [row.attempt, row]));
  return Array.from({ length: Math.max(1, record.attempt) }, (_, index) => {
    const attempt = index + 1;
    return attempt < record.attempt ? storedAttemptView(attempt, byNumber.get(attempt)) : currentAttemptView(record, byNumber.get(attempt));
  });
}

/** What the detail shows beside the record: a pipeline run's steps, an agent run's attempts. */
export interface ExecutionDetailParts {
  steps?: Execution[];
  attempts?: readonly ExecutionAttempt[];
}

/** The detail: `result` falls back to the stored output for records written before results were kept. */
export function executionDetailView(record: Execution, parts: ExecutionDetailParts = {}): ExecutionDetailView {
  const view = executionView(record);
  return {
    ...view,
    ...(record.kind === 'pipeline'
      ? { steps: (parts.steps ?? []).map(pipelineRunStepView), lastStepInput: record.lastStepInput }
      : { attempts: executionAttemptViews(record, parts.attempts ?? []) }),
    result: record.result ?? (record.output === '' ? null : record.output),
    output: record.output,
    outputTruncated: record.outputTruncated,
    outputSeq: record.outputSeq,
  };
}

export function activeExecutionView(record: ExecutionSummary): ActiveExecutionView {
  return { ...executionView(record), agentConfig: { agent_name: record.agentName, model: record.model } };
}
