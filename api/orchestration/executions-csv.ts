import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { ExecutionSummary } from '../../db/executions-store';

/** The CSV export's columns, in order (docs/executions.md); the output is left out on purpose. */
export const CSV_COLUMNS = [
  'id',
  'kind',
  'status',
  'source',
  'agentId',
  'agentName',
  'pipelineId',
  'scheduleId',
  'parentExecutionId',
  'model',
  'workingDirectory',
  'sessionId',
  'createdAt',
  'startedAt',
  'finishedAt',
  'durationMs',
  'costUsd',
  'turns',
  'task',
  'instructions',
  'error',
  'reportFile',
] as const;

type CsvColumn = (typeof CSV_COLUMNS)[number];

/** One record as CSV cells: dates in ISO 8601 UTC, absent values empty. */
export function csvRow(record: ExecutionSummary): Record<CsvColumn, string> {
  const cells = {} as Record<CsvColumn, string>;
  for (const column of CSV_COLUMNS) {
    const value = record[column];
    cells[column] = value === null || value === undefined ? '' : value instanceof Date ? value.toISOString() : String(value);
  }
  return cells;
}

/** `execucoes_<YYYY-MM-DD>.csv`, the name the panel gives the download, for the UTC day of `now`. */
export function exportFileName(now: Date): string {
  return `execucoes_${now.toISOString().slice(0, 10)}.csv`;
}

/**
 * The CSV as a stream fed batch by batch: a header row, then one row per record, quoted by
 * csv-stringify where a cell holds a comma, a quote or a line break. The first batch is read
 * before anything is sent, so a failing database still answers 500 instead of a cut file; a later
 * failure aborts the download.
 */
export async function csvStream(batches: AsyncIterator<ExecutionSummary[]>): Promise<Readable> {
  const first = await batches.next();
  async function* rows() {
    for (let next = first; !next.done; next = await batches.next()) for (const record of next.value) yield csvRow(record);
  }
  const stringifier = stringify({ header: true, columns: [...CSV_COLUMNS], eof: true, record_delimiter: 'unix' });
  const source = Readable.from(rows());
  source.on('error', (error) => stringifier.destroy(error));
  return source.pipe(stringifier);
}
