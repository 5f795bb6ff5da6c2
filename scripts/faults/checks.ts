import fs from 'node:fs';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { WORKER_LOST_ERROR } from '../../domain/execution-errors';
import type { Fault } from './fault-schedule';
import type { Strike } from './injectors';
import type { PhaseLoad } from './load';
import { judgeRunLines } from './run-lines';
import type { FaultService } from './service';
import type { Watcher } from './watcher';

/**
 * What the fault suite checks after each phase (docs/reliability.md), with nothing relaxed for the
 * fault: every accepted run final, with a cause when it failed; none run twice; runs not started
 * when the fault struck completed; every line a client was shown once and in order.
 */

export const FINAL_STATUSES = ['completed', 'error', 'canceled', 'rejected'];

/** What struck a phase: the fault suite's faults, or (the deploy test, scripts/deploy) a rolling restart. */
export interface PhaseFigures<F extends string = Fault> {
  faults: F[];
  accepted: number;
  completed: number;
  /** Ended `error` with a text that names the cause. */
  errorWithCause: number;
  /** Not final within the bound (or gone): lost. */
  lost: number;
  /** Agent processes started more than once for one record and attempt. */
  doubled: number;
  linesLost: number;
  linesDoubled: number;
  /** From the strike until an agent run completed after the struck part was back, in ms. */
  recoverMs: number | null;
  /** Each error's text, counted: what the faults did to the runs. */
  causes: Record<string, number>;
}

export interface RecordRow extends RowDataPacket {
  id: string;
  kind: string;
  status: string;
  source: string;
  error: string | null;
  attempt: number;
  /** The attempt whose agent start the service claimed, just before spawning it (docs/agent-executions.md). */
  agent_started_attempt: number | null;
  pipeline_execution_id: string | null;
  started_at: Date | null;
  finished_at: Date | null;
}

/** The agent processes started, from the tagged agent command's file: time, record, pid. */
export function agentStarts(startsFile: string): Array<{ at: number; executionId: string; attempt: number; pid: number }> {
  return fs
    .readFileSync(startsFile, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [at, executionId, attempt, pid] = line.split(' ');
      return { at: Number(at), executionId: executionId!, attempt: Number(attempt), pid: Number(pid) };
    });
}

/** Every record of the phase: its runs, its pipeline runs with their steps, its webhook runs, the schedule's firings since it began. */
export async function phaseRecords(
  service: Pick<FaultService, 'pool'>,
  load: PhaseLoad,
  scheduleId: string,
  since: Date,
): Promise<RecordRow[]> {
  const ids = [
    ...load.runs.map((run) => run.executionId),
    ...load.pipelineRuns,
    ...load.deliveries.map((delivery) => delivery.executionId),
    ...load.probes,
  ];
  const [rows] = await service.pool.query<RecordRow[]>(
    `SELECT id, kind, status, source, error, attempt, agent_started_attempt, pipeline_execution_id, started_at, finished_at FROM executions
     WHERE id IN (?) OR pipeline_execution_id IN (?) OR (schedule_id = ? AND created_at >= ?)`,
    [ids.length > 0 ? ids : [''], load.pipelineRuns.length > 0 ? load.pipelineRuns : [''], scheduleId, since],
  );
  return rows;
}

/** Waits until every record of the phase exists (one per schedule firing too) and is final, up to `boundMs`; the records as they then are. */
export async function untilFinal(
  service: Pick<FaultService, 'pool'>,
  load: PhaseLoad,
  scheduleId: string,
  since: Date,
  firings: number,
  boundMs: number,
): Promise<RecordRow[]> {
  const expected = load.runs.length + load.pipelineRuns.length + load.deliveries.length + load.probes.length + firings;
  const deadline = Date.now() + boundMs;
  for (;;) {
    let rows: RecordRow[] | null = null;
    try {
      rows = await phaseRecords(service, load, scheduleId, since);
    } catch {
      // MariaDB restarting: asked again.
    }
    const made = rows?.filter((row) => row.pipeline_execution_id === null).length ?? 0;
    if (rows !== null && ((made >= expected && rows.every((row) => FINAL_STATUSES.includes(row.status))) || Date.now() > deadline))
      return rows;
    if (rows === null && Date.now() > deadline) throw new Error('the records could not be read within the bound');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/**
 * A run whose start the killed worker claimed but whose process never wrote its line: the worker died
 * between the claim and the spawned command's first instruction. The service cannot tell that the
 * process did not start, so it ends the run as lost rather than risk a second agent (docs/reliability.md).
 */
function claimedThenLost(row: RecordRow): boolean {
  return row.agent_started_attempt === row.attempt && row.status === 'error' && row.error === WORKER_LOST_ERROR;
}

export interface PhaseVerdict<F extends string = Fault> {
  figures: PhaseFigures<F>;
  violations: string[];
}

export function judgePhase<F extends string = Fault>(input: {
  faults: F[];
  load: PhaseLoad;
  records: RecordRow[];
  /** When each strike hit and when its part was back (what and whom it hit: for the caller's own report). */
  strikes: Array<Pick<Strike, 'struckAt' | 'backAt'> & { fault?: string; target?: string }>;
  watchers: Watcher[];
  starts: ReturnType<typeof agentStarts>;
  scheduleFirings: number;
}): PhaseVerdict<F> {
  const { load, records, strikes, watchers, starts } = input;
  const violations: string[] = [];
  const byId = new Map(records.map((row) => [row.id, row]));
  const accepted = load.runs.length + load.pipelineRuns.length + load.deliveries.length + load.probes.length + input.scheduleFirings;
  const topLevel = [
    ...load.runs.map((run) => run.executionId),
    ...load.pipelineRuns,
    ...load.deliveries.map((delivery) => delivery.executionId),
    ...load.probes,
  ];
  const scheduled = records.filter((row) => row.kind !== 'pipeline' && row.pipeline_execution_id === null && !topLevel.includes(row.id));
  let lost = 0;
  for (const id of topLevel) {
    if (byId.has(id)) continue;
    lost += 1;
    violations.push(`accepted run ${id} has no record`);
  }
  if (scheduled.length !== input.scheduleFirings)
    violations.push(`the schedule fired ${input.scheduleFirings} times in the phase and ${scheduled.length} records were made`);
  const causes: Record<string, number> = {};
  let completed = 0;
  let errorWithCause = 0;
  const firstStrike = Math.min(...strikes.map((strike) => strike.struckAt));
  // Two faults strike a moment apart: a run started between them was running when the second struck.
  const lastStrike = Math.max(...strikes.map((strike) => strike.struckAt));
  for (const row of records) {
    if (!FINAL_STATUSES.includes(row.status)) {
      lost += 1;
      violations.push(`${row.kind} ${row.id} still ${row.status} after the bound`);
      continue;
    }
    const counted = topLevel.includes(row.id) || scheduled.includes(row);
    if (row.status === 'completed' && counted) completed += 1;
    if (row.status === 'error') {
      const cause = (row.error ?? '').trim();
      if (cause === '') violations.push(`${row.kind} ${row.id} ended error without a cause`);
      else {
        if (counted) errorWithCause += 1;
        const key = cause.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>').slice(0, 120);
        causes[key] = (causes[key] ?? 0) + 1;
      }
    }
    // A run whose agent had not started when the faults struck (the last of them) must complete normally after them.
    const firstStart = starts.find((start) => start.executionId === row.id);
    const notStartedAtStrike =
      row.kind !== 'pipeline' &&
      (firstStart === undefined ? !claimedThenLost(row) : firstStart.at > lastStrike) &&
      row.status !== 'canceled';
    if (notStartedAtStrike && row.status !== 'completed') {
      violations.push(
        `${row.kind} ${row.id} had not started when ${input.faults.join(' + ')} struck and ended ${row.status}: ${row.error}`,
      );
    }
  }
  let doubled = 0;
  const perAttempt = new Map<string, number>();
  for (const start of starts) {
    if (!byId.has(start.executionId)) continue;
    const key = `${start.executionId}#${start.attempt}`;
    perAttempt.set(key, (perAttempt.get(key) ?? 0) + 1);
  }
  for (const [key, times] of perAttempt) {
    if (times > 1) {
      doubled += times - 1;
      violations.push(`agent process of ${key} started ${times} times`);
    }
  }
  let linesLost = 0;
  let linesDoubled = 0;
  // The lines must have come live too: a client whose socket the service refused sees them all by catch-up only.
  for (const watcher of watchers)
    if (watcher.connections() === 0) violations.push(`client ${watcher.clientId} was never connected to the WebSocket`);
  const views = new Map(watchers.flatMap((watcher) => watcher.views().map((view) => [view.executionId, view] as const)));
  const phaseViews = load.runs.map((run) => views.get(run.executionId)).filter((view) => view !== undefined);
  if (phaseViews.length > 0 && phaseViews.every((view) => view.liveChunks === 0))
    violations.push('no line of the phase reached a client live');
  for (const run of load.runs) {
    const view = views.get(run.executionId);
    const record = byId.get(run.executionId);
    if (!view || !record) continue;
    const lines = judgeRunLines(view.lines, run.tag, run.lines, record.status);
    linesLost += lines.lost;
    linesDoubled += lines.doubled + lines.outOfOrder;
    if (lines.lost > 0) violations.push(`client ${run.clientId} lost ${lines.lost} line(s) of ${run.executionId} (${record.status})`);
    if (lines.doubled > 0 || lines.outOfOrder > 0)
      violations.push(
        `client ${run.clientId} showed ${lines.doubled} line(s) of ${run.executionId} twice, ${lines.outOfOrder} out of order`,
      );
  }
  const backAt = Math.max(...strikes.map((strike) => strike.backAt));
  const completedAfter = records
    .filter(
      (row) => row.status === 'completed' && row.kind !== 'pipeline' && row.finished_at !== null && row.finished_at.getTime() >= backAt,
    )
    .map((row) => row.finished_at!.getTime());
  const recoverMs = completedAfter.length > 0 ? Math.min(...completedAfter) - firstStrike : null;
  if (recoverMs === null) violations.push(`no agent run completed after ${input.faults.join(' + ')} was over`);
  return {
    figures: { faults: input.faults, accepted, completed, errorWithCause, lost, doubled, linesLost, linesDoubled, recoverMs, causes },
    violations,
  };
}

/** The ranking job's end, read until it is no longer running (at most `timeoutMs`): a violation, or null when it completed with every person. */
export async function rankingJobProblem(
  read: (route: string) => Promise<any>,
  persons: number,
  timeoutMs = 300_000,
): Promise<string | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await read('/api/v1/ranking/status');
    if (!status.em_execucao && status.estado !== 'em_execucao') {
      if (status.estado !== 'concluido') return `the ranking job ended ${status.estado}: ${status.ultimo_erro}`;
      if (status.processados !== persons) return `the ranking job processed ${status.processados} of ${persons} persons`;
      return null;
    }
    if (Date.now() > deadline) return `the ranking job did not end within ${timeoutMs / 1000} s`;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/** The ranking as stored: every person once, at positions 1..n; the persons held and a violation (or null). */
export async function rankingPositionsProblem(pool: Pool, persons: number): Promise<{ persons: number; problem: string | null }> {
  const [[ranking]] = await pool.query<RowDataPacket[]>(
    'SELECT COUNT(*) AS n, COUNT(DISTINCT id_pessoa) AS persons, MIN(posicao) AS first, MAX(posicao) AS last FROM ranking_entries',
  );
  const held = Number(ranking!.persons);
  const whole = Number(ranking!.n) === persons && held === persons && Number(ranking!.first) === 1 && Number(ranking!.last) === persons;
  return {
    persons: held,
    problem: whole
      ? null
      : `the ranking holds ${ranking!.n} entries of ${held} persons, positions ${ranking!.first}..${ranking!.last}; expected ${persons} persons at 1..${persons}`,
  };
}
