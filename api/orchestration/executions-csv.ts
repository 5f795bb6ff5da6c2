import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { ExecutionSummary } from '../../services/executions';

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

/**
 * One record as CSV cells: dates in ISO 8601 UTC, absent values empty. Numbers stay numbers, so
 * the formula escaping (csvStream) never touches a negative number, only texts.
 */
export function csvRow(record: ExecutionSummary): Record<CsvColumn, string | number> {
  const cells = {} as Record<CsvColumn, string | number>;
  for (const column of CSV_COLUMNS) {
    const value = record[column];
    cells[column] =
      value === null || value === undefined ? '' : value instanceof Date ? value.toISOString() : typeof value === 'number' ? value : String(value);
  }
  return cells;
}

/** `execucoes_<YYYY-MM-DD>.csv`, the name the panel gives the download, for the UTC day of `now`. */
export function exportFileName(now: Date): string {
  return `execucoes_${now.toISOString().slice(0, 10)}.csv`;
}

/**
 * The CSV as a stream fed batch by batch: a header row, then one row per record, quoted by
 * csv-stringify where a cell holds a comma, a quote or a line break. Texts are user input (tasks,
 * agent names, errors): a cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return would
 * run as a formula in a spreadsheet, so csv-stringify's `escape_formulas` prefixes it with `'`,
 * which spreadsheets show as text and leaves the value readable. The first batch is read
 * before anything is sent, so a failing database still answers 500 instead of a cut file; a later
 * failure aborts the download.
 */
export async function csvStream(batches: AsyncIterator<ExecutionSummary[]>): Promise<Readable> {
  const first = await batches.next();
  async function* rows() {
    for (let next = first; !next.done; next = await batches.next()) for (const record of next.value) yield csvRow(record);
  }
  const stringifier = stringify({ header: true, columns: [...CSV_COLUMNS], eof: true, record_delimiter: 'unix', escape_formulas: true });
  const source = Readable.from(rows());
  source.on('error', (error) => stringifier.destroy(error));
  return source.pipe(stringifier);
}
