import type { Pool, PoolConnection, RowDataPacket } from 'mysql2/promise';

/**
 * The concurrency slots of agent executions (docs/agent-executions.md, "Concurrency"): at most
 * `maxConcurrentExecutions` records are `running` at once, across every worker, and queued records
 * start in strict FIFO order (createdAt, then id). A waiter that stops looking (its worker died) stops
 * counting in the queue, so it cannot block the others.
 */

/** A queued record whose waiter has not looked for a slot for this long is skipped when choosing the oldest. */
export const STALE_WAITER_MS = 10_000;
/** How long one attempt waits for the slot lock before giving up for this round. */
const LOCK_WAIT_SECONDS = 5;

export type SlotAttempt =
  /** The record is now `running` (or already was: a repeated call after a lost answer). */
  | { outcome: 'taken' }
  /** Not its turn yet, or no free slot: try again later. `ahead`: live waiters before it in the queue. */
  | { outcome: 'waiting'; ahead: number }
  /** The record is finished (cancelled meanwhile) or unknown: nothing to run. */
  | { outcome: 'gone' };

const TAKEN: SlotAttempt = { outcome: 'taken' };
const GONE: SlotAttempt = { outcome: 'gone' };

interface StatusRow extends RowDataPacket {
  status: string;
  created_at: Date;
}

/**
 * One attempt to take a slot for a queued record. Serialised across processes by a named lock
 * (`GET_LOCK`, per database), so two waiters never both see the last free slot. Also records that
 * this record's waiter is alive (`waiting_heartbeat_at`).
 *
 * Any waiter's look hands every free slot to the live records at the head of the queue, in FIFO
 * order (they become `running`, `startedAt` stamped in that order), and each of them finds its record
 * running at its own next look. Slots are then never idle while the head's waiter sleeps: a queue
 * drains as fast as executions finish, not one start per head's poll.
 */
export async function tryTakeExecutionSlot(pool: Pool, executionId: string, limit: number, now: Date = new Date()): Promise<SlotAttempt> {
  const connection = await pool.getConnection();
  try {
    await connection.query('UPDATE executions SET waiting_heartbeat_at = ? WHERE id = ? AND status = ?', [now, executionId, 'queued']);
    if (!(await getLock(connection))) return { outcome: 'waiting', ahead: 0 };
    try {
      const own = await statusOf(connection, executionId);
      if (own?.status === 'running') return TAKEN;
      if (own?.status !== 'queued') return GONE;

      // A waiter is alive when it looked recently; a record not yet looked at counts from its creation.
      const staleBefore = new Date(now.getTime() - STALE_WAITER_MS);
      const [counted] = await connection.query<RowDataPacket[]>(
        "SELECT COUNT(*) AS n FROM executions WHERE status = 'running' AND kind = 'agent'",
      );
      const free = limit - Number(counted[0]?.n ?? 0);
      if (free > 0) {
        const chosen = await nextToStart(connection, staleBefore, free);
        if (chosen.length > 0) {
          await connection.query(
            `UPDATE executions SET status = 'running', started_at = ?, output = '', output_truncated = 0, output_seq = 0
              WHERE id IN (?) AND status = 'queued'`,
            [new Date(), chosen],
          );
        }
        if ((await statusOf(connection, executionId))?.status === 'running') return TAKEN;
      }
      const [before] = await connection.query<RowDataPacket[]>(
        `SELECT COUNT(*) AS n FROM executions
          WHERE status = 'queued' AND kind = 'agent' AND COALESCE(waiting_heartbeat_at, created_at) >= ?
            AND (created_at < ? OR (created_at = ? AND id < ?))`,
        [staleBefore, own.created_at, own.created_at, executionId],
      );
      return { outcome: 'waiting', ahead: Number(before[0]?.n ?? 0) };
    } finally {
      await connection.query('SELECT RELEASE_LOCK(CONCAT(DATABASE(), ?))', [LOCK_SUFFIX]);
    }
  } finally {
    connection.release();
  }
}

/** How far past the free slots the queue is read to find records whose repository is not busy. */
const REPOSITORY_LOOKAHEAD = 100;

interface QueuedRow extends RowDataPacket {
  id: string;
  repo_name: string | null;
  pipeline_execution_id: string | null;
}

/**
 * The live queued records that take the `free` slots, oldest first (docs/repositories.md, "Two runs
 * on one repository"). A record working in a repository waits while another record of that
 * repository runs or is chosen before it, and while an active pipeline run holds the repository: the
 * oldest active pipeline run of a repository holds it from its first step to its push, so another
 * run never works in its working copy between its steps or during an approval; only that run's own
 * steps go. The records behind a waiting one go first.
 */
async function nextToStart(connection: PoolConnection, staleBefore: Date, free: number): Promise<string[]> {
  const [queued] = await connection.query<QueuedRow[]>(
    `SELECT id, repo_name, pipeline_execution_id FROM executions
      WHERE status = 'queued' AND kind = 'agent' AND COALESCE(waiting_heartbeat_at, created_at) >= ?
      ORDER BY created_at, id LIMIT ?`,
    [staleBefore, free + REPOSITORY_LOOKAHEAD],
  );
  if (queued.every((row) => row.repo_name === null)) return queued.slice(0, free).map((row) => row.id);
  const [running] = await connection.query<RowDataPacket[]>(
    "SELECT DISTINCT repo_name FROM executions WHERE status = 'running' AND kind = 'agent' AND repo_name IS NOT NULL",
  );
  const busy = new Set(running.map((row) => String(row.repo_name)));
  // The holder of each repository among the active pipeline runs: the oldest.
  const [pipelines] = await connection.query<RowDataPacket[]>(
    `SELECT id, repo_name FROM executions
      WHERE kind = 'pipeline' AND repo_name IS NOT NULL AND status IN ('queued', 'running', 'retrying', 'awaiting_approval')
      ORDER BY created_at, id`,
  );
  const holder = new Map<string, string>();
  for (const row of pipelines) if (!holder.has(String(row.repo_name))) holder.set(String(row.repo_name), String(row.id));
  const chosen: string[] = [];
  for (const row of queued) {
    if (chosen.length === free) break;
    if (row.repo_name !== null) {
      const held = holder.get(row.repo_name);
      if (busy.has(row.repo_name) || (held !== undefined && held !== row.pipeline_execution_id)) continue;
      busy.add(row.repo_name);
    }
    chosen.push(row.id);
  }
  return chosen;
}

async function statusOf(connection: PoolConnection, executionId: string): Promise<StatusRow | undefined> {
  const [rows] = await connection.query<StatusRow[]>('SELECT status, created_at FROM executions WHERE id = ?', [executionId]);
  return rows[0];
}

/** GET_LOCK names are server-wide: the database name keeps test databases and deployments apart. */
const LOCK_SUFFIX = ':agent-execution-slots';

async function getLock(connection: PoolConnection): Promise<boolean> {
  const [rows] = await connection.query<RowDataPacket[]>('SELECT GET_LOCK(CONCAT(DATABASE(), ?), ?) AS locked', [
    LOCK_SUFFIX,
    LOCK_WAIT_SECONDS,
  ]);
  return Number(rows[0]?.locked) === 1;
}
