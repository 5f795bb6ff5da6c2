import type { Pool, RowDataPacket } from 'mysql2/promise';
import type { RecordFigures } from '../lib/metrics';

/**
 * The service-wide figures of the record gauges (lib/metrics.ts), in one round trip at each scrape:
 * both counts use the (status, created_at) index of `executions` over the active statuses only, and
 * the last success the (estado, finalizado_em) index of `ranking_job_runs`.
 */
export async function readRecordFigures(pool: Pool): Promise<RecordFigures> {
  const [rows] = await pool.query<RowDataPacket[]>(
    `SELECT
       (SELECT COUNT(*) FROM executions WHERE status = 'running' AND kind = 'agent') AS running,
       (SELECT COUNT(*) FROM executions WHERE status = 'queued' AND kind = 'agent') AS queued,
       (SELECT COUNT(*) FROM executions WHERE status = 'awaiting_approval' AND kind = 'pipeline') AS awaiting,
       (SELECT MAX(finalizado_em) FROM ranking_job_runs WHERE estado = 'concluido') AS last_success`,
  );
  const row = rows[0]!;
  const lastSuccess = row.last_success as Date | null;
  return {
    agentRunsRunning: Number(row.running),
    agentRunsWaitingSlot: Number(row.queued),
    pipelineRunsAwaitingApproval: Number(row.awaiting),
    rankingLastSuccessSeconds: lastSuccess ? lastSuccess.getTime() / 1000 : null,
  };
}
