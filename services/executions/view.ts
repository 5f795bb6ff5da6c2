import type { Execution, ExecutionSummary } from '../../db/executions-store';

/**
 * The execution as the admin panel reads it (contract 3.8 and 5.6; docs/executions.md, "The view"):
 * one shape for the recent list, the history items, the active list and the detail. Times are ISO
 * strings, costs numbers or null.
 */
export interface ExecutionView {
  id: string;
  /** The id the WebSocket messages carry: the record's own id. */
  executionId: string;
  type: 'agent' | 'pipeline';
  agentId: string | null;
  agentName: string | null;
  pipelineId: string | null;
  /** A pipeline run's name (stored in the record's name); null for an agent run. */
  pipelineName: string | null;
  task: string;
  /** A pipeline run's input (its task); null for an agent run. */
  input: string | null;
  instructions: string;
  status: Execution['status'];
  source: Execution['source'];
  scheduleId: string | null;
  /** The webhook that started it (source `webhook` or `webhook-test`). */
  webhookId: string | null;
  workingDirectory: string;
  model: string;
  /** When it started running; a record that never ran (queued, or canceled while queued) answers when it was queued. */
  startedAt: string;
  endedAt: string | null;
  createdAt: string;
  costUsd: number | null;
  /** The same as `costUsd` (the panel reads `costUsd || totalCostUsd`). */
  totalCostUsd: number | null;
  durationMs: number | null;
  numTurns: number | null;
  sessionId: string | null;
  parentSessionId: string | null;
  parentExecutionId: string | null;
  result: string | null;
  error: string | null;
  exitCode: number | null;
  attempt: number;
  delegatedFrom: string | null;
  reportFile: string | null;
  /** Pipeline runs (docs/pipelines.md): the failed step, the run resumed and the step it resumed at. */
  failedAtStep: number | null;
  resumedFrom: string | null;
  resumedAtStep: number | null;
  /** Tokens the agent's CLI reported for the run (docs/statistics.md); null when it reported none (a pipeline run's are its steps'). */
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens: number | null;
  cacheCreationTokens: number | null;
  /** A run in a repository (docs/repositories.md): its name, branch and the commit made (pushed unless the error says otherwise). */
  repoName: string | null;
  repoBranch: string | null;
  repoCommit: string | null;
  /** The uploads named in the prompt (docs/uploads.md), as POST /uploads answered them; [] when none. */
  contextFiles: Array<{ originalName: string; path: string; size: number }>;
  /** The agents host the run was pinned to (docs/multi-host.md); null before it took its slot. */
  host: string | null;
}

/** A step of a pipeline run's detail (contract 3.8), from the step's agent record. */
export interface PipelineStepView {
  stepIndex: number;
  executionId: string;
  agentId: string | null;
  agentName: string;
  status: Execution['status'];
  startedAt: string | null;
  endedAt: string | null;
  costUsd: number;
  durationMs: number | null;
  numTurns: number | null;
  sessionId: string | null;
  prompt: string;
  result: string | null;
  error: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens: number | null;
  cacheCreationTokens: number | null;
}

/** The detail adds the stored output and the live `seq` it ends at (a late client catches up from it). */
export interface ExecutionDetailView extends ExecutionView {
  output: string;
  outputTruncated: boolean;
  outputSeq: number;
  /** A pipeline run: its steps, and the input its current (or failed) step was given (resume starts there). */
  steps?: PipelineStepView[];
  lastStepInput?: string | null;
}

/** An item of GET /executions/active: the view, plus the agent's name where the panel's terminal filter looks. */
export interface ActiveExecutionView extends ExecutionView {
  agentConfig: { agent_name: string; model: string };
}

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

function tokensOf(record: ExecutionSummary): Pick<ExecutionView, 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheCreationTokens'> {
  return {
    inputTokens: record.inputTokens,
    outputTokens: record.outputTokens,
    cacheReadTokens: record.cacheReadTokens,
    cacheCreationTokens: record.cacheCreationTokens,
  };
}

export function pipelineStepView(step: Execution): PipelineStepView {
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
    prompt: step.task,
    result: step.result,
    error: step.error,
    ...tokensOf(step),
  };
}

/** The detail: `result` falls back to the stored output for records written before results were kept. */
export function executionDetailView(record: Execution, steps?: Execution[]): ExecutionDetailView {
  const view = executionView(record);
  return {
    ...view,
    ...(record.kind === 'pipeline' ? { steps: (steps ?? []).map(pipelineStepView), lastStepInput: record.lastStepInput } : {}),
    result: record.result ?? (record.output === '' ? null : record.output),
    output: record.output,
    outputTruncated: record.outputTruncated,
    outputSeq: record.outputSeq,
  };
}

export function activeExecutionView(record: ExecutionSummary): ActiveExecutionView {
  return { ...executionView(record), agentConfig: { agent_name: record.agentName, model: record.model } };
}
