import { randomUUID } from 'node:crypto';
import { and, asc, count, desc, eq, getTableColumns, gte, inArray, isNull, like, lt, notInArray, or, sql, type SQL } from 'drizzle-orm';
import type { Database } from './index';
import {
  ACTIVE_STATUSES,
  type ExecutionKind,
  type ExecutionSource,
  type ExecutionStatus,
  type FinalStatus,
} from '../domain/execution-status';
import { DEFAULT_AGENT_CLI, type AgentCliName } from '../domain/agent-clis';
import { addToDailyCost, attemptCosts, closeLastAttempt } from './execution-attempts';
import { agents, executionAttempts, executions, type StoredContextFile } from './schema';

/** The execution record and its store (docs/executions.md). */

export type Execution = typeof executions.$inferSelect;
/** A history or recent-list item: the public record without its output (up to megabytes each). */
export type ExecutionSummary = Omit<Execution, 'output' | 'clientId' | 'waitingHeartbeatAt'>;

/**
 * The most output characters a record keeps. MEDIUMTEXT holds 16 MiB; at up to 4 bytes per
 * character 1 000 000 characters stay well under it and under max_allowed_packet.
 */
export const OUTPUT_MAX_CHARS = 1_000_000;
export const OUTPUT_TRUNCATED_NOTE = `\n[output truncated: only the first ${OUTPUT_MAX_CHARS} characters are kept]\n`;

export interface NewExecution {
  /** The caller's id (e.g. chosen before starting the workflow); a new UUID when absent. */
  id?: string;
  kind: ExecutionKind;
  agentId: string | null;
  agentName: string;
  pipelineId?: string | null;
  source: ExecutionSource;
  scheduleId?: string | null;
  clientId?: string | null;
  task: string;
  instructions: string;
  workingDirectory: string;
  model: string;
  /** An agent run's CLI (its agent's; a continue's or retry's: its parent's); Claude Code when absent. A pipeline run has none. */
  cli?: AgentCliName;
  /** The session continued (source `continue`); else null until the agent reports one. */
  sessionId?: string | null;
  parentExecutionId?: string | null;
  /** The session a `continue` resumes (the panel's `parentSessionId`). */
  parentSessionId?: string | null;
  /** The execution whose result this one was delegated from, and how deep the chain is. */
  delegatedFrom?: string | null;
  delegationDepth?: number;
  /** A pipeline step's agent execution: its run and 0-based step (docs/pipelines.md). */
  pipelineExecutionId?: string | null;
  stepIndex?: number | null;
  /** A resumed pipeline run: the run it resumes, the step it starts at, and that step's input. */
  resumedFrom?: string | null;
  resumedAtStep?: number | null;
  lastStepInput?: string | null;
  /** The webhook whose call started it. */
  webhookId?: string | null;
  /** A run in a repository: its name and the branch to check out (docs/repositories.md). */
  repoName?: string | null;
  repoBranch?: string | null;
  /** Uploaded files named in the prompt (docs/uploads.md). */
  contextFiles?: StoredContextFile[] | null;
  createdAt?: Date;
}

/** How much of `result` a list item carries: a preview; the detail has it whole (up to OUTPUT_MAX_CHARS). */
export const RESULT_PREVIEW_CHARS = 1_000;

/** Every column but `output`, `clientId` and `waitingHeartbeatAt`; `result` cut to its preview. */
const summaryColumns = (() => {
  const { output: _output, clientId: _clientId, waitingHeartbeatAt: _waiting, ...columns } = getTableColumns(executions);
  return { ...columns, result: sql<string | null>`LEFT(${executions.result}, ${RESULT_PREVIEW_CHARS})` };
})();

/** Cuts `output` to the cap, adding the note once when it had to cut. */
export function boundOutput(output: string): { output: string; truncated: boolean } {
  if (output.length <= OUTPUT_MAX_CHARS) return { output, truncated: false };
  return { output: output.slice(0, OUTPUT_MAX_CHARS) + OUTPUT_TRUNCATED_NOTE, truncated: true };
}

/**
 * Stores a new record as `queued`. Idempotent on the id: a second call with the same id (a retried
 * activity) leaves the first record as it is and returns it.
 */
export async function createExecution(db: Database, input: NewExecution): Promise<Execution> {
  const id = input.id ?? randomUUID();
  await db
    .insert(executions)
    .values({
      id,
      kind: input.kind,
      agentId: input.agentId,
      agentName: input.agentName,
      pipelineId: input.pipelineId ?? null,
      status: 'queued',
      source: input.source,
      scheduleId: input.scheduleId ?? null,
      clientId: input.clientId ?? null,
      task: input.task,
      instructions: input.instructions,
      workingDirectory: input.workingDirectory,
      model: input.model,
      cli: input.kind === 'pipeline' ? null : (input.cli ?? DEFAULT_AGENT_CLI),
      sessionId: input.sessionId ?? null,
      parentExecutionId: input.parentExecutionId ?? null,
      parentSessionId: input.parentSessionId ?? null,
      delegatedFrom: input.delegatedFrom ?? null,
      delegationDepth: input.delegationDepth ?? 0,
      pipelineExecutionId: input.pipelineExecutionId ?? null,
      stepIndex: input.stepIndex ?? null,
      resumedFrom: input.resumedFrom ?? null,
      resumedAtStep: input.resumedAtStep ?? null,
      lastStepInput: input.lastStepInput ?? null,
      webhookId: input.webhookId ?? null,
      repoName: input.repoName ?? null,
      repoBranch: input.repoBranch ?? null,
      contextFiles: input.contextFiles ?? null,
      // Pinned when the run takes its slot (db/execution-hosts.ts).
      host: null,
      output: '',
      createdAt: input.createdAt ?? new Date(),
    })
    .onDuplicateKeyUpdate({ set: { id: sql`id` } });
  const stored = await getExecution(db, id);
  if (!stored) throw new Error(`execution ${id} vanished right after its insert`);
  return stored;
}

/**
 * queued -> running, at `startedAt`. A retried attempt calls it again: the record stays running with
 * the new start and its output is reset, since the agent runs again from the beginning.
 * False when the record is unknown or already finished (nothing changes then).
 */
export async function markExecutionRunning(db: Database, id: string, startedAt: Date = new Date()): Promise<boolean> {
  const [result] = await db
    .update(executions)
    .set({ status: 'running', startedAt, output: '', outputTruncated: false, outputSeq: 0 })
    .where(and(eq(executions.id, id), inArray(executions.status, [...ACTIVE_STATUSES])));
  return result.affectedRows > 0;
}

/** Live output chunks `fromSeq`..`toSeq` of one execution, joined. */
export interface OutputPiece {
  text: string;
  fromSeq: number;
  toSeq: number;
}

/**
 * Appends a piece of live output to an unfinished record, so a client that connects late can fetch
 * what it missed, with the live `seq` of its last chunk (a late client knows which chunks the output
 * holds). Exactly once: only where the stored output ends at chunk `fromSeq - 1`, so a piece sent
 * again after a lost answer is not stored twice, and pieces are stored in order. Past
 * OUTPUT_MAX_CHARS nothing more is kept: the piece that crosses the cap is cut and followed by the
 * note, later pieces only advance the seq. True when the piece is stored (now or before); false when
 * the record is finished or unknown, so nothing more can be appended.
 */
export async function appendOutputPiece(db: Database, id: string, piece: OutputPiece): Promise<boolean> {
  const { text, fromSeq, toSeq } = piece;
  const [result] = await db.execute(sql`
    UPDATE executions SET
      output_truncated = output_truncated OR CHAR_LENGTH(output) + CHAR_LENGTH(${text}) > ${OUTPUT_MAX_CHARS},
      output_seq = ${toSeq},
      output = CASE
        WHEN CHAR_LENGTH(output) > ${OUTPUT_MAX_CHARS} THEN output
        WHEN CHAR_LENGTH(output) + CHAR_LENGTH(${text}) <= ${OUTPUT_MAX_CHARS} THEN CONCAT(output, ${text})
        ELSE CONCAT(output, LEFT(${text}, ${OUTPUT_MAX_CHARS} - CHAR_LENGTH(output)), ${OUTPUT_TRUNCATED_NOTE})
      END
    WHERE id = ${id} AND finished_at IS NULL AND output_seq = ${fromSeq - 1}`);
  if ((result as unknown as { affectedRows: number }).affectedRows > 0) return true;
  const [stored] = await db
    .select({ outputSeq: executions.outputSeq, finishedAt: executions.finishedAt })
    .from(executions)
    .where(eq(executions.id, id));
  if (!stored || stored.finishedAt !== null) return false;
  if (stored.outputSeq >= toSeq) return true; // stored by an earlier attempt whose answer was lost
  throw new Error(`execution ${id}: output piece ${fromSeq}-${toSeq} does not follow the stored chunk ${stored.outputSeq}`);
}

/**
 * Marks the start of attempt `attempt`'s agent process, just before it starts: true for the one
 * delivery of the run that may start it, false when a delivery already did (its worker died before its
 * heartbeat said so; docs/agent-executions.md, "A run lost on its way to the worker"). At most one agent
 * process per record and attempt, whatever Temporal delivers.
 */
export async function claimAgentStart(db: Database, id: string, attempt: number): Promise<boolean> {
  const [result] = await db.execute(sql`
    UPDATE executions SET agent_started_attempt = ${attempt}
    WHERE id = ${id} AND (agent_started_attempt IS NULL OR agent_started_attempt < ${attempt})`);
  return (result as unknown as { affectedRows: number }).affectedRows > 0;
}

export interface ExecutionResult {
  status: FinalStatus;
  sessionId?: string | null;
  costUsd?: number | null;
  durationMs?: number | null;
  turns?: number | null;
  /** The whole output; absent: keep what appendOutputPiece stored. Cut to the cap here too. */
  output?: string;
  /** The answer (the CLI's `result` text, else the assistant's text); absent: keep the stored one. */
  result?: string | null;
  /** The agent process's exit code; absent: keep the stored one. */
  exitCode?: number | null;
  error?: string | null;
  finishedAt?: Date;
  reportFile?: string | null;
  /** Tokens as the CLI's `result` event reports them; absent: keep the stored ones. */
  tokens?: ExecutionTokens | null;
  /** The commit pushed (or committed and refused) at the end of a repository run. */
  repoCommit?: string | null;
  /**
   * One last line of output (with its line end) that ends the record with it, numbered after the
   * stored ones (output_seq + 1), e.g. "Execução cancelada". Dropped when the output is full.
   */
  closingLine?: string;
}

export interface ExecutionTokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheCreation: number;
}

/**
 * Stores the outcome and ends the record, in one transaction with what its cost moves: the record's
 * `cost_usd` becomes every attempt's, the last attempt's own cost goes to the day's counter (once),
 * and a retried record's last attempt gets its row (db/execution-attempts.ts). Idempotent: only the
 * first call on an unfinished record writes; later calls (a retried activity) change nothing. Returns
 * the stored record either way, with `changed` telling which; null when the id is unknown.
 */
export async function finishExecution(
  db: Database,
  id: string,
  outcome: ExecutionResult,
): Promise<{ execution: Execution; changed: boolean } | null> {
  const bounded = outcome.output === undefined ? null : boundOutput(outcome.output);
  // Only a record not ended yet: the first close wins, a retried one changes nothing.
  const end = (runner: Pick<Database, 'update'>, costUsd: number | null | undefined) =>
    runner
      .update(executions)
      .set({
        status: outcome.status,
        finishedAt: outcome.finishedAt ?? new Date(),
        error: outcome.error ?? null,
        ...(outcome.sessionId !== undefined && outcome.sessionId !== null ? { sessionId: outcome.sessionId } : {}),
        ...(costUsd !== undefined ? { costUsd } : {}),
        ...(outcome.durationMs !== undefined ? { durationMs: outcome.durationMs } : {}),
        ...(outcome.turns !== undefined ? { turns: outcome.turns } : {}),
        ...(outcome.result !== undefined ? { result: outcome.result === null ? null : boundOutput(outcome.result).output } : {}),
        ...(outcome.exitCode !== undefined ? { exitCode: outcome.exitCode } : {}),
        ...(outcome.reportFile !== undefined ? { reportFile: outcome.reportFile } : {}),
        ...(outcome.repoCommit !== undefined ? { repoCommit: outcome.repoCommit } : {}),
        ...(outcome.tokens
          ? {
              inputTokens: outcome.tokens.input,
              outputTokens: outcome.tokens.output,
              cacheReadTokens: outcome.tokens.cacheRead,
              cacheCreationTokens: outcome.tokens.cacheCreation,
            }
          : {}),
        ...(bounded ? { output: bounded.output, outputTruncated: bounded.truncated } : {}),
        ...(outcome.closingLine !== undefined && !bounded
          ? {
              output: sql`CASE WHEN CHAR_LENGTH(${executions.output}) + CHAR_LENGTH(${outcome.closingLine}) <= ${OUTPUT_MAX_CHARS} THEN CONCAT(${executions.output}, ${outcome.closingLine}) ELSE ${executions.output} END`,
              outputSeq: sql`${executions.outputSeq} + 1`,
            }
          : {}),
      })
      .where(and(eq(executions.id, id), isNull(executions.finishedAt)));
  // One transaction, the record locked: its cost is every attempt's (docs/executions.md, "Attempts"), and
  // the day's counter of what agent runs cost moves with it, once (the record ends once).
  const changed = await db.transaction(async (tx) => {
    // Only the record's row is locked. Its attempts are read plainly, after the lock (every writer of
    // them locks or reads the record's row first): a locking read of them took a gap lock that deadlocked
    // two retried records closing at once against the day's counter (scripts/bench/finish-execution.ts).
    const [record] = await tx
      .select({ status: executions.status, attempt: executions.attempt, finishedAt: executions.finishedAt })
      .from(executions)
      .where(eq(executions.id, id))
      .for('update');
    if (!record || record.finishedAt !== null) return false;
    const attempts = await tx
      .select({ attempt: executionAttempts.attempt, costUsd: executionAttempts.costUsd, counted: executionAttempts.counted })
      .from(executionAttempts)
      .where(eq(executionAttempts.executionId, id));
    const costs = attemptCosts(record.attempt, attempts, outcome.costUsd);
    const [result] = await end(tx, costs.total);
    if (result.affectedRows === 0) return false;
    if (!costs.counted && costs.own !== null && costs.own > 0) await addToDailyCost(tx, id, costs.own);
    if (costs.closesRow) await closeLastAttempt(tx, id, costs.own, record.status === 'running');
    return true;
  });
  const execution = await getExecution(db, id);
  return execution ? { execution, changed } : null;
}

/**
 * Ends a record that has not started yet as `canceled`, by one conditional statement: a waiter taking a
 * slot (db/execution-slots.ts) only starts a record still `queued`, so either this wins or the start
 * does. Then, for a record queued again for a retry, its never-started attempt's row (repeatable, so
 * outside a transaction). True when this call ended it.
 */
export async function cancelQueuedExecution(db: Database, id: string, error: string, finishedAt: Date = new Date()): Promise<boolean> {
  const [result] = await db
    .update(executions)
    .set({ status: 'canceled', error, finishedAt })
    .where(and(eq(executions.id, id), eq(executions.status, 'queued')));
  if (result.affectedRows === 0) return false;
  // Queued again for its next attempt (retryOnFailure): that attempt, never started, ends here (docs/executions.md, "Attempts").
  await closeLastAttempt(db, id, null, false, { retriedOnly: true });
  return true;
}

/**
 * A failed attempt that will be tried again: `running` -> `retrying`, with why and the number of the
 * next attempt (docs/agent-executions.md, "Retry on failure"). True when this call moved it.
 */
export async function markExecutionRetrying(db: Database, id: string, reason: string, nextAttempt: number): Promise<boolean> {
  const [result] = await db
    .update(executions)
    .set({ status: 'retrying', error: reason, attempt: nextAttempt })
    .where(and(eq(executions.id, id), eq(executions.status, 'running')));
  return result.affectedRows > 0;
}

/** After the retry delay: `retrying` -> `queued`, so the next attempt waits for a slot like any run. */
export async function requeueRetryingExecution(db: Database, id: string): Promise<void> {
  await db
    .update(executions)
    .set({ status: 'queued', waitingHeartbeatAt: null })
    .where(and(eq(executions.id, id), eq(executions.status, 'retrying')));
}

/** The `config.timeout` of the agent that runs record `id` (null: none set, or no such agent). */
export async function agentTimeoutOfExecution(db: Database, id: string): Promise<number | null> {
  const [row] = await db
    .select({ timeoutMs: agents.timeoutMs })
    .from(executions)
    .innerJoin(agents, eq(agents.id, executions.agentId))
    .where(eq(executions.id, id));
  return row?.timeoutMs ?? null;
}

/** The record delegated from `id` (config.delegateTo), if it delegated already. */
export async function delegatedExecutionOf(db: Database, id: string): Promise<string | null> {
  const [row] = await db.select({ id: executions.id }).from(executions).where(eq(executions.delegatedFrom, id)).limit(1);
  return row?.id ?? null;
}

/** Records the report written after finishExecution (repeatable: the same name is written again). */
export async function setExecutionReportFile(db: Database, id: string, reportFile: string): Promise<boolean> {
  const [result] = await db.update(executions).set({ reportFile }).where(eq(executions.id, id));
  return result.affectedRows > 0;
}

/** The newest record of an agent that holds this session (the one a `continue` follows); null when none. */
export async function latestExecutionOfSession(db: Database, agentId: string, sessionId: string): Promise<Execution | null> {
  const rows = await db
    .select()
    .from(executions)
    .where(and(eq(executions.agentId, agentId), eq(executions.sessionId, sessionId)))
    .orderBy(desc(executions.createdAt), desc(executions.id))
    .limit(1);
  return rows[0] ?? null;
}

export async function getExecution(db: Database, id: string): Promise<Execution | null> {
  const rows = await db.select().from(executions).where(eq(executions.id, id));
  return rows[0] ?? null;
}

async function getExecutionStatus(db: Database, id: string): Promise<ExecutionStatus | null> {
  const rows = await db.select({ status: executions.status }).from(executions).where(eq(executions.id, id));
  return rows[0]?.status ?? null;
}

/** The history filters, already validated (api/orchestration/executions-input.ts). */
export interface HistoryFilters {
  kind?: ExecutionKind;
  status?: ExecutionStatus[];
  source?: ExecutionSource[];
  agentId?: string;
  pipelineId?: string;
  /** createdAt >= from. */
  from?: Date;
  /** createdAt < before (the route turns an inclusive `to` into this exclusive bound). */
  before?: Date;
  /** Case-insensitive substring of the agent's (or pipeline's) name or the task (the panel's `search`). */
  search?: string;
}

export interface PageRequest {
  limit: number;
  offset: number;
}

export interface HistoryPage {
  items: ExecutionSummary[];
  total: number;
  limit: number;
  offset: number;
}

/** LIKE pattern matching `text` literally anywhere (its own %, _ and \ escaped). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

function historyWhere(filters: HistoryFilters): SQL | undefined {
  // A pipeline step's agent execution is part of its run's record (the detail's steps[]), not an item of its own.
  const conditions: SQL[] = [isNull(executions.pipelineExecutionId)];
  if (filters.kind !== undefined) conditions.push(eq(executions.kind, filters.kind));
  if (filters.status?.length) conditions.push(inArray(executions.status, filters.status));
  if (filters.source?.length) conditions.push(inArray(executions.source, filters.source));
  if (filters.agentId !== undefined) conditions.push(eq(executions.agentId, filters.agentId));
  if (filters.pipelineId !== undefined) conditions.push(eq(executions.pipelineId, filters.pipelineId));
  if (filters.from) conditions.push(gte(executions.createdAt, filters.from));
  if (filters.before) conditions.push(lt(executions.createdAt, filters.before));
  if (filters.search !== undefined && filters.search !== '') {
    const pattern = containsPattern(filters.search);
    const text = or(like(executions.agentName, pattern), like(executions.task, pattern));
    if (text) conditions.push(text);
  }
  return conditions.length ? and(...conditions) : undefined;
}

/**
 * One page of the history, newest first (createdAt, then id). The page query walks the index of
 * its filter in page order and stops when the page is full; the total is one COUNT over the same
 * filters (docs/executions.md, "Cost of the text filter").
 */
export async function listExecutionHistory(db: Database, filters: HistoryFilters, page: PageRequest): Promise<HistoryPage> {
  const where = historyWhere(filters);
  const [items, [counted]] = await Promise.all([
    db
      .select(summaryColumns)
      .from(executions)
      .where(where)
      .orderBy(desc(executions.createdAt), desc(executions.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ total: count() }).from(executions).where(where),
  ]);
  return { items, total: Number(counted?.total ?? 0), limit: page.limit, offset: page.offset };
}

/**
 * The history under `filters` in batches of `batchSize`, newest first, by keyset (createdAt, id):
 * memory stays one batch however large the table (the CSV export).
 */
export async function* iterateExecutionHistory(db: Database, filters: HistoryFilters, batchSize = 500): AsyncGenerator<ExecutionSummary[]> {
  const base = historyWhere(filters);
  let last: { createdAt: Date; id: string } | null = null;
  for (;;) {
    const after: SQL | undefined = last
      ? or(lt(executions.createdAt, last.createdAt), and(eq(executions.createdAt, last.createdAt), lt(executions.id, last.id)))
      : undefined;
    const batch: ExecutionSummary[] = await db
      .select(summaryColumns)
      .from(executions)
      .where(and(base, after))
      .orderBy(desc(executions.createdAt), desc(executions.id))
      .limit(batchSize);
    if (batch.length === 0) return;
    yield batch;
    if (batch.length < batchSize) return;
    const tail: ExecutionSummary = batch[batch.length - 1]!;
    last = { createdAt: tail.createdAt, id: tail.id };
  }
}

/** The newest `limit` records, newest first, without output. */
export async function recentExecutions(db: Database, limit: number): Promise<ExecutionSummary[]> {
  return db
    .select(summaryColumns)
    .from(executions)
    .where(isNull(executions.pipelineExecutionId))
    .orderBy(desc(executions.createdAt), desc(executions.id))
    .limit(limit);
}

/** Queued, running and retrying records, oldest first (the order queued ones start in). */
export async function activeExecutions(db: Database): Promise<ExecutionSummary[]> {
  return db
    .select(summaryColumns)
    .from(executions)
    .where(inArray(executions.status, [...ACTIVE_STATUSES]))
    .orderBy(asc(executions.createdAt), asc(executions.id));
}

/** The runs of an agent's process that are not ended (queued, running, retrying), oldest first: no pipeline run's own record. */
export async function activeAgentRuns(db: Database): Promise<ExecutionSummary[]> {
  return db
    .select(summaryColumns)
    .from(executions)
    .where(and(eq(executions.kind, 'agent'), inArray(executions.status, [...ACTIVE_STATUSES])))
    .orderBy(asc(executions.createdAt), asc(executions.id));
}

export async function countActiveExecutions(db: Database): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(executions)
    .where(inArray(executions.status, [...ACTIVE_STATUSES]));
  return Number(row?.n ?? 0);
}

/**
 * Deletes a finished record. An active one (queued, running or retrying) is kept: its workflow still writes
 * to it. The check and the delete are one statement, so a record cannot start between them.
 */
export async function deleteExecution(db: Database, id: string): Promise<'deleted' | 'not-found' | 'active'> {
  const [result] = await db.delete(executions).where(and(eq(executions.id, id), notInArray(executions.status, [...ACTIVE_STATUSES])));
  if (result.affectedRows > 0) return 'deleted';
  return (await getExecutionStatus(db, id)) === null ? 'not-found' : 'active';
}

const CLEAR_BATCH = 5_000;

/**
 * Deletes every finished record, in batches so no statement holds locks over the whole table;
 * active ones are kept (as in deleteExecution). Returns how many were deleted.
 */
export async function clearExecutionHistory(db: Database): Promise<number> {
  let deleted = 0;
  for (;;) {
    const [result] = await db.execute(
      sql`DELETE FROM executions WHERE status NOT IN ('queued', 'running', 'retrying', 'awaiting_approval') LIMIT ${CLEAR_BATCH}`,
    );
    const affected = (result as unknown as { affectedRows: number }).affectedRows;
    deleted += affected;
    if (affected < CLEAR_BATCH) return deleted;
  }
}
