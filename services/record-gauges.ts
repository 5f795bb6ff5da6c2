import type { Pool } from 'mysql2/promise';
import { readRecordFigures } from '../db/metric-figures';
import { serveRecordFigures } from '../lib/metrics';

/**
 * The service-wide gauges read from the records at each scrape (runs running and waiting for a slot,
 * pipelines awaiting approval, the last ranking success): served by the API processes, from their
 * database (docs/observability.md).
 */
export function serveRecordGauges(deps: { pool: Pool }): void {
  serveRecordFigures(() => readRecordFigures(deps.pool));
}
