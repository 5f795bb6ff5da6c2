import type { Pool, PoolConnection, ResultSetHeader, RowDataPacket } from 'mysql2/promise';

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
  | 'taken'
  /** Not its turn yet, or no free slot: try again later. */
  | 'waiting'
  /** The record is finished (cancelled meanwhile) or unknown: nothing to run. */
  | 'gone';

interface StatusRow extends RowDataPacket {
  status: string;
}

interface IdRow extends RowDataPacket {
  id: string;
}

/**
 * One attempt to take a slot for a queued record. Serialised across processes by a named lock
 * (`GET_LOCK`, per database), so two waiters never both see the last free slot. Also records that
 * this record's waiter is alive (`waiting_heartbeat_at`).
 */
export async function tryTakeExecutionSlot(pool: Pool, executionId: string, limit: number, now: Date = new Date()): Promise<SlotAttempt> {
  const connection = await pool.getConnection();
  try {
    await connection.query('UPDATE executions SET waiting_heartbeat_at = ? WHERE id = ? AND status = ?', [now, executionId, 'queued']);
    if (!(await getLock(connection))) return 'waiting';
    try {
      const [own] = await connection.query<StatusRow[]>('SELECT status FROM executions WHERE id = ?', [executionId]);
      const status = own[0]?.status;
      if (status === 'running') return 'taken';
      if (status !== 'queued') return 'gone';

      const [counted] = await connection.query<RowDataPacket[]>("SELECT COUNT(*) AS n FROM executions WHERE status = 'running'");
      const free = limit - Number(counted[0]?.n ?? 0);
      if (free <= 0) return 'waiting';
      // Strict FIFO: only the head of the queue starts, even when several slots are free (the next
      // waiter takes the next one at its next look). A waiter is alive when it looked recently; a
      // record not yet looked at counts from its creation.
      const staleBefore = new Date(now.getTime() - STALE_WAITER_MS);
      const [head] = await connection.query<IdRow[]>(
        `SELECT id FROM executions
          WHERE status = 'queued' AND COALESCE(waiting_heartbeat_at, created_at) >= ?
          ORDER BY created_at, id LIMIT 1`,
        [staleBefore],
      );
      if (head[0]?.id !== executionId) return 'waiting';
      // Stamped under the lock, so start times follow the order slots were taken in.
      const [updated] = await connection.query<ResultSetHeader>(
        "UPDATE executions SET status = 'running', started_at = ?, output = '', output_truncated = 0, output_seq = 0 WHERE id = ? AND status = 'queued'",
        [new Date(), executionId],
      );
      return updated.affectedRows > 0 ? 'taken' : 'gone';
    } finally {
      await connection.query('SELECT RELEASE_LOCK(CONCAT(DATABASE(), ?))', [LOCK_SUFFIX]);
    }
  } finally {
    connection.release();
  }
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
